import type { Insertable, Kysely, Transaction } from "kysely";
import { creationPage, type CreationPosition } from "../../../platform/db/creation-order.js";
import type { ConnectionStatus, ExchangeTables } from "../exchange.tables.js";

/*
 * The administration's reads and writes of partners, connections and profile revisions, and the
 * operator's lists in creation order. Reads every part needs are in ../connections.repository.ts.
 */

type Db = Kysely<ExchangeTables>;
type Trx = Transaction<ExchangeTables>;

type Paged = "exchange_partners" | "exchange_connections" | "exchange_uploads" | "exchange_deliveries";

/**
 * What the operator's lists of uploads and deliveries keep (every given one, combined): each has
 * an index ending in the creation order, so a filtered page is an index range (migration
 * 2026-11-27T1210). `from` is inclusive, `to` exclusive, both on `created_at`.
 */
export interface ListFilter {
  connectionId?: string | undefined;
  statuses?: readonly string[] | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** Deliveries only. */
  uploadId?: string | undefined;
  /** Deliveries only. */
  messageType?: string | undefined;
}

export function listPage<T extends Paged>(
  db: Db,
  table: T,
  tenantId: string,
  limit: number,
  after?: CreationPosition,
  filter: ListFilter = {},
) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let q = (db as unknown as Kysely<any>).selectFrom(table).selectAll().where("tenant_id", "=", tenantId);
  const { connectionId, statuses, from, to, uploadId, messageType } = filter;
  if (connectionId !== undefined) q = q.where("connection_id", "=", connectionId);
  if (statuses !== undefined) q = q.where("status", "in", statuses);
  if (from !== undefined) q = q.where("created_at", ">=", from);
  if (to !== undefined) q = q.where("created_at", "<", to);
  if (uploadId !== undefined) q = q.where("upload_id", "=", uploadId);
  if (messageType !== undefined) q = q.where("message_type", "=", messageType);
  return creationPage(q, limit, after);
}

// Partners

export async function insertPartner(db: Db, row: Insertable<ExchangeTables["exchange_partners"]>) {
  await db.insertInto("exchange_partners").values(row).execute();
}

export function findPartner(db: Db, tenantId: string, id: string) {
  return db
    .selectFrom("exchange_partners")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** Renames a partner; false when there is none. */
export async function renamePartner(db: Db, tenantId: string, id: string, name: string, at: Date) {
  const result = await db
    .updateTable("exchange_partners")
    .set({ name, updated_at: at })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

// Connections and profile revisions

export async function insertConnection(db: Db, row: Insertable<ExchangeTables["exchange_connections"]>) {
  await db.insertInto("exchange_connections").values(row).execute();
}

/** Activates or suspends a connection; false when there is none. */
export async function setConnectionStatus(
  db: Db,
  tenantId: string,
  id: string,
  status: ConnectionStatus,
  at: Date,
) {
  const result = await db
    .updateTable("exchange_connections")
    .set({ status, updated_at: at })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Makes `revision` the connection's active profile (the caller holds the connection's lock). */
export async function setActiveRevision(trx: Trx, tenantId: string, id: string, revision: number, at: Date) {
  await trx
    .updateTable("exchange_connections")
    .set({ active_revision: revision, updated_at: at })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .execute();
}

export async function insertRevision(db: Db, row: Insertable<ExchangeTables["exchange_profile_revisions"]>) {
  await db.insertInto("exchange_profile_revisions").values(row).execute();
}

export function listRevisions(db: Db, tenantId: string, connectionId: string, limit: number, after?: number) {
  let q = db
    .selectFrom("exchange_profile_revisions")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("connection_id", "=", connectionId);
  if (after !== undefined) q = q.where("revision", ">", after);
  return q
    .orderBy("revision")
    .limit(limit + 1)
    .execute();
}

export async function maxRevision(trx: Trx, tenantId: string, connectionId: string): Promise<number> {
  const row = await trx
    .selectFrom("exchange_profile_revisions")
    .select((eb) => eb.fn.max("revision").as("max"))
    .where("tenant_id", "=", tenantId)
    .where("connection_id", "=", connectionId)
    .executeTakeFirst();
  return row?.max ?? 0;
}
