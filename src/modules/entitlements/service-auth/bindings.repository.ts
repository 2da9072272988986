import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import type { sealedColumnsOf } from "../../../platform/crypto/index.js";
import { creationPage, type CreationPosition, type ListOrder } from "../../../platform/db/creation-order.js";
import type { Database } from "../../../platform/db/database.js";
import {
  createLookupById,
  createStatementBatcher,
  runJsonStatements,
} from "../../../platform/db/statement-batcher.js";
import { tenantAdmitsCredentialsSql } from "../../identity/index.js";
import type {
  EntitlementTables,
  ServiceBindingsTable,
  ServiceCredentialsTable,
} from "../entitlements.tables.js";

type Db = Kysely<EntitlementTables>;
type Trx = Transaction<EntitlementTables>;

// ---- service bindings and their credentials ----------------------------------------------------

export async function insertBinding(trx: Trx, row: Selectable<ServiceBindingsTable>): Promise<void> {
  await trx.insertInto("service_bindings").values(row).execute();
}

export const findBinding = (db: Db | Trx, tenantId: string, id: string) =>
  db
    .selectFrom("service_bindings")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();

/** Locks the binding row: rotations of one binding run one after another. */
export const lockBinding = (trx: Trx, tenantId: string, id: string) =>
  trx
    .selectFrom("service_bindings")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();

/** Marks the binding revoked (its row locked by `lockBinding`): its credentials are refused from then on. */
export async function revokeBinding(trx: Trx, tenantId: string, id: string, at: Date): Promise<void> {
  await trx
    .updateTable("service_bindings")
    .set({ revoked_at: at })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .execute();
}

/** Bindings, each with the id of its newest credential (the one a rotation issued last). */
const bindingsWithCredential = (db: Db, tenantId: string) =>
  db
    .selectFrom("service_bindings")
    .selectAll("service_bindings")
    .select((eb) =>
      eb
        .selectFrom("service_credentials")
        .select("service_credentials.id")
        .whereRef("service_credentials.tenant_id", "=", "service_bindings.tenant_id")
        .whereRef("service_credentials.binding_id", "=", "service_bindings.id")
        .orderBy("service_credentials.created_at", "desc")
        .orderBy("service_credentials.id", "desc")
        .limit(1)
        .$asScalar()
        // A binding's first credential is inserted in the binding's own transaction.
        .$notNull()
        .as("credential_id"),
    )
    .where("service_bindings.tenant_id", "=", tenantId);

export const findBindingWithCredential = (db: Db, tenantId: string, id: string) =>
  bindingsWithCredential(db, tenantId).where("service_bindings.id", "=", id).executeTakeFirst();

export const listBindings = (
  db: Db,
  tenantId: string,
  limit: number,
  after: CreationPosition | undefined,
  order?: ListOrder,
) => creationPage(bindingsWithCredential(db, tenantId), limit, after, order).execute();

export async function insertCredential(trx: Trx, row: Selectable<ServiceCredentialsTable>): Promise<void> {
  await trx.insertInto("service_credentials").values(row).execute();
}

/** Ends the validity of the binding's credentials that are still open-ended at `expiresAt`. */
export async function expireCredentials(trx: Trx, tenantId: string, bindingId: string, expiresAt: Date) {
  await trx
    .updateTable("service_credentials")
    .set({ expires_at: expiresAt })
    .where("tenant_id", "=", tenantId)
    .where("binding_id", "=", bindingId)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", expiresAt)]))
    .execute();
}

/** The newest credential of a binding (the one a rotation issued last). */
export const currentCredential = (db: Db | Trx, tenantId: string, bindingId: string) =>
  db
    .selectFrom("service_credentials")
    .select(["id", "created_at"])
    .where("tenant_id", "=", tenantId)
    .where("binding_id", "=", bindingId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();

export interface CredentialWithBinding {
  /** False when the binding is revoked or its tenant refuses credentials (suspended, failed). */
  admitted: boolean;
  id: string;
  tenant_id: string;
  binding_id: string;
  secret: string;
  expires_at: Date | null;
  app_id: string;
  audience: string;
  required_capabilities: string[];
}

const credentialFromJson = (value: unknown): CredentialWithBinding | undefined => {
  if (value === null || value === undefined) return undefined;
  const json = (typeof value === "string" ? JSON.parse(value) : value) as Omit<
    CredentialWithBinding,
    "expires_at"
  > & { expires_at: string | null };
  if (!json.id) return undefined;
  return { ...json, expires_at: json.expires_at === null ? null : new Date(json.expires_at) };
};

/**
 * The credential lookup of every signed request: a credential by its id, with its binding.
 * Lookups that arrive together share one prepared statement (`createLookupById`, as the
 * bearer credential lookup in identity.repository.ts), the row as one JSON column. Nothing is
 * cached: a rotation, expiry, revocation or tenant suspension counts from the next request on, in
 * every process (`admitted`: the binding is not revoked and its tenant admits credentials).
 */
export function createCredentialLookup(
  database: Database<EntitlementTables>,
): (id: string) => Promise<CredentialWithBinding | undefined> {
  return createLookupById(
    database,
    {
      name: "hanse_service_credential_lookup",
      relation: `SELECT c.id, c.tenant_id, c.binding_id, c.secret, c.expires_at, b.app_id, b.audience, b.required_capabilities,
    b.revoked_at IS NULL AND ${tenantAdmitsCredentialsSql("c.tenant_id")} AS admitted
  FROM service_credentials AS c
  INNER JOIN service_bindings AS b ON b.tenant_id = c.tenant_id AND b.id = c.binding_id`,
      alias: "credential",
      maxItems: 64,
    },
    credentialFromJson,
  );
}

// ---- nonces ------------------------------------------------------------------------------------

export interface NonceRecord {
  credentialId: string;
  nonce: string;
  expiresAt: Date;
}

/**
 * Records nonces insert-if-absent; each caller learns whether its nonce was fresh (false: the
 * credential used it before, a replay). Nonces that arrive together share one prepared statement
 * (`createStatementBatcher`); the same nonce twice in one batch goes to a later statement of it
 * (`runJsonStatements`), so the second one is a replay as it would be alone.
 */
export function createNonceRecorder(
  database: Database<EntitlementTables>,
): (record: NonceRecord) => Promise<boolean> {
  const text = `WITH i AS (
  SELECT * FROM json_to_recordset($1::json) AS i (ord integer, credential_id uuid, nonce text, expires_at timestamptz)
), inserted AS (
  INSERT INTO service_nonces (credential_id, nonce, expires_at)
  SELECT credential_id, nonce, expires_at FROM i
  ON CONFLICT (credential_id, nonce) DO NOTHING
  RETURNING credential_id, nonce
)
SELECT i.ord, inserted.nonce IS NOT NULL AS fresh
FROM i LEFT JOIN inserted ON inserted.credential_id = i.credential_id AND inserted.nonce = i.nonce`;
  const records = createStatementBatcher<NonceRecord, boolean>({
    lanes: database.tuning.statementLanes,
    maxItems: 64,
    runItems: (items) =>
      runJsonStatements<NonceRecord, { ord: number; fresh: boolean }, boolean>(
        database,
        { name: "hanse_service_nonce_record", text },
        items,
        {
          keyOf: (r) => `${r.credentialId} ${r.nonce}`,
          inputOf: (r) => ({
            credential_id: r.credentialId,
            nonce: r.nonce,
            expires_at: r.expiresAt.toISOString(),
          }),
          outcomeOf: (row) => row.fresh,
        },
      ),
  });
  return (record) => records.run(record);
}

export async function pruneNonces(db: Db, now: Date, batch = 5000): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    WITH gone AS (
      DELETE FROM service_nonces WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM service_nonces WHERE expires_at < ${now} LIMIT ${batch}))
      RETURNING 1)
    SELECT count(*)::integer AS n FROM gone`.execute(db);
  return rows[0]?.n ?? 0;
}

/** The service credentials' sealed secrets, for the key rotation (sealed-columns.ts). */
export const credentialSealedColumns: Parameters<typeof sealedColumnsOf>[2] = [
  [
    "service secret",
    "service_credentials",
    "id",
    "secret",
    (row, to) =>
      sql`UPDATE service_credentials SET secret = ${to}
      WHERE tenant_id = ${row.tenantId} AND id = ${row.id} AND secret = ${row.sealed}`,
  ],
];
