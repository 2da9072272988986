import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import type { sealedColumnsOf } from "../../../platform/crypto/index.js";
import { creationPage, type CreationPosition, type ListOrder } from "../../../platform/db/creation-order.js";
import { sqlUuidv7 } from "../../../platform/db/sql-uuid.js";
import type {
  CommittedChange,
  EntitlementTables,
  OperatorEvent,
  WebhookDeliveriesTable,
  WebhookSubscriptionsTable,
} from "../entitlements.tables.js";

type Db = Kysely<EntitlementTables>;
type Trx = Transaction<EntitlementTables>;

export async function insertSubscription(
  db: Db | Trx,
  row: Selectable<WebhookSubscriptionsTable>,
): Promise<void> {
  await db.insertInto("webhook_subscriptions").values(row).execute();
}

/** A subscription that is not deleted (a deleted one is kept for its attempts, unseen). */
export const findSubscription = (db: Db | Trx, tenantId: string, id: string) =>
  db
    .selectFrom("webhook_subscriptions")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .executeTakeFirst();

export const listSubscriptions = (
  db: Db,
  tenantId: string,
  limit: number,
  after: CreationPosition | undefined,
  order?: ListOrder,
) =>
  creationPage(
    db
      .selectFrom("webhook_subscriptions")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("deleted_at", "is", null),
    limit,
    after,
    order,
  ).execute();

export async function updateSubscription(
  db: Db | Trx,
  tenantId: string,
  id: string,
  values: Partial<Selectable<WebhookSubscriptionsTable>>,
): Promise<void> {
  await db
    .updateTable("webhook_subscriptions")
    .set(values)
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .execute();
}

/**
 * One pending delivery per enabled subscription of the change's app (or of those of
 * `subscriptionIds`), in the change's transaction (the outbox): one INSERT … SELECT, whose ids the
 * database makes (UUIDv7 at the change's time). Returns the subscriptions that got one, for their
 * delivery jobs.
 */
export async function insertDeliveries(
  trx: Trx,
  change: CommittedChange,
  subscriptionIds?: readonly string[],
): Promise<string[]> {
  const at = change.occurredAt;
  const inserted = await sql<{ subscription_id: string }>`
    INSERT INTO webhook_deliveries (tenant_id, id, subscription_id, app_id, sequence, event_id, actor_id,
      occurred_at, state, attempts, next_attempt_at, created_at)
    SELECT tenant_id, ${sqlUuidv7(at)}, id, app_id, ${change.sequence}::bigint, ${change.eventId}::uuid,
      ${change.actorId}::text, ${at}::timestamptz, 'pending', 0, ${at}::timestamptz, ${at}::timestamptz
    FROM webhook_subscriptions
    WHERE tenant_id = ${change.tenantId}::uuid AND app_id = ${change.appId}::text AND enabled
      ${subscriptionIds ? sql`AND id = ANY(${subscriptionIds}::uuid[])` : sql``}
    RETURNING subscription_id`.execute(trx);
  return inserted.rows.map((r) => r.subscription_id);
}

/**
 * One pending delivery of an operator event (rules/contract §8) per enabled operator subscription of
 * the tenant whose event types hold its type, in the transaction of the state change it reports
 * (the outbox), one INSERT … SELECT. Every delivery carries the same event id (receivers dedupe
 * by it); each has its own id, its `webhook-id`. Returns the subscriptions that got one.
 */
export async function insertOperatorDeliveries(
  trx: Trx,
  event: OperatorEvent & { eventId: string },
): Promise<string[]> {
  const at = event.occurredAt;
  const inserted = await sql<{ subscription_id: string }>`
    INSERT INTO webhook_deliveries (tenant_id, id, subscription_id, event_id, event_type, subject,
      occurred_at, state, attempts, next_attempt_at, created_at)
    SELECT tenant_id, ${sqlUuidv7(at)}, id, ${event.eventId}::uuid, ${event.type}::text,
      ${JSON.stringify(event.subject)}::jsonb, ${at}::timestamptz, 'pending', 0, ${at}::timestamptz,
      ${at}::timestamptz
    FROM webhook_subscriptions
    WHERE tenant_id = ${event.tenantId}::uuid AND enabled AND event_types IS NOT NULL
      AND ${event.type}::text = ANY(event_types)
    RETURNING subscription_id`.execute(trx);
  return inserted.rows.map((r) => r.subscription_id);
}

export type LeasedDelivery = Pick<
  Selectable<WebhookDeliveriesTable>,
  | "id"
  | "app_id"
  | "sequence"
  | "event_id"
  | "actor_id"
  | "event_type"
  | "subject"
  | "occurred_at"
  | "attempts"
>;

/**
 * Up to `limit` due pending deliveries of a subscription, lowest sequences first, leased until
 * `until` (one statement; rows another transaction is leasing are skipped). A delivery is due
 * when its next attempt's time has come and no lease holds it.
 */
export async function leaseDeliveries(
  db: Db,
  tenantId: string,
  subscriptionId: string,
  now: Date,
  until: Date,
  limit: number,
): Promise<LeasedDelivery[]> {
  const leased = await sql<LeasedDelivery>`
    UPDATE webhook_deliveries SET lease_until = ${until}::timestamptz
    WHERE tenant_id = ${tenantId}::uuid AND id IN (
      SELECT id FROM webhook_deliveries
      WHERE tenant_id = ${tenantId}::uuid AND subscription_id = ${subscriptionId}::uuid AND state = 'pending'
        AND next_attempt_at <= ${now}::timestamptz
        AND (lease_until IS NULL OR lease_until <= ${now}::timestamptz)
        -- Read in this statement, not before it: a subscription disabled, deleted or whose binding
        -- was revoked after the job read it starts no delivery (rules/contract §7).
        AND EXISTS (SELECT 1 FROM webhook_subscriptions AS s WHERE s.tenant_id = ${tenantId}::uuid
          AND s.id = ${subscriptionId}::uuid AND s.enabled AND s.deleted_at IS NULL)
      ORDER BY sequence, id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING id, app_id, sequence, event_id, actor_id, event_type, subject, occurred_at, attempts`.execute(
    db,
  );
  // A binding's deliveries in sequence order; an operator subscription's (no sequence) by id, its time.
  return leased.rows.sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0) || (a.id < b.id ? -1 : 1));
}

/** Keeps the deliveries of a batch whose POSTs still run leased. */
export async function renewLease(db: Db, tenantId: string, ids: readonly string[], until: Date) {
  await db
    .updateTable("webhook_deliveries")
    .set({ lease_until: until })
    .where("tenant_id", "=", tenantId)
    .where("id", "in", ids)
    .where("state", "=", "pending")
    .execute();
}

/** When the subscription's next pending delivery is due (its time come and its lease over), if any. */
export async function earliestPending(
  db: Db,
  tenantId: string,
  subscriptionId: string,
): Promise<Date | undefined> {
  const row = await sql<{ at: Date | null }>`
    SELECT min(GREATEST(next_attempt_at, lease_until)) AS at FROM webhook_deliveries
    WHERE tenant_id = ${tenantId}::uuid AND subscription_id = ${subscriptionId}::uuid AND state = 'pending'`.execute(
    db,
  );
  return row.rows[0]?.at ?? undefined;
}

/** In the transaction that records a batch with failures: since when the subscription fails, its row locked. */
export const lockSubscriptionState = (trx: Trx, tenantId: string, id: string) =>
  trx
    .selectFrom("webhook_subscriptions")
    .select(["enabled", "failing_since"])
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();

/** An attempt's outcome as recorded: the delivery's new state and the attempt's row. */
export interface DeliveryOutcome {
  deliveryId: string;
  attempt: number;
  state: "pending" | "delivered" | "failed" | "cancelled";
  /** For a delivery still pending: when it is tried again. */
  nextAttemptAt: Date | null;
  status: number | null;
  /** The delivery's last error (null when delivered). */
  error: string | null;
  attemptedAt: Date;
  attemptId: string;
  latencyMs: number;
  errorClass: string | null;
}

/**
 * A batch's outcomes in one statement: each delivery takes its new state only while it is still
 * pending at the attempt before this one (another run, after a lease that ran out mid-send, may
 * have recorded it), its attempt is inserted only then, and a delivered one ends the
 * subscription's failing period. Returns the ids of the deliveries it recorded.
 */
export async function recordOutcomes(
  db: Db | Trx,
  tenantId: string,
  subscriptionId: string,
  outcomes: readonly DeliveryOutcome[],
): Promise<Set<string>> {
  const recorded = await sql<{ delivery_id: string }>`
    WITH v AS (
      SELECT * FROM json_to_recordset(${JSON.stringify(outcomes)}::json) AS v ("deliveryId" uuid,
        attempt integer, state text, "nextAttemptAt" timestamptz, status integer, error text,
        "attemptedAt" timestamptz, "attemptId" uuid, "latencyMs" integer, "errorClass" text)
    ), changed AS (
      UPDATE webhook_deliveries d SET state = v.state, attempts = v.attempt,
        next_attempt_at = coalesce(v."nextAttemptAt", d.next_attempt_at), last_status = v.status,
        last_error = v.error, lease_until = NULL,
        completed_at = CASE WHEN v.state = 'pending' THEN NULL ELSE v."attemptedAt" END
      FROM v
      WHERE d.tenant_id = ${tenantId}::uuid AND d.id = v."deliveryId" AND d.state = 'pending'
        AND d.attempts = v.attempt - 1
      RETURNING d.id, d.subscription_id, d.sequence, d.state
    ), recovered AS (
      UPDATE webhook_subscriptions SET failing_since = NULL
      WHERE tenant_id = ${tenantId}::uuid AND id = ${subscriptionId}::uuid AND failing_since IS NOT NULL
        AND EXISTS (SELECT 1 FROM changed WHERE state = 'delivered')
    )
    INSERT INTO webhook_attempts (tenant_id, id, subscription_id, delivery_id, sequence, attempt,
      attempted_at, status, latency_ms, error_class)
    SELECT ${tenantId}::uuid, v."attemptId", c.subscription_id, c.id, c.sequence, v.attempt,
      v."attemptedAt", v.status, v."latencyMs", v."errorClass"
    FROM changed c INNER JOIN v ON v."deliveryId" = c.id
    RETURNING delivery_id`.execute(db);
  return new Set(recorded.rows.map((r) => r.delivery_id));
}

export async function cancelPendingDeliveries(
  db: Db | Trx,
  tenantId: string,
  subscriptionId: string,
  at: Date,
) {
  await db
    .updateTable("webhook_deliveries")
    .set({ state: "cancelled", completed_at: at, lease_until: null })
    .where("tenant_id", "=", tenantId)
    .where("subscription_id", "=", subscriptionId)
    .where("state", "=", "pending")
    .execute();
}

/**
 * Deletes a subscription (rules/contract §7): it is kept, with its attempts, but disabled, unseen by
 * `findSubscription` and the list, and its pending deliveries are cancelled: none starts after this.
 */
export async function deleteSubscription(trx: Trx, tenantId: string, id: string, at: Date): Promise<void> {
  await trx
    .updateTable("webhook_subscriptions")
    .set({ deleted_at: at, enabled: false, disabled_reason: "deleted" })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .execute();
  await cancelPendingDeliveries(trx, tenantId, id, at);
}

/** A revoked binding's subscriptions stop: disabled, their pending deliveries cancelled. */
export async function stopBindingSubscriptions(trx: Trx, tenantId: string, bindingId: string, at: Date) {
  const stopped = await trx
    .updateTable("webhook_subscriptions")
    .set({ enabled: false, disabled_reason: "service binding revoked" })
    .where("tenant_id", "=", tenantId)
    .where("binding_id", "=", bindingId)
    .where("deleted_at", "is", null)
    .returning("id")
    .execute();
  for (const { id } of stopped) await cancelPendingDeliveries(trx, tenantId, id, at);
}

export const listAttempts = (
  db: Db,
  tenantId: string,
  subscriptionId: string,
  limit: number,
  after: { attemptedAt: string; id: string } | undefined,
) => {
  let query = db
    .selectFrom("webhook_attempts")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("subscription_id", "=", subscriptionId);
  if (after) {
    const at = new Date(after.attemptedAt);
    query = query.where(sql<boolean>`(attempted_at < ${at} OR (attempted_at = ${at} AND id < ${after.id}))`);
  }
  return query
    .orderBy("attempted_at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
};

/** The changes of an app from `fromSequence` on that the feed still holds (for `recover`). */
export const changesFrom = (db: Trx, tenantId: string, appId: string, fromSequence: number) =>
  db
    .selectFrom("entitlement_changes")
    .select(["sequence", "event_id", "actor_id", "occurred_at"])
    .where("tenant_id", "=", tenantId)
    .where("app_id", "=", appId)
    .where("sequence", ">=", fromSequence)
    .orderBy("sequence")
    .execute();

/** The webhook subscriptions' sealed secrets, current and previous, for the key rotation (sealed-columns.ts). */
export const webhookSealedColumns: Parameters<typeof sealedColumnsOf>[2] = [
  [
    "webhook secret",
    "webhook_subscriptions",
    "id",
    "secret",
    (row, to) =>
      sql`UPDATE webhook_subscriptions SET secret = ${to}
      WHERE tenant_id = ${row.tenantId} AND id = ${row.id} AND secret = ${row.sealed}`,
  ],
  [
    "previous webhook secret",
    "webhook_subscriptions",
    "id",
    "previous_secret",
    (row, to) =>
      sql`UPDATE webhook_subscriptions SET previous_secret = ${to}
      WHERE tenant_id = ${row.tenantId} AND id = ${row.id} AND previous_secret = ${row.sealed}`,
  ],
];
