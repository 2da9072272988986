import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { ServerResponse } from "node:http";
import { headers as headerNames } from "@hanse/client/protocol";
import { requirePrincipal } from "../../../platform/auth/index.js";
import { problemResponses } from "../../../platform/http/openapi-schemas.js";
import { ConnectionParams } from "../exchange.schemas.js";
import {
  AcknowledgeResponse,
  ClaimResponse,
  DeliveryParams,
  MailboxList,
  MailboxQuery,
} from "./mailbox.schemas.js";
import { edifactExample, partner, partnerBase, tags } from "../partner-api.js";
import type { MailboxService } from "./mailbox.service.js";
import type { PayloadService, PayloadSink } from "./payload.service.js";

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

export const mailboxRoutes =
  (mailbox: MailboxService & PayloadService): FastifyPluginAsyncTypebox =>
  async (app) => {
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
            "`Cache-Control: no-store`; trailer `X-B2B-Payload-Integrity: verified|failed`. A missing claim token " +
            "(`X-B2B-Claim-Token`) is 404 naming the header; a wrong or expired one is 404.",
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
