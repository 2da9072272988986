import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import { creationPage, type CreationPosition } from "../../platform/db/creation-order.js";
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
 * One pending delivery per enabled subscription of the change's app, in the change's transaction
 * (the outbox). Returns the deliveries' ids, for their jobs.
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
  newId: () => string,
  subscriptionIds?: readonly string[],
): Promise<string[]> {
  let query = trx
    .selectFrom("webhook_subscriptions")
    .select("id")
    .where("tenant_id", "=", change.tenantId)
    .where("app_id", "=", change.appId)
    .where("enabled", "=", true);
  if (subscriptionIds) query = query.where("id", "in", subscriptionIds);
  const subscriptions = await query.execute();
  if (subscriptions.length === 0) return [];
  const rows = subscriptions.map((s) => ({
    tenant_id: change.tenantId,
    id: newId(),
    subscription_id: s.id,
    app_id: change.appId,
    sequence: change.sequence,
    event_id: change.eventId,
    actor_id: change.actorId,
    occurred_at: change.occurredAt,
    state: "pending" as const,
    attempts: 0,
    next_attempt_at: change.occurredAt,
    last_status: null,
    last_error: null,
    created_at: change.occurredAt,
    completed_at: null,
  }));
  await trx.insertInto("webhook_deliveries").values(rows).execute();
  return rows.map((r) => r.id);
}

/** A delivery with its subscription, the delivery row locked (one attempt at a time). */
export async function lockDelivery(trx: Trx, tenantId: string, id: string) {
  const delivery = await trx
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
  if (!delivery) return undefined;
  const subscription = await findSubscription(trx, tenantId, delivery.subscription_id);
  return subscription ? { delivery, subscription } : undefined;
}

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
