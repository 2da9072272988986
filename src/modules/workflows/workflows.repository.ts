import type { Insertable, Kysely, Transaction } from "kysely";
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

export interface PagePosition {
  createdAt: string;
  id: string;
}

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
  options: { limit: number; kind?: string | undefined; after?: PagePosition | undefined },
) {
  let query = db.selectFrom("workflow_entities").selectAll().where("tenant_id", "=", tenantId);
  if (options.kind !== undefined) query = query.where("kind", "=", options.kind);
  const after = options.after;
  if (after) {
    const at = new Date(after.createdAt);
    query = query.where((eb) =>
      eb.or([eb("created_at", ">", at), eb.and([eb("created_at", "=", at), eb("id", ">", after.id)])]),
    );
  }
  return query
    .orderBy("created_at")
    .orderBy("id")
    .limit(options.limit + 1)
    .execute();
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

export function listAdapters(db: Db, tenantId: string, limit: number, after?: PagePosition) {
  let query = db.selectFrom("workflow_lifecycle_adapters").selectAll().where("tenant_id", "=", tenantId);
  if (after) {
    const at = new Date(after.createdAt);
    query = query.where((eb) =>
      eb.or([eb("created_at", ">", at), eb.and([eb("created_at", "=", at), eb("id", ">", after.id)])]),
    );
  }
  return query
    .orderBy("created_at")
    .orderBy("id")
    .limit(limit + 1)
    .execute();
}
