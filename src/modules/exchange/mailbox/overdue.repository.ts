import { CompiledQuery, type Kysely } from "kysely";
import { insertAuditEventsSql } from "../../../platform/audit/index.js";
import { raiseOperatorEventsSql } from "../../entitlements/index.js";

/*
 * Collection deadlines (rules/contract §8): the one statement that marks overdue deliveries. The
 * mailbox owns exchange_deliveries, so the sweep's SQL lives here; the audit table's owner writes
 * its part (`insertAuditEventsSql`).
 */

/**
 * Marks at most `$2` deliveries overdue whose connection's collection deadline passed at `$1`
 * without an acknowledgement, and writes one `exchange.delivery.overdue` audit record for each,
 * in ONE statement:
 *
 * - `due`: per connection with a deadline, one range of the partial index
 *   exchange_deliveries_collection_due (waiting, not yet overdue, made before `$1` minus the
 *   deadline): the sweep reads only what it marks, however many deliveries wait or were marked;
 * - `marked`: sets `overdue_since` to the moment the deadline passed, only where it is still NULL
 *   and the delivery still waits: a concurrent sweep that marked the row first makes this one
 *   skip it once its lock is released (the row is re-checked), so a delivery is marked once and
 *   audited once whichever process sweeps;
 * - `audit`: the record names the delivery, its connection and upload, never payload bytes;
 * - `notified`: the operator event `exchange.delivery.overdue` (rules/contract §8), one delivery per
 *   operator subscription that takes it, and their jobs: the webhooks part's fragment, raised
 *   once with the mark.
 */
export const markOverdueSql = `
WITH due AS (
  SELECT d.tenant_id, d.id,
    d.created_at + c.collection_deadline_seconds * interval '1 second' AS deadline_at
  FROM exchange_connections AS c
  CROSS JOIN LATERAL (
    SELECT tenant_id, id, created_at FROM exchange_deliveries
    WHERE tenant_id = c.tenant_id AND connection_id = c.id
      AND status IN ('ready', 'claimed') AND overdue_since IS NULL
      AND created_at <= $1::timestamptz - c.collection_deadline_seconds * interval '1 second'
    ORDER BY created_at
    LIMIT $2::integer
  ) AS d
  WHERE c.collection_deadline_seconds IS NOT NULL
  LIMIT $2::integer
), marked AS (
  UPDATE exchange_deliveries AS d SET overdue_since = due.deadline_at
  FROM due
  WHERE d.tenant_id = due.tenant_id AND d.id = due.id
    AND d.status IN ('ready', 'claimed') AND d.overdue_since IS NULL
  RETURNING d.tenant_id, d.id, d.connection_id, d.upload_id, d.overdue_since
), audit AS (
  ${insertAuditEventsSql("marked", {
    tenantId: "tenant_id",
    id: "gen_random_uuid()",
    type: "'exchange.delivery.overdue'",
    occurredAt: "$1::timestamptz",
    targetType: "'delivery'",
    targetId: "id::text",
    connectionId: "connection_id",
    uploadId: "upload_id",
    deliveryAttemptId: "id",
    data: "jsonb_build_object('overdueSince', overdue_since)",
  })}
), ${raiseOperatorEventsSql("notified", "marked", {
  tenantId: "tenant_id",
  type: "'exchange.delivery.overdue'::text",
  occurredAt: "$1::timestamptz",
  subject:
    "jsonb_build_object('deliveryAttemptId', id, 'connectionId', connection_id, 'uploadId', upload_id)",
})}
SELECT count(*)::integer AS marked FROM marked`;

/** Deliveries marked per statement: bounded work per round, whatever the backlog. */
export const overdueBatch = 10_000;

/** One round of `markOverdueSql` at `now`; returns how many deliveries it marked. */
export async function markOverdueDeliveries(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  now: Date,
  limit = overdueBatch,
): Promise<number> {
  const { rows } = await db.executeQuery<{ marked: number }>(
    CompiledQuery.raw(markOverdueSql, [now.toISOString(), limit]),
  );
  return rows[0]?.marked ?? 0;
}
