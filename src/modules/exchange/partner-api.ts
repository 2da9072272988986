import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ErrorCode } from "../../protocol/error-codes.js";
import type { PartnerScope } from "../../protocol/scopes.js";
import type { Principal } from "../../platform/auth/index.js";
import { AppError } from "../../platform/errors/app-error.js";
import type { ErrorCodeMapper } from "../../platform/http/problem.js";
import type { KeyRateLimiter } from "../../platform/http/rate-limit.js";

/*
 * What the partner API's routes (inbox and mailbox) share: their base path, the exchange's own
 * error codes, their auth declaration, and one Fastify scope with the per-key rate limit and the
 * pass-through body parser.
 */

export const partnerBase = "/api/v1/b2b-exchange/partner/connections/:connectionID";

/** Generic codes become the exchange's own (spec A, Errors). */
const exchangeCodes: Partial<Record<ErrorCode, ErrorCode>> = {
  ERR_VALIDATION: "ERR_B2B_EXCHANGE_INVALID_REQUEST",
  ERR_IDEMPOTENCY_KEY_REQUIRED: "ERR_B2B_EXCHANGE_INVALID_REQUEST",
  ERR_METHOD_NOT_ALLOWED: "ERR_B2B_EXCHANGE_INVALID_REQUEST",
  ERR_UNAUTHENTICATED: "ERR_B2B_EXCHANGE_UNAUTHENTICATED",
  ERR_FORBIDDEN: "ERR_B2B_EXCHANGE_NOT_FOUND",
  ERR_NOT_FOUND: "ERR_B2B_EXCHANGE_NOT_FOUND",
  ERR_CONFLICT: "ERR_B2B_EXCHANGE_CONFLICT",
  ERR_IDEMPOTENCY_MISMATCH: "ERR_B2B_EXCHANGE_CONFLICT",
  ERR_IDEMPOTENCY_IN_PROGRESS: "ERR_B2B_EXCHANGE_CONFLICT",
  ERR_PAYLOAD_TOO_LARGE: "ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE",
  ERR_RATE_LIMITED: "ERR_B2B_EXCHANGE_RATE_LIMITED",
  ERR_INTERNAL: "ERR_B2B_EXCHANGE_INTERNAL",
  ERR_UNAVAILABLE: "ERR_B2B_EXCHANGE_UNAVAILABLE",
};
export const mapExchangeCode: ErrorCodeMapper = (code) => exchangeCodes[code] ?? code;

export const partner = (scope: PartnerScope, deferredUpTo?: number) => ({
  auth: { kind: "partner" as const, scope, ...(deferredUpTo === undefined ? {} : { deferredUpTo }) },
  mapErrorCode: mapExchangeCode,
});
export const tags = ["exchange-partner"];
/** An example interchange for the OpenAPI document (upload body, payload response). */
export const edifactExample =
  "UNB+UNOC:3+SENDER:14+RECEIVER:14+261127:0900+42'UNH+1+ORDERS:D:96A:UN'…UNZ+1+42'";

/** Takes a request from the key's bucket, or answers 429 with Retry-After. */
export function takeRequest(limiter: KeyRateLimiter, principal: Principal): void {
  const wait = limiter.take(principal.credentialId);
  if (wait > 0) {
    throw new AppError("ERR_B2B_EXCHANGE_RATE_LIMITED", "Too many requests for this API key.", {
      headers: { "retry-after": String(wait) },
    });
  }
}

/** The partner API: `routes` registered in one scope that rate-limits by key and streams bodies. */
export const partnerApi =
  (limiter: KeyRateLimiter, routes: readonly FastifyPluginAsyncTypebox[]): FastifyPluginAsyncTypebox =>
  async (app) => {
    // Runs after authentication: the bucket is the partner API key's. A small upload whose key its
    // statement checks (no principal yet) is counted by the route once the key is accepted.
    app.addHook("onRequest", async (request) => {
      if (request.principal) takeRequest(limiter, request.principal);
    });
    // The upload body is passed through as a stream: it is hashed and stored while it arrives,
    // never buffered. Content-Type is checked by the handler so its error is the exchange's 400.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", (_request, payload, done) => {
      done(null, payload);
    });
    for (const plugin of routes) await app.register(plugin);
  };
