import type { Kysely } from "kysely";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Executor = Kysely<any>;
const tables = (db: Executor) => db as Kysely<AuditTables>;

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
  await tables(db)
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

/**
 * SQL expressions for the fields of `AuditEvent`, evaluated once per row of the relation of
 * `insertAuditEventsSql`: text the caller writes (column references, parameters, casts), never
 * values. A field left out is NULL; `data` (jsonb) is `{}`.
 */
export type AuditEventSql = { [K in keyof AuditEvent]: string };

/**
 * The audit record's insert for a statement of another part that audits in its own round trip (a
 * data-modifying CTE of an accept statement): one record per row of `from` (relations and joins,
 * no WHERE). Nothing outside platform/audit spells the audit table's columns.
 */
export function insertAuditEventsSql(from: string, event: AuditEventSql): string {
  return `INSERT INTO audit_events
    (tenant_id, id, type, occurred_at, principal_id, connection_id, upload_id, delivery_attempt_id,
     byte_count, outcome, data)
  SELECT ${event.tenantId}, ${event.id}, ${event.type}, ${event.occurredAt}, ${event.principalId ?? "NULL"},
    ${event.connectionId ?? "NULL"}, ${event.uploadId ?? "NULL"}, ${event.deliveryAttemptId ?? "NULL"},
    ${event.byteCount ?? "NULL"}, ${event.outcome ?? "NULL"}, ${event.data ?? "'{}'::jsonb"}
  FROM ${from}`;
}

/** A tenant's audit records after `afterId` (uuidv7 ids sort by time), of one `type` when given. */
export function listAuditEvents(
  db: Executor,
  tenantId: string,
  page: { limit: number; type?: string | undefined; afterId?: string | undefined },
) {
  let q = tables(db).selectFrom("audit_events").selectAll().where("tenant_id", "=", tenantId);
  if (page.type !== undefined) q = q.where("type", "=", page.type);
  if (page.afterId !== undefined) q = q.where("id", ">", page.afterId);
  return q
    .orderBy("id")
    .limit(page.limit + 1)
    .execute();
}

export function findAuditEvent(db: Executor, tenantId: string, id: string) {
  return tables(db)
    .selectFrom("audit_events")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
}
