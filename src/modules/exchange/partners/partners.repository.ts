import { sql, type Insertable, type Kysely, type SelectQueryBuilder, type Transaction } from "kysely";
import {
  creationPage,
  keyPage,
  type CreationPosition,
  type ListOrder,
} from "../../../platform/db/creation-order.js";
import type { ConnectionStatus, ExchangeTables } from "../exchange.tables.js";

/*
 * The administration's reads and writes of partners, connections and profile revisions, and the
 * operator's lists in creation order. Reads every part needs are in ../connections.repository.ts.
 */

type Db = Kysely<ExchangeTables>;
type Trx = Transaction<ExchangeTables>;

type Paged = "exchange_partners" | "exchange_connections" | "exchange_uploads" | "exchange_deliveries";

/**
 * What the operator's lists of uploads and deliveries keep (every given one, combined), and the
 * list of connections (`partnerId` only): each has an index ending in the creation order, so a
 * filtered page is an index range (migrations 2026-11-27T1210, 2026-11-29T0800), several statuses
 * one range each, merged. `from` is inclusive, `to` exclusive, both on `created_at`.
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
  /** Uploads only: UNB 0020 as read at upload (exchange_uploads_by_interchange). */
  interchangeReference?: string | undefined;
  /** Uploads only: BGM 1004 of any message (exchange_upload_documents, stored at processing). */
  documentNumber?: string | undefined;
  /**
   * The uploads (deliveries) of the partner's connections; connections: the partner's (index
   * exchange_connections_by_partner).
   */
  partnerId?: string | undefined;
  /**
   * Deliveries only: still ready or claimed after the collection deadline (the sweep set
   * `overdue_since`; index exchange_deliveries_overdue).
   */
  overdue?: true | undefined;
}

export function listPage<T extends Paged>(
  db: Db,
  table: T,
  tenantId: string,
  limit: number,
  after?: CreationPosition,
  filter: ListFilter = {},
  order: ListOrder = "asc",
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): SelectQueryBuilder<any, any, Record<string, unknown>> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const anyDb: Kysely<any> = db;
  const { connectionId, statuses, from, to, uploadId, messageType } = filter;
  const { interchangeReference, documentNumber, partnerId, overdue } = filter;
  if (statuses !== undefined && statuses.length > 1) {
    // Several statuses: one index range per status, each in list order, merged (Merge Append).
    const ranges = statuses.map((status) =>
      listPage(db, table, tenantId, limit, after, { ...filter, statuses: [status] }, order),
    );
    const merged = sql`(${sql.join(ranges, sql` UNION ALL `)})`.as("page");
    return creationPage(anyDb.selectFrom(merged).selectAll(), limit, undefined, order);
  }
  /** The ids in `column` of the tenant's rows of `from` whose `key` is `value`. */
  const idsOf = (from: string, column: string, key: string, value: string) =>
    anyDb.selectFrom(from).select(column).where("tenant_id", "=", tenantId).where(key, "=", value);
  let q = anyDb.selectFrom(table).selectAll().where("tenant_id", "=", tenantId);
  if (interchangeReference !== undefined) q = q.where("interchange_id", "=", interchangeReference);
  // The few uploads carrying the number (the documents' primary key), then each by its key.
  if (documentNumber !== undefined) {
    q = q.where(
      "id",
      "in",
      idsOf("exchange_upload_documents", "upload_id", "document_number", documentNumber),
    );
  }
  if (partnerId !== undefined) {
    q =
      table === "exchange_connections"
        ? q.where("partner_id", "=", partnerId)
        : q.where("connection_id", "in", idsOf("exchange_connections", "id", "partner_id", partnerId));
  }
  if (connectionId !== undefined) q = q.where("connection_id", "=", connectionId);
  if (statuses !== undefined) q = q.where("status", "in", statuses);
  if (from !== undefined) q = q.where("created_at", ">=", from);
  if (to !== undefined) q = q.where("created_at", "<", to);
  if (uploadId !== undefined) q = q.where("upload_id", "=", uploadId);
  if (messageType !== undefined) q = q.where("message_type", "=", messageType);
  if (overdue) q = q.where("status", "in", ["ready", "claimed"]).where("overdue_since", "is not", null);
  return creationPage(q, limit, after, order);
}

/** Who owns each of `connectionIds`, by name (rules/contract §8: the operator views carry both names). */
export async function connectionOwners(db: Db, tenantId: string, connectionIds: readonly string[]) {
  const owners = new Map<string, { partnerId: string; partnerName: string; connectionName: string }>();
  const ids = [...new Set(connectionIds)];
  if (ids.length === 0) return owners;
  const rows = await db
    .selectFrom("exchange_connections as c")
    .innerJoin("exchange_partners as p", (join) =>
      join.onRef("p.tenant_id", "=", "c.tenant_id").onRef("p.id", "=", "c.partner_id"),
    )
    .select(["c.id", "c.partner_id", "c.name as connection_name", "p.name as partner_name"])
    .where("c.tenant_id", "=", tenantId)
    .where("c.id", "in", ids)
    .execute();
  for (const row of rows) {
    owners.set(row.id, {
      partnerId: row.partner_id,
      partnerName: row.partner_name,
      connectionName: row.connection_name,
    });
  }
  return owners;
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

/** Activates, suspends or renames a connection; false when there is none. */
export async function updateConnection(
  db: Db,
  tenantId: string,
  id: string,
  change: {
    status?: ConnectionStatus | undefined;
    name?: string | undefined;
    collectionDeadlineSeconds?: number | null | undefined;
  },
  at: Date,
) {
  const result = await db
    .updateTable("exchange_connections")
    .set({
      ...(change.status === undefined ? {} : { status: change.status }),
      ...(change.name === undefined ? {} : { name: change.name }),
      ...(change.collectionDeadlineSeconds === undefined
        ? {}
        : { collection_deadline_seconds: change.collectionDeadlineSeconds }),
      updated_at: at,
    })
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

export function listRevisions(
  db: Db,
  tenantId: string,
  connectionId: string,
  limit: number,
  after?: number,
  order?: ListOrder,
) {
  const q = db
    .selectFrom("exchange_profile_revisions")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("connection_id", "=", connectionId);
  return keyPage(q, "revision", limit, after, order).execute();
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
