import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { ServerResponse } from "node:http";
import { headers as headerNames } from "../../protocol/headers.js";
import type { ErrorCode } from "../../protocol/error-codes.js";
import type { PartnerScope } from "../../protocol/scopes.js";
import { requirePrincipal, type Principal } from "../../platform/auth/index.js";
import { AppError } from "../../platform/errors/app-error.js";
import { documentedAs } from "../../platform/http/openapi.js";
import { problemResponses } from "../../platform/http/openapi-schemas.js";
import type { ErrorCodeMapper } from "../../platform/http/problem.js";
import {
  AcknowledgeResponse,
  ClaimResponse,
  ConnectionParams,
  DeliveryParams,
  MailboxList,
  MailboxQuery,
  UploadResponse,
} from "./exchange.schemas.js";
import { deferredUploadBytes, type InboxService, type UploadOutcome } from "./inbox.service.js";
import type { MailboxService, PayloadSink } from "./mailbox.service.js";
import type { KeyRateLimiter } from "../../platform/http/rate-limit.js";

/** OpenAPI only (see the inbox route's `swaggerTransform`). */
const edifactExample = "UNB+UNOC:3+SENDER:14+RECEIVER:14+261127:0900+42'UNH+1+ORDERS:D:96A:UN'…UNZ+1+42'";
const edifactBytes = { type: "string", format: "binary", examples: [edifactExample] };
const uploadBodyDoc = {
  description: "Exactly one interchange, unchanged bytes, at most 16 MiB",
  content: {
    "application/edifact": { schema: edifactBytes },
    "application/octet-stream": { schema: edifactBytes },
  },
};
const uploadHeadersDoc = {
  type: "object",
  required: ["idempotency-key"],
  properties: {
    "idempotency-key": {
      type: "string",
      pattern: "^[A-Za-z0-9._:-]{1,200}$",
      description: "Bound to (tenant, connection)",
      examples: ["orders-2026-11-27-0001"],
    },
  },
} as const;
/** Response headers as @fastify/swagger takes them: each one's schema, its description beside. */
const payloadHeadersDoc = {
  "X-B2B-Payload-Size": { type: "integer", description: "Expected byte count" },
  "X-B2B-Payload-SHA256": { type: "string", description: "Expected SHA-256, hexadecimal" },
  "Repr-Digest": { type: "string", description: "RFC 9530 `sha-256=:<base64>:`" },
  "Cache-Control": { type: "string", const: "no-store" },
  Trailer: {
    type: "string",
    const: "X-B2B-Payload-Integrity",
    description:
      "Announces the trailer field `X-B2B-Payload-Integrity` after the body: `verified` when the bytes sent " +
      "match X-B2B-Payload-SHA256, `failed` otherwise (discard what was read and claim again)",
  },
};

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

const partner = (scope: PartnerScope, deferredUpTo?: number) => ({
  auth: { kind: "partner" as const, scope, ...(deferredUpTo === undefined ? {} : { deferredUpTo }) },
  mapErrorCode: mapExchangeCode,
});
const tags = ["exchange-partner"];
const claimTokenHeader = Type.Object({
  [headerNames.claimToken]: Type.Optional(Type.String()),
});

/** A payload sink on the raw response: chunked body, then the integrity trailer written by hand. */
function rawSink(res: ServerResponse, correlationId: string): PayloadSink {
  const gone = () => res.destroyed || res.closed;
  return {
    start(headers) {
      res.writeHead(200, {
        ...headers,
        [headerNames.correlationId]: correlationId,
        "transfer-encoding": "chunked",
        trailer: "X-B2B-Payload-Integrity",
      });
    },
    async write(chunk) {
      if (gone()) return false;
      if (res.write(chunk)) return true;
      return new Promise<boolean>((resolve) => {
        const done = (ok: boolean) => () => {
          res.off("drain", onDrain);
          res.off("close", onClose);
          resolve(ok);
        };
        const onDrain = done(true);
        const onClose = done(false);
        res.once("drain", onDrain);
        res.once("close", onClose);
      });
    },
    async end(integrity) {
      if (gone()) return false;
      res.addTrailers({ "X-B2B-Payload-Integrity": integrity });
      return new Promise<boolean>((resolve) => {
        res.once("finish", () => {
          resolve(true);
        });
        res.once("close", () => {
          resolve(res.writableFinished);
        });
        res.end();
      });
    },
    abort() {
      res.destroy();
    },
  };
}

export const partnerRoutes =
  (
    inbox: InboxService,
    mailbox: MailboxService,
    maxPayloadBytes: number,
    limiter: KeyRateLimiter,
  ): FastifyPluginAsyncTypebox =>
  async (app) => {
    /** Takes a request from the key's bucket, or answers 429 with Retry-After. */
    const rateLimit = (principal: Principal) => {
      const wait = limiter.take(principal.credentialId);
      if (wait > 0) {
        throw new AppError("ERR_B2B_EXCHANGE_RATE_LIMITED", "Too many requests for this API key.", {
          headers: { "retry-after": String(wait) },
        });
      }
    };
    // Runs after authentication: the bucket is the partner API key's. A small upload whose key its
    // statement checks (no principal yet) is counted by the route once the key is accepted.
    app.addHook("onRequest", async (request) => {
      if (request.principal) rateLimit(request.principal);
    });
    // The upload body is passed through as a stream: it is hashed and stored while it arrives,
    // never buffered. Content-Type is checked by the handler so its error is the exchange's 400.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", (_request, payload, done) => {
      done(null, payload);
    });

    app.post(
      `${partnerBase}/inbox`,
      {
        bodyLimit: maxPayloadBytes + 1,
        config: {
          ...partner("b2b_exchange_partner_inbox:create", deferredUploadBytes),
          // Documentation only: the body is a stream and the header is checked by the handler,
          // after authentication and the connection (401 → 404 → 400).
          swaggerTransform: documentedAs({ body: uploadBodyDoc, headers: uploadHeadersDoc }),
        },
        schema: {
          tags,
          operationId: "createUpload",
          summary: "Upload exactly one EDIFACT interchange (≤ 16 MiB)",
          description:
            "Body: the interchange, unchanged bytes, `Content-Type: application/edifact` or `application/octet-stream`. " +
            "`Idempotency-Key` (≤ 200 of `[A-Za-z0-9._:-]`) is required and bound to (tenant, connection): 202 first, " +
            "200 with `replay: true` and `Idempotent-Replayed: true` for the same bytes, 409 for other bytes.",
          params: ConnectionParams,
          response: {
            200: {
              ...UploadResponse,
              description: "Replay: the upload stored under this key (`replay: true`)",
            },
            202: { ...UploadResponse, description: "Accepted: stored, processing follows (`replay: false`)" },
            ...problemResponses(400, 401, 404, 409, 413, 429, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const headers = {
          contentType: request.headers["content-type"],
          key: request.headers[headerNames.idempotencyKey],
          contentLength: request.headers["content-length"],
        };
        const body = (request.body ?? request.raw) as NodeJS.ReadableStream & AsyncIterable<Uint8Array>;
        const deferred = request.deferredCredential;
        let outcome: UploadOutcome;
        // A small upload: one statement checks the key and stores it — unless the key's bucket
        // looks empty or it streams as many uploads as it may, when the ordinary path answers
        // the 429 after authenticating, or a backlog bound is reached somewhere, when the
        // ordinary path learns the tenant and answers 503 if the bound is its own or the
        // service's. (Small uploads are not counted as streams: each holds at most 64 KiB, while
        // the stream limit bounds the ~2 MiB a stalled large upload holds.)
        const claimed = deferred?.claimedCredentialId ?? "";
        if (
          deferred &&
          limiter.wait(claimed) === 0 &&
          !inbox.atStreamLimit(claimed) &&
          (await inbox.backlogClear())
        ) {
          outcome = await inbox.uploadChecked(deferred, request.params.connectionID, headers, body, (p) => {
            limiter.take(p.credentialId);
          });
        } else {
          const principal = deferred ? await deferred.authenticate() : requirePrincipal(request);
          if (deferred) rateLimit(principal);
          const { connection, key } = await inbox.precheck(principal, request.params.connectionID, headers);
          outcome = await inbox.upload(principal, connection, key, body);
        }
        if (outcome.body.replay) reply.header(headerNames.idempotentReplayed, "true");
        return reply.code(outcome.status).send(outcome.body);
      },
    );

    app.get(
      `${partnerBase}/mailbox`,
      {
        config: partner("b2b_exchange_partner_mailbox:list"),
        schema: {
          tags,
          operationId: "listMailbox",
          summary: "Due, unclaimed mailbox entries in order",
          description:
            "The connection's replies (CONTRL, APERAK, ORDRSP) that are due and not claimed, oldest first, paged " +
            "with `limit` and `cursor`. A connection the key may not use is 404.",
          params: ConnectionParams,
          querystring: MailboxQuery,
          response: { 200: MailboxList, ...problemResponses(400, 401, 404, 429, 500, 503) },
        },
      },
      async (request) =>
        mailbox.list(requirePrincipal(request), request.params.connectionID, {
          limit: request.query.limit ?? 50,
          cursor: request.query.cursor,
        }),
    );

    app.post(
      `${partnerBase}/mailbox/:deliveryAttemptID/claim`,
      {
        config: partner("b2b_exchange_partner_mailbox:claim"),
        schema: {
          tags,
          operationId: "claimDelivery",
          summary: "Claim one entry: a five-minute lease and a fresh claim token",
          description:
            "Leases the entry to the caller and returns a new claim token for reading its payload and " +
            "acknowledging it; an entry under another live lease is 409. An expired lease returns the entry to the mailbox.",
          params: DeliveryParams,
          response: { 200: ClaimResponse, ...problemResponses(401, 404, 409, 429, 500, 503) },
        },
      },
      async (request) =>
        mailbox.claim(
          requirePrincipal(request),
          request.params.connectionID,
          request.params.deliveryAttemptID,
        ),
    );

    app.get(
      `${partnerBase}/mailbox/:deliveryAttemptID/payload`,
      {
        config: partner("b2b_exchange_partner_mailbox:payload_read"),
        schema: {
          tags,
          operationId: "readDeliveryPayload",
          summary: "Stream the payload under the current lease",
          description:
            "Chunked, no Content-Length; headers `X-B2B-Payload-Size`, `X-B2B-Payload-SHA256`, `Repr-Digest`, " +
            "`Cache-Control: no-store`; trailer `X-B2B-Payload-Integrity: verified|failed`.",
          params: DeliveryParams,
          headers: claimTokenHeader,
          response: {
            200: {
              description: "EDIFACT bytes",
              headers: payloadHeadersDoc,
              content: {
                "application/edifact": {
                  schema: { type: "string", format: "binary" },
                  example: edifactExample,
                },
              },
            },
            ...problemResponses(401, 404, 429, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const token = request.headers[headerNames.claimToken];
        const payload = await mailbox.preparePayload(
          requirePrincipal(request),
          request.params.connectionID,
          request.params.deliveryAttemptID,
          typeof token === "string" ? token : undefined,
        );
        reply.hijack();
        try {
          await payload.stream(rawSink(reply.raw, request.id));
        } catch (error) {
          // Headers are gone already: the only honest signal left is a broken stream.
          request.log.error({ err: error }, "payload stream failed");
          reply.raw.destroy();
        }
      },
    );

    app.post(
      `${partnerBase}/mailbox/:deliveryAttemptID/acknowledge`,
      {
        config: partner("b2b_exchange_partner_mailbox:acknowledge"),
        schema: {
          tags,
          operationId: "acknowledgeDelivery",
          summary: "Acknowledge with the claim token after a verified read",
          description:
            "Takes the entry out of the mailbox for good and returns a receipt; the same token again answers the " +
            "same receipt (`replay: true`). A missing or stale claim token (`X-B2B-Claim-Token`) is 404; no verified " +
            "payload read under this lease is 409.",
          params: DeliveryParams,
          headers: claimTokenHeader,
          response: { 200: AcknowledgeResponse, ...problemResponses(401, 404, 409, 429, 500, 503) },
        },
      },
      async (request) => {
        const token = request.headers[headerNames.claimToken];
        return mailbox.acknowledge(
          requirePrincipal(request),
          request.params.connectionID,
          request.params.deliveryAttemptID,
          typeof token === "string" ? token : undefined,
        );
      },
    );
  };
