import swagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { LogController, type FastifyInstance } from "fastify";
import type { Container } from "./container.js";
import { consolePlugin } from "./console/console.plugin.js";
import { authPlugin, settleDeferredCredential } from "./platform/auth/index.js";
import { AppError } from "./platform/errors/app-error.js";
import { correlationIdFor } from "./platform/http/correlation.js";
import { docsRoutes } from "./platform/http/docs.routes.js";
import { healthRoutes } from "./platform/http/health.routes.js";
import { openapiOptions, operationsTag } from "./platform/http/openapi.js";
import { ProblemSchema } from "./platform/http/openapi-schemas.js";
import { holdsNulEscape, nulTextError } from "./platform/http/json-text.js";
import { createClientErrorHandler } from "./platform/http/client-errors.js";
import { httpServerFactory, serverLimits } from "./platform/http/http-server.js";
import { closeAfterAnswer, handleError, sendProblem, toAppError } from "./platform/http/problem.js";
import { repeatedHeaderError, repeatedSingleHeader } from "./platform/http/single-headers.js";
import { createValidatorCompiler } from "./platform/http/validators.js";
import { httpMetrics } from "./platform/metrics/index.js";
import { enterRequestTraces, traceChildLogger } from "./platform/tracing/index.js";
import { headers } from "@hanse/client/protocol";
import { serverVersion } from "./version.js";

/** JSON bodies are small everywhere except where a route raises its own limit. */
export const defaultBodyLimit = 1024 * 1024;

export async function buildApp(container: Container): Promise<FastifyInstance> {
  const clientErrorHandler = createClientErrorHandler(container.logger);
  const app = Fastify({
    loggerInstance: container.logger,
    genReqId: correlationIdFor,
    logController: new LogController({ requestIdLogLabel: "correlationId" }),
    childLoggerFactory: traceChildLogger,
    requestIdHeader: false,
    bodyLimit: defaultBodyLimit,
    // Shutting down is answered by the hook below, as problem+json like every other error.
    return503OnClosing: false,
    forceCloseConnections: "idle",
    routerOptions: { maxParamLength: serverLimits.maxParamLength },
    // The client address (request.ip) is the TCP peer unless a trusted proxy forwarded the request.
    trustProxy: container.config.HANSE_TRUST_PROXY ?? false,
    serverFactory: httpServerFactory({
      idleTimeoutMs: container.config.HANSE_HTTP_IDLE_TIMEOUT_MS,
      onStalledRequest: clientErrorHandler,
    }),
    // What Node's parser and Fastify's router refuse is answered as problem+json too (rules/contract §1).
    clientErrorHandler,
    frameworkErrors: (error, request, reply) => {
      reply.header(headers.correlationId, request.id);
      handleError(error, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(createValidatorCompiler());
  // JSON is the only body type by default; routes that take other media types register their own parser.
  app.removeContentTypeParser("text/plain");
  // An empty JSON body is no body: a POST action without one (revoke, activate) sent with
  // `Content-Type: application/json` is fine; a route whose schema needs a body still answers 400.
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text === "") {
      done(null, undefined);
      return;
    }
    if (holdsNulEscape(text)) {
      done(nulTextError(), undefined);
      return;
    }
    void parseJson(request, text, done);
  });
  app.addSchema(ProblemSchema);
  await app.register(
    swagger,
    openapiOptions({
      publicUrl: container.config.HANSE_PUBLIC_URL,
      version: serverVersion,
      tags: [operationsTag, ...container.modules.flatMap((module) => module.apiTags ?? [])],
    }),
  );

  enterRequestTraces(app);
  httpMetrics(app, container.metrics);
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onRequest", (request, reply, done) => {
    reply.header(headers.correlationId, request.id);
    if (closing) {
      // A request on a kept-alive connection while the server drains: retry elsewhere.
      reply.header("connection", "close");
      sendProblem(reply, new AppError("ERR_UNAVAILABLE", "The server is shutting down; retry."));
      return;
    }
    // Before any credential is read: the request is refused whichever copy a proxy would use.
    const repeated = repeatedSingleHeader(request.raw.rawHeaders);
    if (repeated) {
      sendProblem(reply, repeatedHeaderError(repeated));
      return;
    }
    done();
  });
  app.setErrorHandler(async (error, request, reply) => {
    // On a route whose statement checks the credential (auth `deferred`), an error answered
    // before that statement ran checks it first: 401 and 403 keep their precedence.
    let refusal: AppError | undefined;
    try {
      refusal = await settleDeferredCredential(request);
    } catch (failure) {
      return handleError(failure, request, reply);
    }
    if (!refusal) return handleError(error, request, reply);
    // An oversized body was not read to its end: close the connection after answering.
    if (toAppError(error)?.status === 413) closeAfterAnswer(reply);
    return sendProblem(reply, refusal);
  });
  app.setNotFoundHandler((_request, reply) =>
    sendProblem(reply, new AppError("ERR_NOT_FOUND", "No such resource.")),
  );

  await app.register(authPlugin, {
    authenticator: container.authenticator,
    services: container.serviceAuthenticator,
  });
  await app.register(healthRoutes({ ready: () => container.ready() }));
  await app.register(docsRoutes(app));
  for (const module of container.modules) {
    if (module.routes) await app.register(module.routes);
  }
  await app.register(consolePlugin(app, container));
  await app.ready();
  return app;
}
