import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { pagedDescription, registerCollectionRoutes } from "../../platform/http/crud-routes.js";
import {
  CreateDefinitionBody,
  CreateEntityBody,
  DefinitionList,
  DefinitionSchema,
  EntityList,
  EntityListQuery,
  EntitySchema,
  IdParams,
  KindParams,
  TransitionRequestList,
  TransitionRequestListQuery,
} from "./workflows.schemas.js";
import { adminTransitionRequestsHref } from "./transition-requests.service.js";
import type { WorkflowsService } from "./workflows.service.js";

export const entitiesHref = "/api/v1/admin/entities";
export const definitionsHref = "/api/v1/admin/workflow-definitions";
const tags = ["workflow-admin"];
/** What the workflows module's admin collections share (see `registerCollectionRoutes`). */
export const workflowsAdminCollection = {
  tags,
  scopes: { read: "admin:read", write: "admin:write" },
} as const;

export const workflowsAdminRoutes =
  (service: WorkflowsService): FastifyPluginAsyncTypebox =>
  async (app) => {
    registerCollectionRoutes(app, {
      ...workflowsAdminCollection,
      path: definitionsHref,
      list: {
        operationId: "listWorkflowDefinitions",
        summary: "List the tenant's workflow definitions (admin:read)",
        description: pagedDescription,
        response: DefinitionList,
        run: (principal, page) => service.listDefinitions(principal, page),
      },
      create: {
        operationId: "createWorkflowDefinition",
        summary: "Add a workflow for a new entity kind (admin:write)",
        description:
          "The states, the initial state and the named transitions (from one of several states to one) of an " +
          "entity kind. The initial state and every transition's states must be among `states` (else 400). " +
          "Definitions are not changed once created; a kind already defined is 409 ERR_CONFLICT.",
        body: CreateDefinitionBody,
        response: DefinitionSchema,
        conflict: true,
        run: (principal, body) => service.createDefinition(principal, body),
      },
      read: {
        operationId: "getWorkflowDefinition",
        summary: "Read the workflow of one entity kind (admin:read)",
        description: "The definition of one entity kind; an unknown kind is 404.",
        params: KindParams,
        response: DefinitionSchema,
        run: (principal, { kind }) => service.getDefinition(principal, kind),
      },
    });

    registerCollectionRoutes(app, {
      ...workflowsAdminCollection,
      path: entitiesHref,
      list: {
        operationId: "listEntities",
        summary: "List entities, optionally of one kind (admin:read)",
        description: `Only entities of \`kind\` when given. ${pagedDescription}`,
        query: EntityListQuery,
        response: EntityList,
        run: (principal, page, query) => service.listEntities(principal, { ...page, kind: query.kind }),
      },
      create: {
        operationId: "createEntity",
        summary: "Create an entity in its workflow's initial state, version 1 (admin:write)",
        description:
          "The kind must have a workflow definition (else 400). States change only through workflow " +
          "transition requests (requestTransition).",
        body: CreateEntityBody,
        response: EntitySchema,
        run: (principal, body) => service.createEntity(principal, body),
      },
      read: {
        operationId: "getEntity",
        summary: "Read an entity (admin:read)",
        description: "One entity with its state, version and attributes; an unknown id is 404.",
        params: IdParams,
        response: EntitySchema,
        run: (principal, { id }) => service.getEntity(principal, id),
      },
    });

    registerCollectionRoutes(app, {
      ...workflowsAdminCollection,
      path: adminTransitionRequestsHref,
      list: {
        operationId: "listTransitionRequests",
        summary: "List transition requests with their status and outcome (admin:read)",
        description:
          "The tenant's workflow transition requests in creation order, each as its status document " +
          "(getTransitionRequest). `entityId` narrows to one entity's requests, `status` to one of " +
          "`pending`, `processing`, `succeeded`, `failed` (another value is 400). A cursor is valid only " +
          `with the filter it was issued for (else 400). ${pagedDescription}`,
        query: TransitionRequestListQuery,
        response: TransitionRequestList,
        run: (principal, page, query) =>
          service.listTransitionRequests(principal, page, { entityId: query.entityId, status: query.status }),
      },
    });
  };
