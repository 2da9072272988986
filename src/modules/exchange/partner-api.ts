import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ErrorCode } from "@hanse/client/protocol";
import type { PartnerScope } from "@hanse/client/protocol";
import { AppError } from "../../platform/errors/app-error.js";
import type { ErrorCodeMapper } from "../../platform/http/problem.js";
import { rateLimitKey, type RateLimit, type RateLimits } from "../../platform/limits/index.js";

/*
 * What the partner API's routes (inbox and mailbox) share: their base path, the exchange's own
 * error codes, their auth declaration, and one Fastify scope with the per-key rate limit and the
 * pass-through body parser.
 */

export const partnerBase = "/api/v1/b2b-exchange/partner/connections/:connectionID";

/** Generic codes become the exchange's own (rules/interface Errors, partner exchange). */
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

const rateLimited = (seconds: number) =>
  new AppError("ERR_B2B_EXCHANGE_RATE_LIMITED", "Too many requests for this API key.", {
    headers: { "retry-after": String(seconds) },
  });

/**
 * The per-key rate limit of the partner API (HANSE_PARTNER_RATE_LIMIT_BURST and _PER_SECOND): one
 * bucket per partner API key, shared by every API process (platform/limits: one statement per
 * request).
 */
export function createPartnerRateLimit(rateLimits: RateLimits, limit: RateLimit) {
  const keyOf = (credentialId: string) => rateLimitKey("partner", credentialId);
  return {
    /** Takes a request from the key's bucket, or answers 429 with Retry-After. */
    async take(credentialId: string): Promise<void> {
      const wait = await rateLimits.take(keyOf(credentialId), limit);
      if (wait > 0) throw rateLimited(wait);
    },
    /** Takes a request when the bucket has one: true; else false, taking nothing. */
    async tryTake(credentialId: string): Promise<boolean> {
      return (await rateLimits.take(keyOf(credentialId), limit)) === 0;
    },
    /** Gives back what `tryTake` took for a key that turned out not to be the caller's. */
    refund: (credentialId: string): Promise<void> => rateLimits.refund(keyOf(credentialId), limit),
  };
}

export type PartnerRateLimit = ReturnType<typeof createPartnerRateLimit>;

/** The partner API: `routes` registered in one scope that rate-limits by key and streams bodies. */
export const partnerApi =
  (limiter: PartnerRateLimit, routes: readonly FastifyPluginAsyncTypebox[]): FastifyPluginAsyncTypebox =>
  async (app) => {
    // Runs after authentication: the bucket is the partner API key's. A small upload whose key its
    // statement checks (no principal yet) is counted by the route once the key is accepted.
    app.addHook("onRequest", async (request) => {
      if (request.principal) await limiter.take(request.principal.credentialId);
    });
    // The upload body is passed through as a stream: it is hashed and stored while it arrives,
    // never buffered. Content-Type is checked by the handler so its error is the exchange's 400.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", (_request, payload, done) => {
      done(null, payload);
    });
    for (const plugin of routes) await app.register(plugin);
  };
