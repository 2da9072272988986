import { Readable } from "node:stream";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { requirePrincipal } from "../../../platform/auth/index.js";
import { problemResponses } from "../../../platform/http/openapi-schemas.js";
import { AuditExportQuery, AuditVerification, ExportedAuditRecord } from "./partners.schemas.js";
import type { AdminService } from "./admin.service.js";

const read = { auth: { kind: "session" as const, allScopes: ["admin:read" as const] } };
const tags = ["exchange-admin"];
const exportExample = {
  id: "0193a1b2-c3d4-7e5f-8a6b-9c0d1e2f3a4b",
  type: "partner.created",
  occurredAt: "2026-11-27T09:00:00.000Z",
  principalId: "0193a1b2-c3d4-7e5f-8a6b-9c0d1e2f3a4c",
  principalKind: "user",
  targetType: "partner",
  targetId: "0193a1b2-c3d4-7e5f-8a6b-9c0d1e2f3a4d",
  sourceAddress: "203.0.113.7",
  correlationId: "0193a1b2-c3d4-7e5f-8a6b-9c0d1e2f3a4e",
  changes: null,
  method: null,
  connectionId: null,
  uploadId: null,
  deliveryAttemptId: null,
  byteCount: null,
  outcome: null,
  data: {},
  seal: {
    sequence: 42,
    previous: "41d06c1f9b1e2a3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4",
    hash: "9f2c5e0b7a1d4c3e8f6a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e",
  },
};

/**
 * The audit trail's verification and export (rules/contract §7, issue 33 items 2 and 3). Registered
 * before the collection's `…/{id}` would matter: Fastify prefers these static paths anyway.
 */
export const auditTrailRoutes =
  (service: AdminService, path: string): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      `${path}/verification`,
      {
        config: read,
        schema: {
          operationId: "verifyAuditTrail",
          summary: "Verify the audit trail's hash chain (admin:read)",
          description:
            "Checks every sealed record of the tenant against its seal and its predecessor, and the chain's end against its last seal. `verified` is false when a record was changed, removed or reordered; `problem` names the first such record. Records are sealed within `HANSE_AUDIT_SEAL_SECONDS` (15 s) plus a job poll of being written; `checkedThrough`: every record committed before it was checked. Reads the whole chain, a page at a time.",
          tags,
          response: { 200: AuditVerification, ...problemResponses(401, 403, 500, 503) },
        },
      },
      async (req) => service.verifyAuditTrail(requirePrincipal(req)),
    );
    app.get(
      `${path}/export`,
      {
        config: read,
        schema: {
          operationId: "exportAuditEvents",
          summary: "Export the audit trail as NDJSON (admin:read)",
          description:
            'The records of `[occurredFrom, occurredBefore)` (both optional), one JSON object per line, in the chain\'s order: the sealed ones as one unbroken stretch of the chain, each with its `seal`, then those not sealed yet (`seal: null`). Streamed a page at a time. docs/operators.md ("Audit") shows how to check an export without Hanse.',
          tags,
          querystring: AuditExportQuery,
          response: {
            200: {
              description: "One record per line (`application/x-ndjson`)",
              content: {
                "application/x-ndjson": {
                  schema: ExportedAuditRecord,
                  example: exportExample,
                },
              },
            },
            ...problemResponses(400, 401, 403, 500, 503),
          },
        },
      },
      async (req, reply) => {
        const records = service.exportAuditEvents(requirePrincipal(req), req.query);
        // The range is checked before the first byte: a bad query is a 400, not a broken stream.
        const first = await records.next();
        async function* lines() {
          if (first.done) return;
          yield `${JSON.stringify(first.value)}\n`;
          for await (const record of records) yield `${JSON.stringify(record)}\n`;
        }
        return (
          reply
            .header("content-type", "application/x-ndjson")
            .header("cache-control", "no-store")
            // A stream is sent as it is (the schema above describes each line for the document).
            .send(Readable.from(lines()) as never)
        );
      },
    );
  };
