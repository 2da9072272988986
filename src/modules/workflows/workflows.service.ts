import type { Selectable, Transaction } from "kysely";
import type { Principal } from "../../platform/auth/index.js";
import { isUuid } from "../../platform/crypto/index.js";
import type { CreationPosition } from "../../platform/db/creation-order.js";
import { AppError } from "../../platform/errors/app-error.js";
import { readPage, toCreationPosition, type PageRequest } from "../../platform/http/cursor.js";
import type { ModuleDeps } from "../module.js";
import { createTransitionRequestsService } from "./transition-requests.service.js";
import { defaultDefinitions, definitionProblems, type WorkflowDefinition } from "./workflow-rules.js";
import * as repo from "./workflows.repository.js";
import type { WorkflowDefinitionsTable, WorkflowEntitiesTable, WorkflowTables } from "./workflows.tables.js";

/** What the module receives from the composition root, less the configuration. */
export type WorkflowsDeps = Omit<ModuleDeps, "config">;

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

/** The tenant's workflow definitions and entities, and the catalog reads of other modules. */
function createDefinitionsService(deps: WorkflowsDeps) {
  const db = deps.database.as<WorkflowTables>().db;
  return {
    /** Provisioning step: the default definitions of a new tenant (idempotent). */
    async provisionDefaults(trx: Transaction<WorkflowTables>, tenantId: string): Promise<void> {
      const now = deps.clock.now();
      for (const definition of defaultDefinitions) {
        await repo.insertDefinition(trx, tenantId, definition, now);
      }
    },

    async listDefinitions(principal: Principal, options: PageRequest) {
      const tenantId = principal.tenant.id;
      return readPage(deps.cursors, `admin.workflowDefinitions:${tenantId}`, options, {
        fetch: (after: { kind: string } | undefined, order) =>
          repo.listDefinitions(db, tenantId, options.limit, after?.kind, order),
        position: (last) => ({ kind: last.kind }),
        view: toDefinitionDocument,
      });
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

    async listEntities(principal: Principal, options: PageRequest & { kind?: string | undefined }) {
      const tenantId = principal.tenant.id;
      return readPage(deps.cursors, `admin.entities:${tenantId}:${options.kind ?? ""}`, options, {
        fetch: (after: CreationPosition | undefined, order) =>
          repo.listEntities(db, tenantId, { ...options, after, order }),
        position: toCreationPosition,
        view: toEntity,
      });
    },

    /** For other modules (catalog order validation): entities of a kind by one attribute value. */
    async findEntitiesByAttribute(tenantId: string, kind: string, name: string, value: string) {
      return (await repo.findEntitiesByAttribute(db, tenantId, kind, name, value)).map(toEntity);
    },

    /** For other modules (the exchange's catalog check): the states of the products of each GTIN, one statement. */
    productStates(tenantId: string, gtins: readonly string[]): Promise<Map<string, string[]>> {
      return repo.findProductStates(db, tenantId, gtins);
    },
  };
}

/** The workflows service: definitions and entities, and transition requests. */
export function createWorkflowsService(deps: WorkflowsDeps) {
  return { ...createDefinitionsService(deps), ...createTransitionRequestsService(deps) };
}

export type WorkflowsService = ReturnType<typeof createWorkflowsService>;
