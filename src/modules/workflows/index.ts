import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsync } from "fastify";
import { crudActions } from "../../platform/http/entrypoints.js";
import type { RaiseOperatorEvent } from "../entitlements/index.js";
import type { HanseModule, ModuleDeps } from "../module.js";
import { createLifecycleAdapters, lifecycleAdaptersHref } from "./lifecycle-adapters.js";
import { lifecycleAdaptersRoutes } from "./lifecycle-adapters.routes.js";
import { createTransitionProcessor, transitionJob } from "./transition.job.js";
import { transitionRequestsRoutes } from "./transition-requests.routes.js";
import { registerWorkflowMetrics } from "./workflows.metrics.js";
import { definitionsHref, entitiesHref, workflowsAdminRoutes } from "./workflows-admin.routes.js";
import {
  AdapterSchema,
  CreateAdapterBody,
  CreateDefinitionBody,
  CreateEntityBody,
  DefinitionSchema,
  EntitySchema,
  TransitionRequestBody,
  TransitionRequestStatusSchema,
} from "./workflows.schemas.js";
import { adminTransitionRequestsHref, transitionRequestsHref } from "./transition-requests.service.js";
import { createWorkflowsService, type WorkflowsService } from "./workflows.service.js";
import { workflowTables } from "./workflows.tables.js";

export type { WorkflowsService } from "./workflows.service.js";
export type { WorkflowTables } from "./workflows.tables.js";
export { nextState, productWorkflow, type WorkflowDefinition } from "./workflow-rules.js";

export const workflowsCapability = "workflows.transitionRequests";

export function createWorkflowsModule(
  deps: ModuleDeps & { raiseOperatorEvent?: RaiseOperatorEvent },
): HanseModule & { service: WorkflowsService } {
  const service = createWorkflowsService(deps);
  const adapters = createLifecycleAdapters(deps);
  const processor = createTransitionProcessor({
    database: deps.database,
    clock: deps.clock,
    logger: deps.logger,
    adapters: adapters.gate,
    ...(deps.raiseOperatorEvent ? { raiseOperatorEvent: deps.raiseOperatorEvent } : {}),
    onFinished: registerWorkflowMetrics(deps.metrics, { db: deps.database.db, clock: deps.clock }),
  });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(workflowsAdminRoutes(service));
    await app.register(transitionRequestsRoutes(service));
    await app.register(lifecycleAdaptersRoutes(adapters));
  };
  return {
    name: "workflows",
    apiTags: [
      {
        name: "workflows",
        description:
          "Workflow transition requests: an integration asks for an entity's transition (asynchronous, " +
          "idempotent by X-Idempotency-Key) and reads its outcome from the status URL.",
      },
      {
        name: "workflow-admin",
        description:
          "The tenant's workflow definitions (states and transitions per entity kind), its entities, and the " +
          "PIM lifecycle adapters that may veto a transition.",
      },
    ],
    service,
    routes,
    jobs: [transitionJob(processor)],
    sealedColumns: adapters.sealedColumns,
    capabilities: [workflowsCapability, "workflows.lifecycleAdapters"],
    provisioningSteps: [
      {
        name: "workflow-definitions",
        run: (trx, { tenantId }) => service.provisionDefaults(workflowTables(trx), tenantId),
      },
    ],
    entrypoints: [
      {
        id: "workflows.transitionRequests",
        kind: "crud",
        href: transitionRequestsHref,
        tenantTypes: ["system", "customer"],
        actions: [
          {
            id: "create",
            method: "POST",
            href: transitionRequestsHref,
            anyScopes: ["workflows:transition"],
            requiredHeaders: ["X-Idempotency-Key", "X-Tenant-ID"],
            acceptedStatus: 202,
            responseHeaders: ["Location", "Retry-After"],
            statusHref: `${transitionRequestsHref}/{requestId}`,
            statusRequiredAnyScopes: ["workflows:read"],
          },
          {
            id: "read",
            method: "GET",
            href: `${transitionRequestsHref}/{requestId}`,
            anyScopes: ["workflows:read"],
          },
        ],
        schemas: { create: TransitionRequestBody, update: null, item: TransitionRequestStatusSchema },
      },
      {
        // The operator's read-only list of the requests (their status documents).
        id: "admin.transitionRequests",
        kind: "crud",
        href: adminTransitionRequestsHref,
        tenantTypes: ["system", "customer"],
        actions: [
          { id: "list", method: "GET", href: adminTransitionRequestsHref, anyScopes: ["admin:read"] },
        ],
        schemas: {
          create: Type.Object({}, { additionalProperties: false }),
          update: null,
          item: TransitionRequestStatusSchema,
        },
      },
      {
        id: "admin.entities",
        kind: "crud",
        href: entitiesHref,
        tenantTypes: ["system", "customer"],
        actions: crudActions(entitiesHref, { read: "admin:read", write: "admin:write" }),
        schemas: { create: CreateEntityBody, update: null, item: EntitySchema },
      },
      {
        id: "admin.workflowDefinitions",
        kind: "crud",
        href: definitionsHref,
        tenantTypes: ["system", "customer"],
        actions: crudActions(definitionsHref, { read: "admin:read", write: "admin:write" }).map((action) =>
          action.id === "read" ? { ...action, href: `${definitionsHref}/{kind}` } : action,
        ),
        schemas: { create: CreateDefinitionBody, update: null, item: DefinitionSchema },
      },
      {
        id: "admin.lifecycleAdapters",
        kind: "crud",
        href: lifecycleAdaptersHref,
        tenantTypes: ["system", "customer"],
        actions: crudActions(lifecycleAdaptersHref, { read: "admin:read", write: "admin:write" }),
        schemas: { create: CreateAdapterBody, update: null, item: AdapterSchema },
      },
    ],
  };
}
