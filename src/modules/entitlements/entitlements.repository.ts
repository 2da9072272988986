import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import type { Entitlement } from "@hanse/client/protocol";
import {
  creationPage,
  keyPage,
  type CreationPosition,
  type ListOrder,
} from "../../platform/db/creation-order.js";
import type { Database } from "../../platform/db/database.js";
import { changeFeedJson } from "./change-feed-json.js";
import type { EntitlementAppsTable, EntitlementsTable, EntitlementTables } from "./entitlements.tables.js";

type Db = Kysely<EntitlementTables>;
type Trx = Transaction<EntitlementTables>;

/** The wire form of a stored entitlement (rules/contract §5). */
export const toEntitlement = (row: Selectable<EntitlementsTable>): Entitlement => ({
  appId: row.app_id,
  actorId: row.actor_id,
  status: row.status,
  plan: row.plan,
  capabilities: row.capabilities,
  validFrom: row.valid_from.toISOString(),
  validUntil: row.valid_until?.toISOString() ?? null,
  sequence: row.sequence,
  updatedAt: row.updated_at.toISOString(),
});

// ---- tenant state and apps ---------------------------------------------------------------------

export async function ensureTenantState(db: Db | Trx, tenantId: string, at: Date): Promise<void> {
  await db
    .insertInto("entitlement_tenants")
    .values({ tenant_id: tenantId, created_at: at })
    .onConflict((oc) => oc.column("tenant_id").doNothing())
    .execute();
}

export async function hasTenantState(db: Db, tenantId: string): Promise<boolean> {
  const row = await db
    .selectFrom("entitlement_tenants")
    .select("tenant_id")
    .where("tenant_id", "=", tenantId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Inserts the app and its stream's counter row; false when the id is taken in the tenant. */
export async function insertApp(trx: Trx, row: EntitlementAppsTable): Promise<boolean> {
  const inserted = await trx
    .insertInto("entitlement_apps")
    .values(row)
    .onConflict((oc) => oc.columns(["tenant_id", "id"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!inserted) return false;
  await trx
    .insertInto("entitlement_streams")
    .values({ tenant_id: row.tenant_id, app_id: row.id, last_sequence: 0, pruned_through: 0 })
    .execute();
  return true;
}

export const findApp = (db: Db | Trx, tenantId: string, appId: string) =>
  db
    .selectFrom("entitlement_apps")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", appId)
    .executeTakeFirst();

export const listApps = (
  db: Db,
  tenantId: string,
  limit: number,
  after: CreationPosition | undefined,
  order?: ListOrder,
) =>
  creationPage(
    db.selectFrom("entitlement_apps").selectAll().where("tenant_id", "=", tenantId),
    limit,
    after,
    order,
  ).execute();

// ---- entitlements and their changes ------------------------------------------------------------

/**
 * Takes the next sequence of the stream. The UPDATE locks the stream's counter row until the
 * transaction ends, so a later writer gets its number only after this one committed: sequence
 * order is commit order, and a reader that saw N never later finds a change ≤ N it missed.
 */
export async function nextSequence(trx: Trx, tenantId: string, appId: string): Promise<number> {
  const row = await trx
    .updateTable("entitlement_streams")
    .set({ last_sequence: sql`last_sequence + 1` })
    .where("tenant_id", "=", tenantId)
    .where("app_id", "=", appId)
    .returning("last_sequence")
    .executeTakeFirstOrThrow();
  return row.last_sequence;
}

export const findEntitlement = (db: Db | Trx, tenantId: string, appId: string, actorId: string) =>
  db
    .selectFrom("entitlements")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("app_id", "=", appId)
    .where("actor_id", "=", actorId)
    .executeTakeFirst();

/**
 * `findEntitlement` for the hot paths outside transactions (introspection, grants): a statement
 * prepared once, which on PGlite also spares the parse and plan of every call.
 */
export async function findEntitlementPrepared(
  database: Database<EntitlementTables>,
  tenantId: string,
  appId: string,
  actorId: string,
): Promise<Selectable<EntitlementsTable> | undefined> {
  const rows = await database.prepared<Selectable<EntitlementsTable>>(
    "hanse_entitlement_find",
    "SELECT * FROM entitlements WHERE tenant_id = $1 AND app_id = $2 AND actor_id = $3",
    [tenantId, appId, actorId],
  );
  return rows[0];
}

export async function upsertEntitlement(trx: Trx, row: Selectable<EntitlementsTable>): Promise<void> {
  await trx
    .insertInto("entitlements")
    .values(row)
    .onConflict((oc) =>
      oc.columns(["tenant_id", "app_id", "actor_id"]).doUpdateSet({
        status: row.status,
        plan: row.plan,
        capabilities: row.capabilities,
        valid_from: row.valid_from,
        valid_until: row.valid_until,
        sequence: row.sequence,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

export async function insertChange(
  trx: Trx,
  change: {
    tenantId: string;
    appId: string;
    sequence: number;
    eventId: string;
    actorId: string;
    entitlement: Entitlement | null;
    previous: Entitlement | null;
    occurredAt: Date;
    changedBy: string;
  },
): Promise<void> {
  await trx
    .insertInto("entitlement_changes")
    .values({
      tenant_id: change.tenantId,
      app_id: change.appId,
      sequence: change.sequence,
      event_id: change.eventId,
      type: "entitlement.changed",
      actor_id: change.actorId,
      entitlement: change.entitlement === null ? null : JSON.stringify(change.entitlement),
      previous: change.previous === null ? null : JSON.stringify(change.previous),
      occurred_at: change.occurredAt,
      changed_by: change.changedBy,
      feed_json: changeFeedJson(change),
    })
    .execute();
}

/** The admin list of an app's entitlements, in actor order. */
export const listEntitlements = (
  db: Db,
  tenantId: string,
  appId: string,
  limit: number,
  afterActor: string | undefined,
  order?: ListOrder,
) => {
  const query = db
    .selectFrom("entitlements")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("app_id", "=", appId);
  return keyPage(query, "actor_id", limit, afterActor, order).execute();
};

export interface StreamState {
  lastSequence: number;
  prunedThrough: number;
}

export async function streamState(db: Db, tenantId: string, appId: string): Promise<StreamState | undefined> {
  const row = await db
    .selectFrom("entitlement_streams")
    .select(["last_sequence", "pruned_through"])
    .where("tenant_id", "=", tenantId)
    .where("app_id", "=", appId)
    .executeTakeFirst();
  return row && { lastSequence: row.last_sequence, prunedThrough: row.pruned_through };
}

/**
 * Removes changes that occurred before `before`, a batch per statement, and raises each stream's
 * `pruned_through` to the highest sequence removed; a change of the same stream at or below it
 * that occurred later (clocks of concurrent writers differ a little) goes too, so that everything
 * up to `pruned_through` is gone and everything after it is kept. Returns the number removed.
 */
export async function pruneChanges(db: Db, before: Date, batch = 1000): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    WITH gone AS (
      DELETE FROM entitlement_changes WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM entitlement_changes WHERE occurred_at < ${before} LIMIT ${batch}))
      RETURNING tenant_id, app_id, sequence),
    highest AS (SELECT tenant_id, app_id, max(sequence) AS through FROM gone GROUP BY tenant_id, app_id),
    stragglers AS (
      DELETE FROM entitlement_changes c USING highest h
      WHERE c.tenant_id = h.tenant_id AND c.app_id = h.app_id AND c.sequence <= h.through
        AND c.occurred_at >= ${before}
      RETURNING 1),
    raised AS (
      UPDATE entitlement_streams s SET pruned_through = GREATEST(s.pruned_through, h.through)
      FROM highest h WHERE s.tenant_id = h.tenant_id AND s.app_id = h.app_id
      RETURNING 1)
    SELECT ((SELECT count(*) FROM gone) + (SELECT count(*) FROM stragglers))::integer AS n,
      (SELECT count(*) FROM raised)::integer AS streams`.execute(db);
  return rows[0]?.n ?? 0;
}

export interface ActorChangeRow {
  sequence: number;
  event_id: string;
  entitlement: Entitlement | null;
  occurred_at: Date;
  changed_by: string | null;
}

/**
 * One actor's kept changes of an app's stream, newest first, before sequence `before` (one more
 * than `limit`, to tell whether more follow); read from the feed's own records
 * (index `entitlement_changes_by_actor`).
 */
export async function actorChanges(
  db: Db,
  tenantId: string,
  appId: string,
  actorId: string,
  before: number | undefined,
  limit: number,
): Promise<ActorChangeRow[]> {
  let query = db
    .selectFrom("entitlement_changes")
    .select(["sequence", "event_id", "entitlement", "occurred_at", "changed_by"])
    .where("tenant_id", "=", tenantId)
    .where("app_id", "=", appId)
    .where("actor_id", "=", actorId);
  if (before !== undefined) query = query.where("sequence", "<", before);
  const rows = await query
    .orderBy("sequence", "desc")
    .limit(limit + 1)
    .execute();
  return rows.map((r) => ({ ...r, entitlement: r.entitlement as Entitlement | null }));
}
