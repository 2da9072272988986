import type { Insertable, Kysely, Transaction } from "kysely";
import type { DeliveryChanges } from "./delivery-state.js";
import type { ExchangeTables } from "../exchange.tables.js";

type Db = Kysely<ExchangeTables>;
type Trx = Transaction<ExchangeTables>;

/** A new delivery (its state: `readyForClaim`), written with the outbound message's blob. */
export async function insertDelivery(trx: Trx, row: Insertable<ExchangeTables["exchange_deliveries"]>) {
  await insertDeliveries(trx, [row]);
}

/** Several new deliveries in one statement (as `insertDelivery`). */
export async function insertDeliveries(
  trx: Trx,
  rows: readonly Insertable<ExchangeTables["exchange_deliveries"]>[],
) {
  if (rows.length === 0) return;
  await trx.insertInto("exchange_deliveries").values(rows).execute();
}

/**
 * Writes the columns a transition of `delivery-state.ts` decided; with `claimedUnder` (a payload
 * read's verdict) only while the delivery is still claimed under that attempt.
 */
export async function updateDelivery(
  trx: Trx,
  key: { tenantId: string; id: string; claimedUnder?: number },
  changes: DeliveryChanges,
  at: Date,
): Promise<void> {
  let update = trx
    .updateTable("exchange_deliveries")
    .set({ ...changes, updated_at: at })
    .where("tenant_id", "=", key.tenantId)
    .where("id", "=", key.id);
  if (key.claimedUnder !== undefined) {
    update = update.where("status", "=", "claimed").where("attempts", "=", key.claimedUnder);
  }
  await update.execute();
}

export function findDelivery(db: Db, tenantId: string, id: string) {
  return db
    .selectFrom("exchange_deliveries")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export function lockDelivery(trx: Trx, tenantId: string, id: string) {
  return trx
    .selectFrom("exchange_deliveries")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
}

export function listDue(
  db: Db,
  tenantId: string,
  connectionId: string,
  now: Date,
  limit: number,
  after?: number,
) {
  let q = db
    .selectFrom("exchange_deliveries")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("connection_id", "=", connectionId)
    .where("status", "=", "ready")
    .where("due_at", "<=", now);
  if (after !== undefined) q = q.where("position", ">", after);
  return q
    .orderBy("position")
    .limit(limit + 1)
    .execute();
}

/** Claimed deliveries of a connection whose lease has run out (oldest first). */
export function findExpiredLeases(trx: Trx, tenantId: string, connectionId: string, now: Date) {
  return trx
    .selectFrom("exchange_deliveries")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("connection_id", "=", connectionId)
    .where("status", "=", "claimed")
    .where("lease_expires_at", "<=", now)
    .orderBy("position")
    .forUpdate()
    .skipLocked()
    .limit(100)
    .execute();
}

/** The deliveries an upload produced, in mailbox order (index exchange_deliveries_by_upload). */
export function listUploadDeliveries(db: Db, tenantId: string, uploadId: string) {
  return db
    .selectFrom("exchange_deliveries")
    .select([
      "id",
      "message_type",
      "status",
      "interchange_id",
      "message_reference",
      "answers_message_reference",
      "created_at",
      "acknowledged_at",
    ])
    .where("tenant_id", "=", tenantId)
    .where("upload_id", "=", uploadId)
    .orderBy("position")
    .execute();
}

/** Per upload of `uploadIds`: how many deliveries of each message type it produced. */
export async function countUploadDeliveries(
  db: Db,
  tenantId: string,
  uploadIds: readonly string[],
): Promise<Map<string, Record<string, number>>> {
  const counts = new Map<string, Record<string, number>>();
  if (uploadIds.length === 0) return counts;
  const rows = await db
    .selectFrom("exchange_deliveries")
    .select(["upload_id", "message_type"])
    .select((eb) => eb.fn.countAll<string | number>().as("n"))
    .where("tenant_id", "=", tenantId)
    .where("upload_id", "in", uploadIds)
    .groupBy(["upload_id", "message_type"])
    .orderBy("message_type")
    .execute();
  for (const row of rows) {
    const forUpload = counts.get(row.upload_id) ?? {};
    forUpload[row.message_type] = Number(row.n);
    counts.set(row.upload_id, forUpload);
  }
  return counts;
}
