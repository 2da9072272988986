import type { Kysely } from "kysely";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Executor = Kysely<any>;

export interface AuditEventsTable {
  tenant_id: string;
  id: string;
  type: string;
  occurred_at: Date;
  principal_id: string | null;
  connection_id: string | null;
  upload_id: string | null;
  delivery_attempt_id: string | null;
  byte_count: number | null;
  outcome: string | null;
  data: unknown;
}

export interface AuditTables {
  audit_events: AuditEventsTable;
}

/** What an audit record may hold: ids, counts, times and outcomes, never bytes, hashes or tokens. */
export interface AuditEvent {
  tenantId: string;
  id: string;
  type: string;
  occurredAt: Date;
  principalId?: string | null;
  connectionId?: string | null;
  uploadId?: string | null;
  deliveryAttemptId?: string | null;
  byteCount?: number | null;
  outcome?: string | null;
  data?: Record<string, string | number | boolean | null>;
}

/** Writes one audit record with the caller's executor (the state change's own transaction). */
export async function recordAudit(db: Executor, event: AuditEvent): Promise<void> {
  await (db as Kysely<AuditTables>)
    .insertInto("audit_events")
    .values({
      tenant_id: event.tenantId,
      id: event.id,
      type: event.type,
      occurred_at: event.occurredAt,
      principal_id: event.principalId ?? null,
      connection_id: event.connectionId ?? null,
      upload_id: event.uploadId ?? null,
      delivery_attempt_id: event.deliveryAttemptId ?? null,
      byte_count: event.byteCount ?? null,
      outcome: event.outcome ?? null,
      data: JSON.stringify(event.data ?? {}),
    })
    .execute();
}
