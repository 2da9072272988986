import { sql, type Insertable, type Kysely, type Transaction } from "kysely";
import {
  creationPage,
  keyPage,
  type CreationPosition,
  type ListOrder,
} from "../../platform/db/creation-order.js";
import type { RowCredentialCheck } from "../../platform/auth/index.js";
import { runJsonStatements } from "../../platform/db/statement-batcher.js";
import type { Database } from "../../platform/db/database.js";
import { claimCompletedRecordsSql, type CompletedRecord } from "../../platform/http/idempotency.js";
import { insertJobsSql, type NewJobRow } from "../../platform/jobs/index.js";
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

export function listDefinitions(
  db: Db,
  tenantId: string,
  limit: number,
  afterKind?: string,
  order?: ListOrder,
) {
  const query = db.selectFrom("workflow_definitions").selectAll().where("tenant_id", "=", tenantId);
  return keyPage(query, "kind", limit, afterKind, order).execute();
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
  options: {
    limit: number;
    kind?: string | undefined;
    after?: CreationPosition | undefined;
    order?: ListOrder | undefined;
  },
) {
  let query = db.selectFrom("workflow_entities").selectAll().where("tenant_id", "=", tenantId);
  if (options.kind !== undefined) query = query.where("kind", "=", options.kind);
  return creationPage(query, options.limit, options.after, options.order).execute();
}

/** Entities of a kind whose attribute `name` equals `value` (e.g. products by GTIN). */
export function findEntitiesByAttribute(db: Db, tenantId: string, kind: string, name: string, value: string) {
  return db
    .selectFrom("workflow_entities")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("kind", "=", kind)
    .where((eb) => eb(eb.ref("attributes", "->>").key(name), "=", value))
    .execute();
}

/**
 * The states of the tenant's products by GTIN (a product's `gtin` attribute), for the exchange
 * area's order checks: every product of a GTIN, so a GTIN may have several states.
 */
export async function findProductStates(
  db: Db,
  tenantId: string,
  gtins: readonly string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (gtins.length === 0) return out;
  // The literal 'gtin' matches the expression index workflow_entities_by_gtin.
  const rows = await sql<{ gtin: string; state: string }>`
    SELECT attributes ->> 'gtin' AS gtin, state FROM workflow_entities
    WHERE tenant_id = ${tenantId} AND kind = 'product' AND attributes ->> 'gtin' = ANY(${gtins}::text[])`.execute(
    db,
  );
  for (const row of rows.rows) out.set(row.gtin, [...(out.get(row.gtin) ?? []), row.state]);
  return out;
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

/** One transition request to accept: its credential check, idempotency record, row and job. */
export interface AcceptItem {
  check: RowCredentialCheck;
  record: CompletedRecord;
  request: NewTransitionRequest;
  job: NewJobRow;
}

/** A new request row (of the idempotency record's tenant). */
export interface NewTransitionRequest {
  id: string;
  entityKind: string;
  entityId: string;
  transition: string;
  /** JSON text. */
  payload: string;
}

/**
 * `claimed` when the statement created the item's request; false when its key was known or its
 * credential not authorized. `credentialRow` holds the credential row for `settle`.
 */
export interface AcceptOutcome {
  claimed: boolean;
  credentialRow: Record<string, unknown>;
}

/**
 * The accept of transition requests as ONE autocommit statement (one round trip, atomic) for any
 * number of items, which come as one JSON parameter (`input`, numbered by `ord`):
 *
 * - `credential` and `authorized`: each item's credential check (`Authenticator.rowsCheckSql`);
 *   nothing below is written for an item unless it authorizes;
 * - `claim`: the completed idempotency records (each item's first answer, precomputed in the
 *   process; `claimCompletedRecordsSql`); the unique key (tenant, endpoint, key hash) makes
 *   concurrent first requests wait for each other, and all but one insert nothing. Items are
 *   inserted in key order, so two statements waiting for each other's keys cannot deadlock;
 * - `request` and `job`: the request row and exactly one queue event (`insertJobsSql`), only for
 *   a claimed item;
 * - the final SELECT returns, per item, the credential's row (for the process to decide 401/403
 *   the same way) and whether its claim inserted.
 *
 * The keys of one statement must be distinct (see `acceptRequests`). When an item's claim did
 * not insert, the key is known: the caller reads the record in a NEW statement. (Under READ
 * COMMITTED a conflicting insert waits for the other transaction and then sees its row, but the
 * rest of this statement keeps its older snapshot, in which that row may not exist yet.)
 */
const acceptSql = (check: ReturnType<RowCredentialCheck["rowsSql"]>) => `
WITH input AS (
  SELECT i.ord, ${check.values.select}, i.endpoint, decode(i.key_hash, 'hex') AS key_hash,
    i.fingerprint, i.status_code, i.response_body, i.response_headers, i.created_at, i.expires_at,
    i.request_id, i.entity_kind, i.entity_id, i.transition, i.payload, i.job_id, i.job_tenant_id,
    i.job_name, i.job_key, i.job_payload, i.max_attempts, i.run_at, i.job_created_at, i.job_trace_context
  FROM json_to_recordset($1::json) AS i (
    ord integer, ${check.values.types}, endpoint text, key_hash text, fingerprint text, status_code integer,
    response_body text, response_headers text, created_at timestamptz, expires_at timestamptz,
    request_id uuid, entity_kind text, entity_id uuid, transition text, payload text,
    job_id uuid, job_tenant_id uuid, job_name text, job_key text, job_payload text,
    max_attempts integer, run_at timestamptz, job_created_at timestamptz, job_trace_context text)
), ${check.sql}, claim AS (
  ${claimCompletedRecordsSql("input AS i INNER JOIN authorized AS a ON a.ord = i.ord", {
    tenantId: "i.tenant_id",
    endpoint: "i.endpoint",
    keyHash: "i.key_hash",
    fingerprint: "decode(i.fingerprint, 'hex')",
    statusCode: "i.status_code",
    responseBody: "i.response_body",
    responseHeaders: "i.response_headers::jsonb",
    createdAt: "i.created_at",
    expiresAt: "i.expires_at",
  })}
), request AS (
  INSERT INTO workflow_transition_requests
    (tenant_id, id, entity_kind, entity_id, transition, payload, status, created_at, updated_at)
  SELECT i.tenant_id, i.request_id, i.entity_kind, i.entity_id, i.transition, i.payload::jsonb,
    'pending', i.created_at, i.created_at
  FROM claim AS c INNER JOIN input AS i
    ON i.tenant_id = c.tenant_id AND i.endpoint = c.endpoint AND i.key_hash = c.key_hash
  RETURNING tenant_id, id
), job AS (
  ${insertJobsSql(
    "request AS r INNER JOIN input AS i ON i.tenant_id = r.tenant_id AND i.request_id = r.id",
    {
      id: "i.job_id",
      tenantId: "i.job_tenant_id",
      name: "i.job_name",
      key: "i.job_key",
      payload: "i.job_payload::jsonb",
      maxAttempts: "i.max_attempts",
      runAt: "i.run_at",
      createdAt: "i.job_created_at",
      traceContext: "i.job_trace_context::jsonb",
    },
    "id",
  )}
)
SELECT i.ord, ${check.returning}, i.job_id IN (SELECT id FROM job) AS claimed
FROM input AS i LEFT JOIN credential ON credential.ord = i.ord
ORDER BY i.ord`;

let accept = { check: "", text: "" };

const iso = (at: Date): string => at.toISOString();

function inputOf(item: AcceptItem) {
  const { check, record, request, job } = item;
  return {
    ...check.values,
    // Also the tenant the credential check binds: the record is written only for its own tenant.
    tenant_id: record.tenantId,
    endpoint: record.endpoint,
    key_hash: record.keyHash.toString("hex"),
    fingerprint: record.fingerprint.toString("hex"),
    status_code: record.statusCode,
    response_body: record.responseBody,
    response_headers: record.responseHeaders,
    created_at: iso(record.createdAt),
    expires_at: iso(record.expiresAt),
    request_id: request.id,
    entity_kind: request.entityKind,
    entity_id: request.entityId,
    transition: request.transition,
    payload: request.payload,
    job_id: job.id,
    job_tenant_id: job.tenantId,
    job_name: job.name,
    job_key: job.key,
    job_payload: job.payload,
    max_attempts: job.maxAttempts,
    run_at: iso(job.runAt),
    job_created_at: iso(job.createdAt),
    job_trace_context: job.traceContext ?? null,
  };
}

/**
 * Accepts `items` with as few runs of the statement above (prepared once per connection) as their
 * keys allow (`runJsonStatements`). Outcomes come in the items' order.
 */
export async function acceptRequests(
  database: Database,
  items: readonly AcceptItem[],
): Promise<AcceptOutcome[]> {
  const first = items[0];
  if (!first) return [];
  const rowsCheck = first.check.rowsSql("input");
  if (accept.check !== rowsCheck.sql) accept = { check: rowsCheck.sql, text: acceptSql(rowsCheck) };
  return runJsonStatements<AcceptItem, Record<string, unknown>, AcceptOutcome>(
    database,
    { name: "hanse_workflow_accept", text: accept.text },
    items,
    {
      keyOf: ({ record }) => `${record.tenantId}\n${record.endpoint}\n${record.keyHash.toString("hex")}`,
      inputOf,
      outcomeOf: (row) => ({ claimed: row.claimed === true, credentialRow: row }),
    },
  );
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

/** The tenant's transition requests in creation order, optionally of one entity and of some statuses. */
export function listRequests(
  db: Db,
  tenantId: string,
  options: {
    limit: number;
    entityId?: string | undefined;
    statuses?: readonly string[] | undefined;
    after?: CreationPosition | undefined;
    order?: ListOrder | undefined;
  },
) {
  let query = db.selectFrom("workflow_transition_requests").selectAll().where("tenant_id", "=", tenantId);
  if (options.entityId !== undefined) query = query.where("entity_id", "=", options.entityId);
  if (options.statuses !== undefined) {
    query = query.where("status", "in", options.statuses as WorkflowTransitionRequestsTable["status"][]);
  }
  return creationPage(query, options.limit, options.after, options.order).execute();
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

export function listAdapters(
  db: Db,
  tenantId: string,
  limit: number,
  after?: CreationPosition,
  order?: ListOrder,
) {
  const query = db.selectFrom("workflow_lifecycle_adapters").selectAll().where("tenant_id", "=", tenantId);
  return creationPage(query, limit, after, order).execute();
}
