import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { AppError } from "../errors/app-error.js";
import {
  hasAllScopes,
  hasAnyScope,
  type AuthRequirement,
  type Authenticator,
  type Principal,
  type RequestOrigin,
  type RowCredentialCheck,
  type ServiceAuthenticator,
  type ServicePrincipal,
} from "./principal.js";

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** Set on `deferred` routes until the credential has been checked. */
    deferredCredential: DeferredCredential | null;
    /** The verified caller of a `service` route. */
    service: ServicePrincipal | null;
  }
}

type SessionRequirement = Extract<AuthRequirement, { kind: "session" }>;
type PartnerRequirement = Extract<AuthRequirement, { kind: "partner" }>;
const noScopes: readonly never[] = [];

/**
 * The credential of a `deferred` route, checked by the route's own statement
 * (`rowCheck` + `settle`) or, on paths that run none, by a query of its own (`authenticate`).
 */
export interface DeferredCredential {
  /**
   * The check to embed in a statement that writes only for credentials of `tenantId` (null on
   * partner routes: the statement ties the key to its connection itself).
   */
  rowCheck(tenantId: string | null): RowCredentialCheck;
  /**
   * The principal from the statement's returned row, refused exactly as the hook would refuse it
   * (401, then 403 — 404 on partner routes — for a missing scope). The caller compares the tenant
   * or resource it named.
   */
  settle(check: RowCredentialCheck, row: Readonly<Record<string, unknown>>): Principal;
  authenticate(): Promise<Principal>;
  /** The credential id the token names, not yet verified. */
  readonly claimedCredentialId: string;
  /** The request's origin, for the audit record the route's statement writes. */
  readonly origin: RequestOrigin;
}

/** Reads `Authorization: Bearer <token>`; anything else is no credential. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== "string") return undefined;
  const match = /^Bearer[ ]+([\x21-\x7e]{1,1024})$/i.exec(header.trim());
  return match?.[1];
}

/** The request's correlation id and client address (Fastify's `request.ip`: HANSE_TRUST_PROXY). */
export function requestOrigin(request: FastifyRequest): RequestOrigin {
  return { correlationId: request.id, sourceAddress: request.ip || null };
}

/** The principal as resolved for `request`, carrying its origin for audit records. */
function withOrigin(request: FastifyRequest, principal: Principal): Principal {
  return { ...principal, origin: requestOrigin(request) };
}

/** The caller of a route that declared `auth: service`. */
export function requireService(request: FastifyRequest): ServicePrincipal {
  if (!request.service) throw new AppError("ERR_SERVICE_AUTH_MISSING");
  return request.service;
}

/** The principal of a route that declared an authenticated requirement. */
export function requirePrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError("ERR_UNAUTHENTICATED");
  return request.principal;
}

/** Refuses a session route's principal: 401, 404 (system routes), 403 (scopes). */
function admitSession(principal: Principal | null, auth: SessionRequirement): Principal {
  if (!principal || principal.kind === "api_key") throw new AppError("ERR_UNAUTHENTICATED");
  if (auth.systemTenant && principal.tenant.type !== "system") throw new AppError("ERR_NOT_FOUND");
  if (auth.allScopes && !hasAllScopes(principal, auth.allScopes)) throw new AppError("ERR_FORBIDDEN");
  if (auth.anyScopes && !hasAnyScope(principal, auth.anyScopes)) throw new AppError("ERR_FORBIDDEN");
  return principal;
}

/**
 * A partner route's refusals of its credential (rules/contract §4: 401, and 404 for a missing scope).
 * Each detail says what to fix from what the request itself shows: no Authorization header, a
 * bearer that does not have the key's form, or a key of that form that is not accepted. Unknown,
 * revoked and expired keys, a wrong secret and a suspended tenant read alike, byte for byte; the
 * scope is the key's own, decided before any connection is looked up. No detail repeats the key.
 */
export const partnerRefusals = {
  missing: () =>
    new AppError(
      "ERR_B2B_EXCHANGE_UNAUTHENTICATED",
      "An API key is required: send the header Authorization: Bearer <apiKeyId>:<secret>.",
    ),
  malformed: () =>
    new AppError(
      "ERR_B2B_EXCHANGE_UNAUTHENTICATED",
      "The credential is not a partner API key: expected Authorization: Bearer <apiKeyId>:<secret>, " +
        "the key id and secret exactly as issued.",
    ),
  notAccepted: () =>
    new AppError(
      "ERR_B2B_EXCHANGE_UNAUTHENTICATED",
      "The API key is not accepted: it is unknown, revoked or expired, or its secret is wrong. " +
        "Ask the operator for a current key.",
    ),
  missingScope: (scope: string) =>
    new AppError(
      "ERR_B2B_EXCHANGE_NOT_FOUND",
      `The API key lacks the scope this operation needs (${scope}); ask the operator for a key that holds it.`,
    ),
};

/** Refuses a partner route's principal: 401, then 404 for a missing scope (rules/contract §4). */
function admitPartner(
  authenticator: Authenticator,
  token: string,
  principal: Principal | null,
  auth: PartnerRequirement,
): Principal {
  if (principal?.kind !== "api_key") {
    throw authenticator.hasPartnerKeyForm(token)
      ? partnerRefusals.notAccepted()
      : partnerRefusals.malformed();
  }
  // A key without the exact scope learns nothing about the connection.
  if (!principal.scopes.has(auth.scope)) throw partnerRefusals.missingScope(auth.scope);
  return principal;
}

/** A partner route's one scope as a list, made once per route (the check caches by identity). */
const partnerScopeLists = new WeakMap<PartnerRequirement, readonly PartnerRequirement["scope"][]>();
function partnerScopes(auth: PartnerRequirement): readonly PartnerRequirement["scope"][] {
  let scopes = partnerScopeLists.get(auth);
  if (!scopes) {
    scopes = [auth.scope];
    partnerScopeLists.set(auth, scopes);
  }
  return scopes;
}

function deferredCredential(
  authenticator: Authenticator,
  request: FastifyRequest,
  token: string,
  auth: SessionRequirement | PartnerRequirement,
): DeferredCredential {
  const admit = (principal: Principal | null): Principal =>
    (request.principal = withOrigin(
      request,
      auth.kind === "partner"
        ? admitPartner(authenticator, token, principal, auth)
        : admitSession(principal, auth),
    ));
  const scopes = auth.kind === "partner" ? partnerScopes(auth) : (auth.allScopes ?? noScopes);
  const partner = auth.kind === "partner";
  return {
    rowCheck: (tenantId) => authenticator.rowCheck(token, { scopes, tenantId, partner }),
    // Cleared before deciding: a refusal must not be checked a second time by the error handler.
    settle(check, row) {
      request.deferredCredential = null;
      return admit(check.principalOf(row));
    },
    async authenticate() {
      request.deferredCredential = null;
      return admit(await authenticator.authenticateBearer(token));
    },
    claimedCredentialId: authenticator.claimedCredentialId(token),
    origin: requestOrigin(request),
  };
}

/** The body size a request declares (`Content-Length`, decimal digits only), else undefined. */
function declaredLength(request: FastifyRequest): number | undefined {
  const value = request.headers["content-length"];
  return typeof value === "string" && /^[0-9]{1,15}$/.test(value) ? Number(value) : undefined;
}

/**
 * Before an error answer on a `deferred` route whose credential is still unchecked: checks it,
 * and returns the 401/403 that then takes precedence (undefined when the credential is fine).
 */
export async function settleDeferredCredential(request: FastifyRequest): Promise<AppError | undefined> {
  const deferred = request.deferredCredential;
  if (!deferred) return undefined;
  try {
    await deferred.authenticate();
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

async function authenticate(
  authenticator: Authenticator,
  request: FastifyRequest,
  auth: Exclude<AuthRequirement, { kind: "public" | "service" }>,
): Promise<void> {
  const partner = auth.kind === "partner";
  const token = bearerToken(request);
  if (!partner && auth.deferred) {
    if (!token) throw new AppError("ERR_UNAUTHENTICATED");
    request.deferredCredential = deferredCredential(authenticator, request, token, auth);
    return;
  }
  if (partner) {
    if (!token) {
      // No header at all, or one that is not `Bearer <token>` (another scheme, say).
      const sent = (request.headers.authorization ?? "").trim() !== "";
      throw sent ? partnerRefusals.malformed() : partnerRefusals.missing();
    }
    const declared = auth.deferredUpTo === undefined ? undefined : declaredLength(request);
    if (declared !== undefined && auth.deferredUpTo !== undefined && declared <= auth.deferredUpTo) {
      request.deferredCredential = deferredCredential(authenticator, request, token, auth);
      return;
    }
    request.principal = withOrigin(
      request,
      admitPartner(authenticator, token, await authenticator.authenticateBearer(token), auth),
    );
    return;
  }
  const principal = token ? await authenticator.authenticateBearer(token) : null;
  request.principal = withOrigin(request, admitSession(principal, auth));
}

/**
 * Deny by default: a route without an `auth` declaration fails at start-up, and every declared
 * requirement is checked before the body is read — except a `deferred` one, whose route checks the
 * credential in its own statement (a request without any bearer token is still refused here), and
 * a partner route's `deferredUpTo` for a request declaring a small body.
 */
export const authPlugin = fp<{ authenticator: Authenticator; services?: ServiceAuthenticator | undefined }>(
  (app: FastifyInstance, { authenticator, services }, done) => {
    app.decorateRequest("principal", null);
    app.decorateRequest("deferredCredential", null);
    app.decorateRequest("service", null);
    app.addHook("onRoute", (route) => {
      const auth = route.config?.auth;
      if (!auth && !route.url.startsWith("/docs")) {
        throw new Error(`route ${route.method.toString()} ${route.url} declares no auth requirement`);
      }
      // A statement's credential check knows the required scopes only (`rowCheck`).
      if (auth?.kind === "session" && auth.deferred && (auth.anyScopes || auth.systemTenant)) {
        throw new Error(`route ${route.method.toString()} ${route.url}: deferred auth takes allScopes only`);
      }
    });
    // Callback style: public routes pass without the cost of a promise per request.
    app.addHook("onRequest", (request, _reply, done) => {
      const auth = request.routeOptions.config.auth;
      if (!auth || auth.kind === "public") {
        done();
        return;
      }
      if (auth.kind === "service") {
        // Formats now; the signature covers the body, so it is verified once the body is read.
        try {
          if (!services) throw new AppError("ERR_SERVICE_AUTH_MISSING");
          services.checkHeaders(request.headers);
          done();
        } catch (error) {
          done(error as Error);
        }
        return;
      }
      authenticate(authenticator, request, auth).then(() => {
        done();
      }, done);
    });
    // Before the schema is validated: a refused request learns nothing about its query or body.
    app.addHook("preValidation", (request, _reply, done) => {
      if (request.routeOptions.config.auth?.kind !== "service" || !services) {
        done();
        return;
      }
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      services
        .verify({
          method: request.method,
          target: request.raw.url ?? request.url,
          headers: request.headers,
          body,
        })
        .then((principal) => {
          request.service = { ...principal, origin: requestOrigin(request) };
          done();
        }, done);
    });
    done();
  },
  { name: "hanse-auth" },
);
