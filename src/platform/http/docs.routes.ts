import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, FastifyPluginAsync } from "fastify";

/**
 * What the reference page may load: its own scripts and styles (Swagger UI sets inline styles),
 * its logo as a data URL, and the document from this server; nothing from elsewhere.
 */
export const docsContentSecurityPolicy = [
  "default-src 'none'",
  "base-uri 'none'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
].join("; ");

/**
 * `/openapi.json`, and `/docs`: Swagger UI (served from its npm package) rendering the same
 * document, with every operation, its parameters, schemas, examples and error responses.
 */
export const docsRoutes =
  (root: FastifyInstance): FastifyPluginAsync =>
  async (app) => {
    app.get(
      "/openapi.json",
      { config: { auth: { kind: "public" } }, schema: { hide: true } },
      async (_request, reply) => reply.type("application/json").send(root.swagger()),
    );
    await app.register(swaggerUi, {
      routePrefix: "/docs",
      staticCSP: docsContentSecurityPolicy,
      theme: { title: "Hanse API reference" },
      uiConfig: {
        layout: "BaseLayout",
        deepLinking: true,
        displayOperationId: true,
        docExpansion: "list",
        defaultModelsExpandDepth: 0,
        showExtensions: false,
        tryItOutEnabled: false,
      },
    });
  };
