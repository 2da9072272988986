import type { Insertable, Kysely, Transaction } from "kysely";
import type { IdentityTables, SsoSettingsTable, SsoStatesTable } from "../identity.tables.js";

type Db = Kysely<IdentityTables>;

export function findSsoSettings(db: Db, tenantId: string) {
  return db.selectFrom("sso_settings").selectAll().where("tenant_id", "=", tenantId).executeTakeFirst();
}

/** Creates or replaces the tenant's settings (one issuer per tenant). */
export async function saveSsoSettings(db: Db, settings: SsoSettingsTable): Promise<void> {
  const { tenant_id: _tenant, created_at: _created, ...changes } = settings;
  await db
    .insertInto("sso_settings")
    .values(settings)
    .onConflict((oc) => oc.column("tenant_id").doUpdateSet(changes))
    .execute();
}

/** False when the tenant had none. */
export async function deleteSsoSettings(db: Db, tenantId: string): Promise<boolean> {
  const result = await db.deleteFrom("sso_settings").where("tenant_id", "=", tenantId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** A new sign-in under way; states expired for a day are removed on the way (they cannot be used). */
export async function insertSsoState(db: Db, state: Insertable<SsoStatesTable>, expiredBefore: Date) {
  await db.deleteFrom("sso_states").where("expires_at", "<", expiredBefore).execute();
  await db.insertInto("sso_states").values(state).execute();
}

/** The state row, locked until the caller's transaction ends, with its tenant. */
export function lockSsoState(trx: Transaction<IdentityTables>, id: string) {
  return trx.selectFrom("sso_states").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
}

export async function useSsoState(trx: Transaction<IdentityTables>, id: string, at: Date): Promise<void> {
  await trx.updateTable("sso_states").set({ used_at: at }).where("id", "=", id).execute();
}
