import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import { headers as headerNames } from "@hanse/client/protocol";
import { bearerToken, requirePrincipal } from "../../../platform/auth/index.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { documentedAs } from "../../../platform/http/openapi.js";
import { problemResponses } from "../../../platform/http/openapi-schemas.js";
import { ConnectionParams } from "../exchange.schemas.js";
import { UploadResponse } from "./inbox.schemas.js";
import { edifactExample, partner, partnerBase, tags, type PartnerRateLimit } from "../partner-api.js";
import type { InboxService, UploadOutcome } from "./inbox.service.js";
import { deferredUploadBytes } from "./upload-checks.js";

/** OpenAPI only (see the inbox route's `swaggerTransform`). */
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

const unauthenticated = new Set<string>(["ERR_UNAUTHENTICATED", "ERR_B2B_EXCHANGE_UNAUTHENTICATED"]);

const uploadHeaders = (request: FastifyRequest) => ({
  contentType: request.headers["content-type"],
  key: request.headers[headerNames.idempotencyKey],
  contentLength: request.headers["content-length"],
});

export const inboxRoutes =
  (inbox: InboxService, maxPayloadBytes: number, limiter: PartnerRateLimit): FastifyPluginAsyncTypebox =>
  async (app) => {
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
        // Issue 35 item 3: a key refused over a backlog bound moments ago is refused again from
        // the head, before the body is read and without a statement (inbox/early-shed.ts).
        onRequest: async (request) => {
          const { connectionID } = request.params;
          const refusal = await inbox.shedEarly(connectionID, bearerToken(request), uploadHeaders(request));
          if (!refusal) return;
          // The pair's key was checked when it was remembered: the error handler need not again.
          request.deferredCredential = null;
          throw refusal;
        },
      },
      async (request, reply) => {
        const headers = uploadHeaders(request);
        const body = (request.body ?? request.raw) as NodeJS.ReadableStream & AsyncIterable<Uint8Array>;
        const deferred = request.deferredCredential;
        let outcome: UploadOutcome;
        // A small upload: one statement checks the key and stores it, after the key's bucket gave
        // up a request — unless it had none or the key streams as many uploads as it may in this
        // process, when the ordinary path answers the 429 after authenticating, or a backlog bound
        // is reached somewhere, when the ordinary path learns the tenant and answers 503 if the
        // bound is its own or the service's. The request taken before the key is checked goes
        // back when the key is wrong: a stranger naming a key cannot spend its requests. (Small
        // uploads are not counted as streams: each holds at most 64 KiB, while the stream limit
        // bounds the ~2 MiB a stalled large upload holds.)
        const claimed = deferred?.claimedCredentialId ?? "";
        if (
          deferred &&
          !inbox.atStreamLimit(claimed) &&
          (await inbox.backlogClear()) &&
          (await limiter.tryTake(claimed))
        ) {
          try {
            outcome = await inbox.uploadChecked(deferred, request.params.connectionID, headers, body);
          } catch (error) {
            if (error instanceof AppError && unauthenticated.has(error.code)) await limiter.refund(claimed);
            throw error;
          }
        } else {
          const principal = deferred ? await deferred.authenticate() : requirePrincipal(request);
          if (deferred) await limiter.take(principal.credentialId);
          const { connection, key } = await inbox.precheck(
            principal,
            request.params.connectionID,
            headers,
            bearerToken(request),
          );
          outcome = await inbox.upload(principal, connection, key, body);
        }
        if (outcome.body.replay) reply.header(headerNames.idempotentReplayed, "true");
        return reply.code(outcome.status).send(outcome.body);
      },
    );
  };
