import type { Selectable, Transaction } from "kysely";
import type { DeferredCredential, Principal } from "../../platform/auth/index.js";
import { isUuid } from "../../platform/crypto/index.js";
import type { CreationPosition } from "../../platform/db/creation-order.js";
import { createStatementBatcher } from "../../platform/db/statement-batcher.js";
import { AppError } from "../../platform/errors/app-error.js";
import { pageOf, toCreationPosition } from "../../platform/http/cursor.js";
import { canonicalJson, type IdempotentOutcome } from "../../platform/http/idempotency.js";
import { createJobNotifier } from "../../platform/jobs/index.js";
import type { ModuleDeps } from "../module.js";
import { defaultDefinitions, definitionProblems, type WorkflowDefinition } from "./workflow-rules.js";
import * as repo from "./workflows.repository.js";
import type {
  WorkflowDefinitionsTable,
  WorkflowEntitiesTable,
  WorkflowTables,
  WorkflowTransitionRequestsTable,
} from "./workflows.tables.js";

export const transitionJobName = "workflows.transition";
export const transitionRequestsHref = "/api/v1/workflows/transition-requests";
export const transitionEndpoint = `POST ${transitionRequestsHref}`;
export const statusUrlFor = (requestId: string): string => `${transitionRequestsHref}/${requestId}`;
/** Seconds a client should wait before reading a status that is not terminal yet. */
export const statusRetryAfterSeconds = 1;

/** What the module receives from the composition root, less the configuration. */
export type WorkflowsDeps = Omit<ModuleDeps, "config">;

export interface TransitionRequestInput {
  entity: string;
  entityId: string;
  transition: string;
  payload?: Record<string, unknown>;
}

export const toDefinition = (row: Selectable<WorkflowDefinitionsTable>): WorkflowDefinition => ({
  kind: row.kind,
  states: row.states,
  initialState: row.initial_state,
  transitions: row.transitions,
});

const toDefinitionDocument = (row: Selectable<WorkflowDefinitionsTable>) => ({
  ...toDefinition(row),
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const toEntity = (row: Selectable<WorkflowEntitiesTable>) => ({
  id: row.id,
  kind: row.kind,
  state: row.state,
  version: row.version,
  attributes: row.attributes,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export const toStatusDocument = (row: Selectable<WorkflowTransitionRequestsTable>) => ({
  requestId: row.id,
  status: row.status,
  entity: row.entity_kind,
  entityId: row.entity_id,
  transition: row.transition,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
  completedAt: row.completed_at ? row.completed_at.toISOString() : null,
  result: row.result,
  error: row.error,
});

/** The tenant a request names (`X-Tenant-ID`) must be the credential's: else 403. */
export function requireTenant(principal: Principal, tenantId: string): void {
  if (principal.tenant.id.toLowerCase() !== tenantId.toLowerCase()) {
    throw new AppError("ERR_FORBIDDEN", "The X-Tenant-ID header does not name the credential's tenant.");
  }
}

/** Requests one accept statement takes at most. */
const acceptBatchItems = 64;

export function createWorkflowsService(deps: WorkflowsDeps) {
  const database = deps.database.as<WorkflowTables>();
  const db = database.db;
  const wakeWorkers = createJobNotifier(database);
  const accepts = createStatementBatcher<repo.AcceptItem, repo.AcceptOutcome>({
    lanes: database.tuning.statementLanes,
    maxItems: acceptBatchItems,
    runItems: (items) => repo.acceptRequests(deps.database, items),
  });

  return {
    /** Provisioning step: the default definitions of a new tenant (idempotent). */
    async provisionDefaults(trx: Transaction<unknown>, tenantId: string): Promise<void> {
      const now = deps.clock.now();
      for (const definition of defaultDefinitions) {
        await repo.insertDefinition(trx as unknown as Transaction<WorkflowTables>, tenantId, definition, now);
      }
    },

    async listDefinitions(principal: Principal, options: { limit: number; cursor?: string | undefined }) {
      const binding = `admin.workflowDefinitions:${principal.tenant.id}`;
      const after = options.cursor
        ? deps.cursors.decode<{ kind: string }>(binding, options.cursor)
        : undefined;
      const rows = await repo.listDefinitions(db, principal.tenant.id, options.limit, after?.kind);
      const { items, meta } = pageOf(deps.cursors, binding, rows, options.limit, (last) => ({
        kind: last.kind,
      }));
      return { items: items.map(toDefinitionDocument), meta };
    },

    async getDefinition(principal: Principal, kind: string) {
      const row = await repo.findDefinition(db, principal.tenant.id, kind);
      if (!row) throw new AppError("ERR_NOT_FOUND", "No workflow definition for this entity kind.");
      return toDefinitionDocument(row);
    },

    /** A new entity kind with its workflow; definitions are never changed once entities may use them. */
    async createDefinition(principal: Principal, body: WorkflowDefinition) {
      const problems = definitionProblems(body);
      if (problems.length > 0) {
        throw new AppError("ERR_VALIDATION", "The workflow definition is inconsistent.", {
          errors: problems,
        });
      }
      const inserted = await repo.insertDefinition(db, principal.tenant.id, body, deps.clock.now());
      if (!inserted) throw new AppError("ERR_CONFLICT", "The tenant already has a workflow for this kind.");
      return this.getDefinition(principal, body.kind);
    },

    async createEntity(principal: Principal, body: { kind: string; attributes: Record<string, unknown> }) {
      const definition = await repo.findDefinition(db, principal.tenant.id, body.kind);
      if (!definition) {
        throw new AppError("ERR_VALIDATION", "The tenant has no workflow for this entity kind.", {
          errors: [{ pointer: "/kind", message: "no workflow definition for this kind" }],
        });
      }
      const now = deps.clock.now();
      const row = {
        tenant_id: principal.tenant.id,
        id: deps.newId(),
        kind: body.kind,
        state: definition.initial_state,
        version: 1,
        attributes: body.attributes,
        created_at: now,
        updated_at: now,
      };
      await repo.insertEntity(db, { ...row, attributes: JSON.stringify(body.attributes) });
      return toEntity(row);
    },

    async getEntity(principal: Principal, id: string) {
      const row = isUuid(id) ? await repo.findEntity(db, principal.tenant.id, id.toLowerCase()) : undefined;
      if (!row) throw new AppError("ERR_NOT_FOUND", "No such entity.");
      return toEntity(row);
    },

    async listEntities(
      principal: Principal,
      options: { limit: number; kind?: string | undefined; cursor?: string | undefined },
    ) {
      const binding = `admin.entities:${principal.tenant.id}:${options.kind ?? ""}`;
      const after = options.cursor
        ? deps.cursors.decode<CreationPosition>(binding, options.cursor)
        : undefined;
      const rows = await repo.listEntities(db, principal.tenant.id, { ...options, after });
      const { items, meta } = pageOf(deps.cursors, binding, rows, options.limit, toCreationPosition);
      return { items: items.map(toEntity), meta };
    },

    /** For other modules (catalog order validation): entities of a kind by one attribute value. */
    async findEntitiesByAttribute(tenantId: string, kind: string, name: string, value: string) {
      return (await repo.findEntitiesByAttribute(db, tenantId, kind, name, value)).map(toEntity);
    },

    /** For other modules (the exchange's catalog check): the states of the products of each GTIN, one statement. */
    productStates(tenantId: string, gtins: readonly string[]): Promise<Map<string, string[]>> {
      return repo.findProductStates(db, tenantId, gtins);
    },

    /**
     * Accepts a transition request: in one statement the idempotency record (unique per tenant,
     * endpoint and key), the request row and exactly one queue event. A retry replays the first
     * answer byte for byte; another entity, id, transition or payload under the key is a mismatch.
     */
    async requestTransition(
      caller: { tenantId: string; credential: DeferredCredential },
      key: string,
      body: TransitionRequestInput,
    ): Promise<IdempotentOutcome & { reference: string }> {
      const { tenantId, credential } = caller;
      const entityId = body.entityId.toLowerCase();
      const payload = body.payload ?? {};
      const fingerprint = canonicalJson({
        entity: body.entity,
        entityId,
        transition: body.transition,
        payload,
      });
      // Everything is decided in the process — ids, the answer — so the record, the request row
      // and the queue event are written by one statement (see repo.acceptRequests). Whether the
      // entity exists and the transition is allowed is the job's business: those are outcomes.
      const requestId = deps.newId();
      const statusUrl = statusUrlFor(requestId);
      const record = deps.idempotency.completedRecord(
        { tenantId, endpoint: transitionEndpoint, key, fingerprint },
        {
          status: 202,
          body: JSON.stringify({ requestId, status: "pending", statusUrl }),
          headers: { location: statusUrl, "retry-after": String(statusRetryAfterSeconds) },
        },
      );
      // The key's opaque reference for logs, from the hash the record already holds.
      const reference = deps.idempotency.referenceOf(record);
      // A retry of a key this process answered lately is answered from memory. The record is the
      // one of the tenant the caller names: the credential and its tenant are checked before any
      // answer about the key (a mismatch included), or another tenant could probe for keys.
      let recent: IdempotentOutcome | undefined;
      try {
        recent = deps.idempotency.recentReplay(record);
      } catch (error) {
        requireTenant(await credential.authenticate(), tenantId);
        throw error;
      }
      if (recent) {
        requireTenant(await credential.authenticate(), tenantId);
        return { ...recent, reference };
      }
      // No unique job key: the accept statement inserts the job only with the new request row,
      // whose primary key already makes it one per request (and spares an index entry per accept).
      const job = deps.jobs.newJobRow(transitionJobName, { tenantId, requestId }, { tenantId });
      // The statement checks the credential too: it writes only for a valid credential of this
      // tenant holding the scope, and returns the credential's row for the same decision here.
      // Requests arriving together share one statement (see createStatementBatcher).
      const check = credential.rowCheck(tenantId);
      const { claimed, credentialRow } = await accepts.run({
        check,
        record,
        request: {
          id: requestId,
          entityKind: body.entity,
          entityId,
          transition: body.transition,
          payload: JSON.stringify(payload),
        },
        job,
      });
      requireTenant(credential.settle(check, credentialRow), tenantId);
      if (!claimed) {
        const replay = await deps.idempotency.replayStored(record);
        // Only if the record vanished in between (expired and purged): the client retries.
        if (!replay) {
          throw new AppError(
            "ERR_IDEMPOTENCY_IN_PROGRESS",
            "A request with this idempotency key is still in progress.",
          );
        }
        return { ...replay, reference };
      }
      deps.idempotency.remember(record);
      wakeWorkers();
      return {
        status: record.statusCode,
        body: record.responseBody,
        headers: { location: statusUrl, "retry-after": String(statusRetryAfterSeconds) },
        replay: false,
        reference,
      };
    },

    /** The status document; another tenant's request is indistinguishable from none. */
    async getTransitionRequest(principal: Principal, requestId: string) {
      const row = isUuid(requestId)
        ? await repo.findRequest(db, principal.tenant.id, requestId.toLowerCase())
        : undefined;
      if (!row) throw new AppError("ERR_NOT_FOUND", "No such transition request.");
      return toStatusDocument(row);
    },
  };
}

export type WorkflowsService = ReturnType<typeof createWorkflowsService>;
