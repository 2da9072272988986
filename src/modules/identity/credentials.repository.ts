import { sql, type Insertable, type Kysely } from "kysely";
import { creationPage, type CreationPosition, type ListOrder } from "../../platform/db/creation-order.js";
import type { Database } from "../../platform/db/database.js";
import { createLookupById } from "../../platform/db/statement-batcher.js";
import { roleScopeRows } from "./users/roles.js";
import type { CredentialKind, CredentialsTable, IdentityTables, TenantsTable } from "./identity.tables.js";

type Db = Kysely<IdentityTables>;

/** A credential with its tenant's current columns, as every authentication reads it. */
export interface CredentialWithTenant {
  id: string;
  kind: CredentialKind;
  principal_id: string;
  name: string;
  secret_hash: Uint8Array;
  scopes: CredentialsTable["scopes"];
  connection_ids: string[] | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  tenant_id: string;
  tenant_slug: string;
  tenant_type: TenantsTable["type"];
  tenant_status: TenantsTable["status"];
  /** Sessions only: the user's current role and status (null for other credentials). */
  user_role: "owner" | "admin" | "viewer" | null;
  user_status: "invited" | "active" | "deactivated" | null;
  /** Sessions: when last used (to the minute), its creation when never recorded; null for other kinds. */
  last_used_at: Date | null;
}

/**
 * A session's scopes are its user's CURRENT role's (rules/contract §7: a role change applies from the
 * next request on), from the role table of users/roles.ts spelled as SQL once; other credentials
 * keep the scopes they were issued with.
 */
const roleScopesSql = `CASE t.type || ':' || u.role ${roleScopeRows()
  .map(({ tenantType, role, scopes }) => `WHEN '${tenantType}:${role}' THEN '{${scopes.join(",")}}'::text[]`)
  .join(" ")} ELSE '{}'::text[] END`;

/**
 * Tenant statuses whose credentials are refused as if unknown: provisioning failed, or the tenant
 * is suspended (rules/contract §7). Every credential check reads it: the bearer checks here (in the
 * process and in the statements of the hot paths) and the service credentials' (`tenantAdmitsCredentialsSql`).
 */
export const refusedTenantStatuses: readonly TenantsTable["status"][] = ["failed", "suspended"];
const refusedStatusesSql = refusedTenantStatuses.map((status) => `'${status}'`).join(", ");

/**
 * A boolean SQL expression: the tenant whose id is `tenantIdSql` (a column or parameter of the
 * caller's statement) admits credentials. For another module's credential lookup (the service
 * credentials of entitlements), so that nobody else spells the tenants table's columns.
 */
export const tenantAdmitsCredentialsSql = (tenantIdSql: string): string =>
  `EXISTS (SELECT 1 FROM tenants AS admitting WHERE admitting.id = ${tenantIdSql}
    AND admitting.status NOT IN (${refusedStatusesSql}))`;

/** The columns of `CredentialWithTenant`, from `credentials AS c` and `tenants AS t`. */
const credentialColumns = `c.id, c.kind, c.principal_id, c.name, c.secret_hash,
    CASE WHEN c.kind = 'session' THEN ${roleScopesSql} ELSE c.scopes END AS scopes, c.connection_ids,
    c.expires_at, c.revoked_at, t.id AS tenant_id, t.slug AS tenant_slug, t.type AS tenant_type,
    t.status AS tenant_status, u.role AS user_role, u.status AS user_status,
    CASE WHEN c.kind = 'session' THEN COALESCE(c.last_used_at, c.created_at) END AS last_used_at`;

/** The user of a session credential (`credentials AS c`), none for other kinds. */
const sessionUserJoin = `LEFT JOIN users AS u
    ON c.kind = 'session' AND u.tenant_id = c.tenant_id AND u.id = c.principal_id`;

/**
 * The credential row as the database returns it to a hot path: ONE json column (`credential`)
 * rather than thirteen. The drivers build a parser and an object field per returned column on
 * every execution; one JSON text parsed natively cost 9 µs less per request in the process
 * (measured on PostgreSQL, docs/decisions.md). `credentialFromJson` gives the row its types back.
 */
export const credentialJsonColumn = "to_json(credential) AS credential";

type CredentialJson = Omit<
  CredentialWithTenant,
  "secret_hash" | "expires_at" | "revoked_at" | "last_used_at"
> & {
  secret_hash: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
};

/** The typed row from the `credential` column of a result row; undefined when it is null. */
export function credentialFromJson(value: unknown): CredentialWithTenant | undefined {
  if (value === null || value === undefined) return undefined;
  const json = (typeof value === "string" ? JSON.parse(value) : value) as CredentialJson;
  if (!json.id) return undefined;
  return {
    ...json,
    // bytea in JSON is its hex form, `\x…`.
    secret_hash: Buffer.from(json.secret_hash.slice(2), "hex"),
    expires_at: json.expires_at === null ? null : new Date(json.expires_at),
    revoked_at: json.revoked_at === null ? null : new Date(json.revoked_at),
    last_used_at: json.last_used_at === null ? null : new Date(json.last_used_at),
  };
}

/**
 * The credential lookup of every authenticated request. Lookups that arrive together share one
 * statement (`createLookupById`: ids as one JSON parameter, a row per id in their order),
 * so under load one round trip serves many requests.
 */
export function createCredentialLookup(
  database: Database<IdentityTables>,
): (id: string) => Promise<CredentialWithTenant | undefined> {
  return createLookupById(
    database,
    {
      name: "hanse_credential_lookup",
      relation: `SELECT ${credentialColumns}
  FROM credentials AS c INNER JOIN tenants AS t ON t.id = c.tenant_id
  ${sessionUserJoin}`,
      alias: "credential",
      maxItems: 64,
    },
    credentialFromJson,
  );
}

let rowsCheck: { input: string; sql: string } | undefined;

/**
 * The credential check of a statement that serves many requests (`RowCredentialCheck.rowsSql`),
 * one credential per row of `input`, each row with its own bearer, presented secret hash,
 * admissible kinds, time, required scopes and tenant (null: any). `credential` holds the same
 * columns as the lookup above; `authorized` has a row only when every condition the process
 * checks on that row holds as well.
 */
/** The check values' columns (`RowCredentialCheck.rowsSql(…).values`), JSON to typed. */
export const credentialCheckValueColumns = {
  types:
    "credential_id uuid, presented text, kinds text, now timestamptz, idle_since timestamptz, scopes text, tenant_id uuid",
  select: `i.credential_id, decode(i.presented, 'hex') AS presented, i.kinds::text[] AS kinds, i.now,
    i.idle_since, i.scopes::text[] AS scopes, i.tenant_id`,
} as const;

export function credentialRowsCheckSql(input: string): string {
  if (rowsCheck?.input === input) return rowsCheck.sql;
  const sql = `credential AS (
  SELECT i.ord, ${credentialColumns}
  FROM ${input} AS i
  INNER JOIN credentials AS c ON c.id = i.credential_id
  INNER JOIN tenants AS t ON t.id = c.tenant_id
  ${sessionUserJoin}
), authorized AS (
  SELECT i.ord, c.tenant_id FROM credential AS c INNER JOIN ${input} AS i ON i.ord = c.ord
  WHERE c.secret_hash = i.presented AND c.kind = ANY (i.kinds) AND c.revoked_at IS NULL
    AND (c.expires_at IS NULL OR c.expires_at > i.now) AND c.tenant_status NOT IN (${refusedStatusesSql})
    AND (c.kind <> 'session' OR (c.user_status = 'active' AND c.last_used_at >= i.idle_since))
    AND c.scopes @> i.scopes AND (i.tenant_id IS NULL OR c.tenant_id = i.tenant_id)
)`;
  rowsCheck = { input, sql };
  return sql;
}

export function listTenants(db: Db, limit: number, after?: CreationPosition, order?: ListOrder) {
  return creationPage(db.selectFrom("tenants").selectAll(), limit, after, order).execute();
}

export function findTenant(db: Db, id: string) {
  return db.selectFrom("tenants").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findTenantBySlug(db: Db, slug: string) {
  return db.selectFrom("tenants").selectAll().where("slug", "=", slug).executeTakeFirst();
}

export function findSystemTenant(db: Db) {
  return db.selectFrom("tenants").selectAll().where("type", "=", "system").executeTakeFirst();
}

export async function insertTenant(db: Db, tenant: TenantsTable): Promise<void> {
  await db.insertInto("tenants").values(tenant).execute();
}

/** Locks the tenant's row until the caller's transaction ends (a suspension and a resumption in turn). */
export function lockTenant(db: Db, id: string) {
  return db.selectFrom("tenants").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
}

export async function setTenantStatus(db: Db, id: string, status: TenantsTable["status"], at: Date) {
  await db.updateTable("tenants").set({ status, updated_at: at }).where("id", "=", id).execute();
}

/** Moves a bootstrap access token (its own principal) to another id; nothing when there is none. */
export async function rekeyCredential(db: Db, from: string, to: string): Promise<void> {
  await db
    .updateTable("credentials")
    .set({ id: to, principal_id: to })
    .where("id", "=", from)
    .where("principal_id", "=", from)
    .where("kind", "=", "access_token")
    .execute();
}

export async function insertCredential(db: Db, credential: Insertable<CredentialsTable>): Promise<void> {
  await db.insertInto("credentials").values(credential).execute();
}

const credentialListColumns = [
  "id",
  "name",
  "scopes",
  "principal_id",
  "created_by",
  "created_at",
  "expires_at",
  "revoked_at",
  "connection_ids",
] as const;

export function listCredentials(
  db: Db,
  tenantId: string,
  kind: CredentialKind,
  limit: number,
  after?: CreationPosition,
  order?: ListOrder,
  /** Only this principal's (a partner's API keys: index credentials_api_keys_by_partner). */
  principalId?: string,
) {
  let query = db
    .selectFrom("credentials")
    .select(credentialListColumns)
    .where("tenant_id", "=", tenantId)
    .where("kind", "=", kind);
  if (principalId !== undefined) query = query.where("principal_id", "=", principalId);
  return creationPage(query, limit, after, order).execute();
}

export function findCredential(db: Db, tenantId: string, kind: CredentialKind, id: string) {
  return db
    .selectFrom("credentials")
    .select(credentialListColumns)
    .where("tenant_id", "=", tenantId)
    .where("kind", "=", kind)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** Revokes a credential; true when this call revoked it (false: unknown or revoked already). */
export async function revokeCredential(
  db: Db,
  tenantId: string,
  kind: CredentialKind,
  id: string,
  at: Date,
): Promise<boolean> {
  const revoked = await db
    .updateTable("credentials")
    .set({ revoked_at: at })
    .where("tenant_id", "=", tenantId)
    .where("kind", "=", kind)
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .returning("id")
    .executeTakeFirst();
  return revoked !== undefined;
}

/** Ends every open session of a user (a deactivation: rules/contract §7); the ids of those it ended. */
export async function revokeUserSessions(
  db: Db,
  tenantId: string,
  userId: string,
  at: Date,
  exceptSessionId?: string,
): Promise<string[]> {
  let query = db
    .updateTable("credentials")
    .set({ revoked_at: at })
    .where("tenant_id", "=", tenantId)
    .where("kind", "=", "session")
    .where("principal_id", "=", userId)
    .where("revoked_at", "is", null);
  if (exceptSessionId !== undefined) query = query.where("id", "<>", exceptSessionId);
  const ended = await query.returning("id").execute();
  return ended.map((row) => row.id);
}

/**
 * The open sessions of one user, oldest first: not revoked, not expired, and used since
 * `idleSince` (a session idle longer is refused, so it is not listed either).
 */
export function listUserSessions(
  db: Db,
  tenantId: string,
  userId: string,
  open: { now: Date; idleSince: Date },
  limit: number,
  after?: CreationPosition,
  order?: ListOrder,
) {
  const query = db
    .selectFrom("credentials")
    .select(["id", "method", "created_at", "expires_at"])
    .select(sql<Date>`COALESCE(last_used_at, created_at)`.as("last_used_at"))
    .where("tenant_id", "=", tenantId)
    .where("kind", "=", "session")
    .where("principal_id", "=", userId)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", open.now)
    .where(sql<boolean>`COALESCE(last_used_at, created_at) >= ${open.idleSince}`);
  return creationPage(query, limit, after, order).execute();
}

/**
 * Ends one open session of one user (the user is part of the condition: another user's session
 * is not found). False when there is none: unknown, another user's, or already ended.
 */
export async function endUserSession(
  db: Db,
  tenantId: string,
  userId: string,
  sessionId: string,
  open: { now: Date; idleSince: Date },
): Promise<boolean> {
  const result = await db
    .updateTable("credentials")
    .set({ revoked_at: open.now })
    .where("tenant_id", "=", tenantId)
    .where("kind", "=", "session")
    .where("principal_id", "=", userId)
    .where("id", "=", sessionId)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", open.now)
    .where(sql<boolean>`COALESCE(last_used_at, created_at) >= ${open.idleSince}`)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Records that a session was used at `at`, unless a use at or after `recordedSince` is already
 * recorded (so that concurrent requests, or several processes, write it once a minute at most).
 */
export async function touchSession(db: Db, id: string, at: Date, recordedSince: Date): Promise<void> {
  await db
    .updateTable("credentials")
    .set({ last_used_at: at })
    .where("id", "=", id)
    .where("kind", "=", "session")
    .where(sql<boolean>`COALESCE(last_used_at, created_at) < ${recordedSince}`)
    .execute();
}
