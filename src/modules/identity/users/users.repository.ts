import type { Kysely } from "kysely";
import type { IdentityTables, UsersTable } from "../identity.tables.js";

type Db = Kysely<IdentityTables>;

export function findUserName(db: Db, tenantId: string, userId: string) {
  return db
    .selectFrom("users")
    .select(["email", "name"])
    .where("tenant_id", "=", tenantId)
    .where("id", "=", userId)
    .executeTakeFirst();
}

export function findUserByEmail(db: Db, tenantId: string, email: string) {
  return db
    .selectFrom("users")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", email.toLowerCase()))
    .executeTakeFirst();
}

export async function insertUser(db: Db, user: UsersTable): Promise<void> {
  await db.insertInto("users").values(user).execute();
}
