import type { Selectable } from "kysely";
import type { AuditEventsTable } from "./audit.js";

type AuditData = Record<string, string | number | boolean | null>;

const auditData = (data: unknown): AuditData =>
  typeof data === "object" && data !== null && !Array.isArray(data) ? (data as AuditData) : {};

/**
 * An audit record as operators read it (`GET …/audit-events`, the NDJSON export): the record of
 * rules/contract §7. Its canonical JSON is what the seal hashes (audit-chain.ts), so a field added here
 * changes every hash: such a change needs a new chain version (docs/operators.md, "Audit").
 */
export function auditRecordView(row: Selectable<AuditEventsTable>) {
  const data = auditData(row.data);
  return {
    id: row.id,
    type: row.type,
    occurredAt: row.occurred_at.toISOString(),
    principalId: row.principal_id,
    principalKind: row.principal_kind,
    targetType: row.target_type,
    targetId: row.target_id,
    sourceAddress: row.source_address,
    correlationId: row.correlation_id,
    changes: row.changes,
    method: typeof data.method === "string" ? data.method : null,
    connectionId: row.connection_id,
    uploadId: row.upload_id,
    deliveryAttemptId: row.delivery_attempt_id,
    byteCount: row.byte_count,
    outcome: row.outcome,
    data,
  };
}

export type AuditRecordView = ReturnType<typeof auditRecordView>;
