import type { Insertable, Kysely, Transaction, Updateable } from "kysely";
import { creationPage, type CreationPosition, type ListOrder } from "../../../platform/db/creation-order.js";
import type {
  IdentityTables,
  PasswordResetsTable,
  UserInvitationsTable,
  UsersTable,
} from "../identity.tables.js";

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

/** What a password check needs: the user's e-mail, status and password hash. */
export function findUserPassword(db: Db, tenantId: string, id: string) {
  return db
    .selectFrom("users")
    .select(["email", "status", "password_hash"])
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function insertUser(db: Db, user: UsersTable): Promise<void> {
  await db.insertInto("users").values(user).execute();
}

/** What a user's view shows (users.service `toUserView`). */
const userColumns = [
  "id",
  "email",
  "name",
  "role",
  "status",
  "created_at",
  "last_sign_in_at",
  "activated_at",
] as const;

export function listUsers(
  db: Db,
  tenantId: string,
  limit: number,
  after?: CreationPosition,
  order?: ListOrder,
) {
  return creationPage(
    db.selectFrom("users").select(userColumns).where("tenant_id", "=", tenantId),
    limit,
    after,
    order,
  ).execute();
}

export function findUser(db: Db, tenantId: string, id: string) {
  return db
    .selectFrom("users")
    .select(userColumns)
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/**
 * Locks the tenant's active owners, in id order (so that two changes lock them in the same order
 * and never deadlock), and returns their ids. A change that could take away the last active
 * owner holds these locks until it commits: a concurrent change of another owner waits, then
 * sees the committed roles (PostgreSQL re-reads a locked row that changed) and counts again.
 */
export async function lockActiveOwners(trx: Transaction<IdentityTables>, tenantId: string) {
  const rows = await trx
    .selectFrom("users")
    .select("id")
    .where("tenant_id", "=", tenantId)
    .where("role", "=", "owner")
    .where("status", "=", "active")
    .orderBy("id")
    .forUpdate()
    .execute();
  return rows.map((row) => row.id);
}

/** The user, locked for the caller's change (after `lockActiveOwners`). */
export function lockUser(trx: Transaction<IdentityTables>, tenantId: string, id: string) {
  return trx
    .selectFrom("users")
    .select(userColumns)
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateUser(
  db: Db,
  tenantId: string,
  id: string,
  changes: Updateable<UsersTable>,
): Promise<void> {
  await db.updateTable("users").set(changes).where("tenant_id", "=", tenantId).where("id", "=", id).execute();
}

export async function insertInvitation(db: Db, invitation: Insertable<UserInvitationsTable>): Promise<void> {
  await db.insertInto("user_invitations").values(invitation).execute();
}

/**
 * An invitation with what accepting it needs: its user's status, role and e-mail, and its
 * tenant's type and status. `lock` (inside a transaction) locks the invitation until commit, so
 * that it is used once.
 */
export function findInvitation(db: Db, id: string, lock = false) {
  const query = db
    .selectFrom("user_invitations as i")
    .innerJoin("users as u", (join) =>
      join.onRef("u.tenant_id", "=", "i.tenant_id").onRef("u.id", "=", "i.user_id"),
    )
    .innerJoin("tenants as t", "t.id", "i.tenant_id")
    .select([
      "i.id",
      "i.tenant_id",
      "i.user_id",
      "i.secret_hash",
      "i.expires_at",
      "i.used_at",
      "u.email",
      "u.role",
      "u.status as user_status",
      "t.slug as tenant_slug",
      "t.type as tenant_type",
      "t.status as tenant_status",
    ])
    .where("i.id", "=", id);
  return (lock ? query.forUpdate("i") : query).executeTakeFirst();
}

/**
 * Ends the user's invitations that could still be accepted (they expire `at`): a reissued
 * invitation replaces them. Locks them until commit, as accepting one does (invitation, then
 * user: the same order, so the two never deadlock).
 */
export async function withdrawInvitations(db: Db, tenantId: string, userId: string, at: Date): Promise<void> {
  await db
    .updateTable("user_invitations")
    .set({ expires_at: at })
    .where("tenant_id", "=", tenantId)
    .where("user_id", "=", userId)
    .where("used_at", "is", null)
    .where("expires_at", ">", at)
    .execute();
}

export async function useInvitation(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable("user_invitations").set({ used_at: at }).where("id", "=", id).execute();
}

/**
 * An invited user accepted: its password, and it is active. Only from `invited` (a deactivation
 * may have come in between); false when the user was not invited any more.
 */
export async function activateInvitedUser(
  db: Db,
  tenantId: string,
  id: string,
  changes: { password_hash: string; activated_at: Date },
): Promise<boolean> {
  const result = await db
    .updateTable("users")
    .set({ ...changes, status: "active" })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .where("status", "=", "invited")
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function insertPasswordReset(db: Db, reset: Insertable<PasswordResetsTable>): Promise<void> {
  await db.insertInto("password_resets").values(reset).execute();
}

/**
 * A password reset with its user's status and its tenant's status. `lock` (inside a transaction)
 * locks it until commit, so that it is used once.
 */
export function findPasswordReset(db: Db, id: string, lock = false) {
  const query = db
    .selectFrom("password_resets as r")
    .innerJoin("users as u", (join) =>
      join.onRef("u.tenant_id", "=", "r.tenant_id").onRef("u.id", "=", "r.user_id"),
    )
    .innerJoin("tenants as t", "t.id", "r.tenant_id")
    .select([
      "r.id",
      "r.tenant_id",
      "r.user_id",
      "r.secret_hash",
      "r.expires_at",
      "r.used_at",
      "u.status as user_status",
      "t.status as tenant_status",
    ])
    .where("r.id", "=", id);
  return (lock ? query.forUpdate("r") : query).executeTakeFirst();
}

export async function usePasswordReset(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable("password_resets").set({ used_at: at }).where("id", "=", id).execute();
}
