import type { Insertable, Kysely, Transaction } from "kysely";
import { creationPage, type CreationPosition } from "../../platform/db/creation-order.js";
import type { StatementCredentialCheck } from "../../platform/auth/index.js";
import type { Database } from "../../platform/db/database.js";
import type { CompletedRecord } from "../../platform/http/idempotency.js";
import type { NewJobRow } from "../../platform/jobs/index.js";
import type { WorkflowDefinition } from "./workflow-rules.js";
import type {
  TransitionError,
  TransitionResult,
  WorkflowEntitiesTable,
  WorkflowLifecycleAdaptersTable,
  WorkflowTables,
  WorkflowTransitionRequestsTable,
} from "./workflows.tables.js";

type Db = Kysely<WorkflowTables>;
type Trx = Transaction<WorkflowTables>;

// ---- definitions -------------------------------------------------------------------------------

/** Inserts a definition; false when the tenant already has one for this kind. */
export async function insertDefinition(
  db: Db,
  tenantId: string,
  definition: WorkflowDefinition,
  at: Date,
): Promise<boolean> {
  const inserted = await db
    .insertInto("workflow_definitions")
    .values({
      tenant_id: tenantId,
      kind: definition.kind,
      states: JSON.stringify(definition.states),
      initial_state: definition.initialState,
      transitions: JSON.stringify(definition.transitions),
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) => oc.columns(["tenant_id", "kind"]).doNothing())
    .returning("kind")
    .executeTakeFirst();
  return inserted !== undefined;
}

export function findDefinition(db: Db, tenantId: string, kind: string) {
  return db
    .selectFrom("workflow_definitions")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("kind", "=", kind)
    .executeTakeFirst();
}

export function listDefinitions(db: Db, tenantId: string, limit: number, afterKind?: string) {
  let query = db.selectFrom("workflow_definitions").selectAll().where("tenant_id", "=", tenantId);
  if (afterKind !== undefined) query = query.where("kind", ">", afterKind);
  return query
    .orderBy("kind")
    .limit(limit + 1)
    .execute();
}

// ---- entities ----------------------------------------------------------------------------------

export async function insertEntity(db: Db, entity: Insertable<WorkflowEntitiesTable>): Promise<void> {
  await db.insertInto("workflow_entities").values(entity).execute();
}

export function findEntity(db: Db, tenantId: string, id: string) {
  return db
    .selectFrom("workflow_entities")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export function listEntities(
  db: Db,
  tenantId: string,
  options: { limit: number; kind?: string | undefined; after?: CreationPosition | undefined },
) {
  let query = db.selectFrom("workflow_entities").selectAll().where("tenant_id", "=", tenantId);
  if (options.kind !== undefined) query = query.where("kind", "=", options.kind);
  return creationPage(query, options.limit, options.after).execute();
}

/** Entities of a kind whose attribute `name` equals `value` (e.g. products by GTIN). */
export function findEntitiesByAttribute(db: Db, tenantId: string, kind: string, name: string, value: string) {
  return db
    .selectFrom("workflow_entities")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("kind", "=", kind)
    .where((eb) => eb(eb.ref("attributes", "->>").key(name as never), "=", value))
    .execute();
}

/**
 * Moves an entity to `state` only if it still has `expectedVersion` (optimistic concurrency).
 * Returns the new version, or undefined when someone else changed the entity first.
 */
export async function updateEntityState(
  trx: Trx,
  key: { tenantId: string; id: string; expectedVersion: number },
  state: string,
  at: Date,
): Promise<number | undefined> {
  const updated = await trx
    .updateTable("workflow_entities")
    .set((eb) => ({ state, version: eb("version", "+", 1), updated_at: at }))
    .where("tenant_id", "=", key.tenantId)
    .where("id", "=", key.id)
    .where("version", "=", key.expectedVersion)
    .returning("version")
    .executeTakeFirst();
  return updated?.version;
}

// ---- transition requests -----------------------------------------------------------------------

/**
 * The accept of a transition request as ONE autocommit statement (one round trip, atomic):
 *
 * - `credential` and `authorized`: the caller's credential check (`StatementCredentialCheck`,
 *   parameters after the 22 of the accept); nothing below is written unless it authorizes;
 * - `claim`: the completed idempotency record (the first answer, precomputed in the process);
 *   the unique key (tenant, endpoint, key hash) makes concurrent first requests wait for each
 *   other, and all but one insert nothing;
 * - `request` and `job`: the request row and exactly one queue event, only if the claim inserted;
 * - the final SELECT returns the credential's row (for the process to decide 401/403 the same
 *   way) and whether the claim inserted.
 *
 * When it did not, the key is known: the caller reads the record in a NEW statement. (Under READ
 * COMMITTED a conflicting insert waits for the other transaction and then sees its row, but the
 * rest of this statement keeps its older snapshot, in which that row may not exist yet.)
 * Idle workers are woken by the caller after the commit (see `createJobNotifier`).
 */
export const acceptParameterCount = 22;
const acceptSql = (check: Pick<StatementCredentialCheck, "sql" | "returning">) => `
WITH ${check.sql}, claim AS (
  INSERT INTO idempotency_records
    (tenant_id, endpoint, key_hash, fingerprint, status_code, response_body, response_headers,
     created_at, expires_at)
  SELECT $1::uuid, $2::text, $3::bytea, $4::bytea, $5::integer, $6::text, $7::jsonb,
    $8::timestamptz, $9::timestamptz
  FROM authorized
  ON CONFLICT (tenant_id, endpoint, key_hash) DO NOTHING
  RETURNING tenant_id
), request AS (
  INSERT INTO workflow_transition_requests
    (tenant_id, id, entity_kind, entity_id, transition, payload, status, created_at, updated_at)
  SELECT tenant_id, $10::uuid, $11::text, $12::uuid, $13::text, $14::jsonb, 'pending',
    $8::timestamptz, $8::timestamptz
  FROM claim
  RETURNING tenant_id
), job AS (
  INSERT INTO jobs
    (id, tenant_id, name, key, payload, state, attempts, max_attempts, run_at, created_at, updated_at)
  SELECT $15::uuid, $16::uuid, $17::text, $18::text, $19::jsonb, 'queued', 0, $20::integer,
    $21::timestamptz, $22::timestamptz, $22::timestamptz
  FROM request
  RETURNING id
)
SELECT ${check.returning}, (SELECT count(*) FROM job)::integer AS claimed
FROM (SELECT 1) AS one LEFT JOIN credential ON true`;

/** A new request row (of the idempotency record's tenant). */
export interface NewTransitionRequest {
  id: string;
  entityKind: string;
  entityId: string;
  transition: string;
  /** JSON text. */
  payload: string;
}

let accept = { check: "", text: "" };

/**
 * Runs the accept statement above, prepared once per connection: `claimed` when this call created
 * the request, false when the key was known or the credential not authorized.
 */
export async function acceptRequest(
  database: Database,
  check: StatementCredentialCheck,
  record: CompletedRecord,
  request: NewTransitionRequest,
  job: NewJobRow,
): Promise<{ claimed: boolean; credentialRow: Record<string, unknown> }> {
  // The check's text is the same on every call (it depends on its first parameter number only).
  if (accept.check !== check.sql) accept = { check: check.sql, text: acceptSql(check) };
  const rows = await database.prepared<Record<string, unknown>>("hanse_workflow_accept", accept.text, [
    record.tenantId,
    record.endpoint,
    record.keyHash,
    record.fingerprint,
    record.statusCode,
    record.responseBody,
    record.responseHeaders,
    record.createdAt,
    record.expiresAt,
    request.id,
    request.entityKind,
    request.entityId,
    request.transition,
    request.payload,
    job.id,
    job.tenantId,
    job.name,
    job.key,
    job.payload,
    job.maxAttempts,
    job.runAt,
    job.createdAt,
    ...check.parameters,
  ]);
  const row = rows[0] ?? {};
  return { claimed: Number(row.claimed ?? 0) > 0, credentialRow: row };
}

export async function insertRequest(
  db: Db,
  request: Insertable<WorkflowTransitionRequestsTable>,
): Promise<void> {
  await db.insertInto("workflow_transition_requests").values(request).execute();
}

export function findRequest(db: Db, tenantId: string, id: string) {
  return db
    .selectFrom("workflow_transition_requests")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** Locks the request: whoever holds it is the only one deciding its outcome. */
export function lockRequest(trx: Trx, tenantId: string, id: string) {
  return trx
    .selectFrom("workflow_transition_requests")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
}

export async function markRequestProcessing(trx: Trx, tenantId: string, id: string, at: Date) {
  await trx
    .updateTable("workflow_transition_requests")
    .set({ status: "processing", updated_at: at })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .where("status", "=", "pending")
    .execute();
}

export async function completeRequest(
  trx: Trx,
  tenantId: string,
  id: string,
  outcome:
    | { status: "succeeded"; result: TransitionResult; appliedVersion: number }
    | { status: "failed"; error: TransitionError },
  at: Date,
) {
  await trx
    .updateTable("workflow_transition_requests")
    .set({
      status: outcome.status,
      result: outcome.status === "succeeded" ? JSON.stringify(outcome.result) : null,
      error: outcome.status === "failed" ? JSON.stringify(outcome.error) : null,
      applied_version: outcome.status === "succeeded" ? outcome.appliedVersion : null,
      completed_at: at,
      updated_at: at,
    })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .where("status", "in", ["pending", "processing"])
    .execute();
}

// ---- lifecycle adapters ------------------------------------------------------------------------

export async function insertAdapter(db: Db, adapter: WorkflowLifecycleAdaptersTable): Promise<boolean> {
  const inserted = await db
    .insertInto("workflow_lifecycle_adapters")
    .values(adapter)
    .onConflict((oc) => oc.columns(["tenant_id", "kind"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  return inserted !== undefined;
}

export function findAdapterForKind(db: Db, tenantId: string, kind: string) {
  return db
    .selectFrom("workflow_lifecycle_adapters")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("kind", "=", kind)
    .executeTakeFirst();
}

export function findAdapter(db: Db, tenantId: string, id: string) {
  return db
    .selectFrom("workflow_lifecycle_adapters")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export function listAdapters(db: Db, tenantId: string, limit: number, after?: CreationPosition) {
  const query = db.selectFrom("workflow_lifecycle_adapters").selectAll().where("tenant_id", "=", tenantId);
  return creationPage(query, limit, after).execute();
}
