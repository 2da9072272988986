import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database } from "../../platform/db/database.js";
import type { ConnectionsTable, ExchangeTables } from "./exchange.tables.js";

/*
 * The reads of connections and profile revisions that every part of the exchange needs (partner
 * access, processing, administration), and the mailbox positions a connection hands out.
 */

type Db = Kysely<ExchangeTables>;
type Trx = Transaction<ExchangeTables>;
type Connection = Selectable<ConnectionsTable>;

const connectionQuery = (db: Db, tenantId: string, id: string) =>
  db.selectFrom("exchange_connections").selectAll().where("tenant_id", "=", tenantId).where("id", "=", id);

export function findConnection(db: Db, tenantId: string, id: string) {
  return connectionQuery(db, tenantId, id).executeTakeFirst();
}

let connectionSql: string | undefined;

/**
 * `findConnection` as a prepared statement: every partner request (upload, list, claim, payload,
 * acknowledge) runs it outside a transaction, so only its parameters change.
 */
export async function findConnectionPrepared(
  database: Database<ExchangeTables>,
  tenantId: string,
  id: string,
): Promise<Connection | undefined> {
  connectionSql ??= connectionQuery(database.db, tenantId, id).compile().sql;
  const [row] = await database.prepared<Connection>("hanse_exchange_connection", connectionSql, [
    tenantId,
    id,
  ]);
  return row;
}

export function lockConnection(trx: Trx, tenantId: string, id: string) {
  return connectionQuery(trx, tenantId, id).forUpdate().executeTakeFirst();
}

export function findRevision(db: Db, tenantId: string, connectionId: string, revision: number) {
  return db
    .selectFrom("exchange_profile_revisions")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("connection_id", "=", connectionId)
    .where("revision", "=", revision)
    .executeTakeFirst();
}

/** Reserves `count` consecutive mailbox positions of a connection; returns the first. */
export async function reservePositions(trx: Trx, tenantId: string, connectionId: string, count: number) {
  const row = await trx
    .updateTable("exchange_connections")
    .set((eb) => ({ outbound_counter: eb("outbound_counter", "+", count) }))
    .where("tenant_id", "=", tenantId)
    .where("id", "=", connectionId)
    .returning("outbound_counter")
    .executeTakeFirstOrThrow();
  return row.outbound_counter - count + 1;
}
