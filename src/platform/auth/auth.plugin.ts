import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { AppError } from "../http/app-error.js";
import {
  hasAllScopes,
  hasAnyScope,
  type AuthRequirement,
  type Authenticator,
  type Principal,
} from "./principal.js";

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Reads `Authorization: Bearer <token>`; anything else is no credential. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== "string") return undefined;
  const match = /^Bearer[ ]+([\x21-\x7e]{1,1024})$/i.exec(header.trim());
  return match?.[1];
}

/** The principal of a route that declared an authenticated requirement. */
export function requirePrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError("ERR_UNAUTHENTICATED");
  return request.principal;
}

async function authenticate(
  authenticator: Authenticator,
  request: FastifyRequest,
  auth: Exclude<AuthRequirement, { kind: "public" }>,
): Promise<void> {
  const partner = auth.kind === "partner";
  const token = bearerToken(request);
  const principal = token ? await authenticator.authenticateBearer(token) : null;
  if (partner) {
    if (principal?.kind !== "api_key") throw new AppError("ERR_B2B_EXCHANGE_UNAUTHENTICATED");
    // A key without the exact scope learns nothing about the connection (CONTRACT §4).
    if (!principal.scopes.has(auth.scope)) throw new AppError("ERR_B2B_EXCHANGE_NOT_FOUND");
    request.principal = principal;
    return;
  }
  if (!principal || principal.kind === "api_key") throw new AppError("ERR_UNAUTHENTICATED");
  if (auth.systemTenant && principal.tenant.type !== "system") throw new AppError("ERR_NOT_FOUND");
  if (auth.allScopes && !hasAllScopes(principal, auth.allScopes)) throw new AppError("ERR_FORBIDDEN");
  if (auth.anyScopes && !hasAnyScope(principal, auth.anyScopes)) throw new AppError("ERR_FORBIDDEN");
  request.principal = principal;
}

/**
 * Deny by default: a route without an `auth` declaration fails at start-up, and every declared
 * requirement is checked before the body is read.
 */
export const authPlugin = fp<{ authenticator: Authenticator }>(
  (app: FastifyInstance, { authenticator }, done) => {
    app.decorateRequest("principal", null);
    app.addHook("onRoute", (route) => {
      const auth = route.config?.auth;
      if (!auth && !route.url.startsWith("/docs")) {
        throw new Error(`route ${route.method.toString()} ${route.url} declares no auth requirement`);
      }
    });
    // Callback style: public routes pass without the cost of a promise per request.
    app.addHook("onRequest", (request, _reply, done) => {
      const auth = request.routeOptions.config.auth;
      if (!auth || auth.kind === "public") {
        done();
        return;
      }
      authenticate(authenticator, request, auth).then(() => {
        done();
      }, done);
    });
    done();
  },
  { name: "hanse-auth" },
);
