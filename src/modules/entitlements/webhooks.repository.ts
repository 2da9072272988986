import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import { creationPage, type CreationPosition } from "../../platform/db/creation-order.js";
import { sqlUuidv7 } from "../../platform/db/sql-uuid.js";
import type {
  EntitlementTables,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookSubscriptionsTable,
} from "./entitlements.tables.js";

type Db = Kysely<EntitlementTables>;
type Trx = Transaction<EntitlementTables>;

export async function insertSubscription(
  db: Db | Trx,
  row: Selectable<WebhookSubscriptionsTable>,
): Promise<void> {
  await db.insertInto("webhook_subscriptions").values(row).execute();
}

export const findSubscription = (db: Db | Trx, tenantId: string, id: string) =>
  db
    .selectFrom("webhook_subscriptions")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();

export const listSubscriptions = (
  db: Db,
  tenantId: string,
  limit: number,
  after: CreationPosition | undefined,
) =>
  creationPage(
    db.selectFrom("webhook_subscriptions").selectAll().where("tenant_id", "=", tenantId),
    limit,
    after,
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
 * database makes (UUIDv7 at the change's time). Returns the deliveries' ids, for their jobs.
 */
export async function insertDeliveries(
  trx: Trx,
  change: {
    tenantId: string;
    appId: string;
    sequence: number;
    eventId: string;
    actorId: string;
    occurredAt: Date;
  },
  subscriptionIds?: readonly string[],
): Promise<string[]> {
  const at = change.occurredAt;
  const inserted = await sql<{ id: string }>`
    INSERT INTO webhook_deliveries (tenant_id, id, subscription_id, app_id, sequence, event_id, actor_id,
      occurred_at, state, attempts, next_attempt_at, created_at)
    SELECT tenant_id, ${sqlUuidv7(at)}, id, app_id, ${change.sequence}::bigint, ${change.eventId}::uuid,
      ${change.actorId}::text, ${at}::timestamptz, 'pending', 0, ${at}::timestamptz, ${at}::timestamptz
    FROM webhook_subscriptions
    WHERE tenant_id = ${change.tenantId}::uuid AND app_id = ${change.appId}::text AND enabled
      ${subscriptionIds ? sql`AND id = ANY(${subscriptionIds}::uuid[])` : sql``}
    RETURNING id`.execute(trx);
  return inserted.rows.map((r) => r.id);
}

/**
 * A delivery with what its attempt needs of its subscription, read without a lock: the attempt
 * sends first and records after (`lockDeliveryState`), holding no transaction while it sends.
 */
export async function findDelivery(db: Db, tenantId: string, id: string) {
  const row = await db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_subscriptions as s", (join) =>
      join.onRef("s.tenant_id", "=", "d.tenant_id").onRef("s.id", "=", "d.subscription_id"),
    )
    .selectAll("d")
    .select(["s.url", "s.enabled", "s.secret", "s.previous_secret", "s.previous_secret_expires_at"])
    .where("d.tenant_id", "=", tenantId)
    .where("d.id", "=", id)
    .executeTakeFirst();
  if (!row) return undefined;
  const { url, enabled, secret, previous_secret, previous_secret_expires_at, ...delivery } = row;
  const subscription = {
    id: delivery.subscription_id,
    url,
    enabled,
    secret,
    previous_secret,
    previous_secret_expires_at,
  };
  return { delivery, subscription };
}

/**
 * In the transaction that records an attempt: the delivery's state and attempts, its row locked
 * (so that one attempt is recorded once, whatever else runs), and since when its subscription fails.
 */
export const lockDeliveryState = (trx: Trx, tenantId: string, id: string) =>
  trx
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_subscriptions as s", (join) =>
      join.onRef("s.tenant_id", "=", "d.tenant_id").onRef("s.id", "=", "d.subscription_id"),
    )
    .select(["d.state", "d.attempts", "s.failing_since"])
    .where("d.tenant_id", "=", tenantId)
    .where("d.id", "=", id)
    .forUpdate("d")
    .executeTakeFirst();

export async function updateDelivery(
  trx: Trx,
  tenantId: string,
  id: string,
  values: Partial<Selectable<WebhookDeliveriesTable>>,
): Promise<void> {
  await trx
    .updateTable("webhook_deliveries")
    .set(values)
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .execute();
}

/**
 * A successful attempt in one statement: the delivery becomes `delivered` only while it is still
 * pending at the attempt before this one (the UPDATE's row lock and condition guard it as
 * `lockDeliveryState` does: a delivery another run recorded is left alone), the attempt is
 * inserted only then, and a failing subscription is failing no longer. Whether it recorded.
 */
export async function recordDelivered(db: Db, row: Selectable<WebhookAttemptsTable>): Promise<boolean> {
  const recorded = await sql`
    WITH delivered AS (
      UPDATE webhook_deliveries SET state = 'delivered', attempts = ${row.attempt}::integer,
        last_status = ${row.status}::integer, last_error = NULL, completed_at = ${row.attempted_at}::timestamptz
      WHERE tenant_id = ${row.tenant_id}::uuid AND id = ${row.delivery_id}::uuid AND state = 'pending'
        AND attempts = ${row.attempt - 1}::integer
      RETURNING tenant_id, subscription_id
    ), recovered AS (
      UPDATE webhook_subscriptions s SET failing_since = NULL FROM delivered d
      WHERE s.tenant_id = d.tenant_id AND s.id = d.subscription_id AND s.failing_since IS NOT NULL
    )
    INSERT INTO webhook_attempts (tenant_id, id, subscription_id, delivery_id, sequence, attempt,
      attempted_at, status, latency_ms, error_class)
    SELECT tenant_id, ${row.id}::uuid, subscription_id, ${row.delivery_id}::uuid, ${row.sequence}::bigint,
      ${row.attempt}::integer, ${row.attempted_at}::timestamptz, ${row.status}::integer,
      ${row.latency_ms}::integer, NULL
    FROM delivered
    RETURNING id`.execute(db);
  return recorded.rows.length > 0;
}

export async function insertAttempt(trx: Trx, row: Selectable<WebhookAttemptsTable>): Promise<void> {
  await trx.insertInto("webhook_attempts").values(row).execute();
}

export async function cancelPendingDeliveries(trx: Trx, tenantId: string, subscriptionId: string, at: Date) {
  await trx
    .updateTable("webhook_deliveries")
    .set({ state: "cancelled", completed_at: at })
    .where("tenant_id", "=", tenantId)
    .where("subscription_id", "=", subscriptionId)
    .where("state", "=", "pending")
    .execute();
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
