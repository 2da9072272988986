import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { registerCollectionRoutes } from "../../platform/http/crud-routes.js";
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
} from "./workflows.schemas.js";
import type { WorkflowsService } from "./workflows.service.js";

export const entitiesHref = "/api/v1/admin/entities";
export const definitionsHref = "/api/v1/admin/workflow-definitions";
const tags = ["admin", "workflows"];
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
        summary: "List the tenant's workflow definitions (admin:read)",
        response: DefinitionList,
        run: (principal, page) => service.listDefinitions(principal, page),
      },
      create: {
        summary: "Add a workflow for a new entity kind (admin:write)",
        description: "Definitions are not changed once created; a kind already defined is 409 ERR_CONFLICT.",
        body: CreateDefinitionBody,
        response: DefinitionSchema,
        conflict: true,
        run: (principal, body) => service.createDefinition(principal, body),
      },
      read: {
        summary: "Read the workflow of one entity kind (admin:read)",
        params: KindParams,
        response: DefinitionSchema,
        run: (principal, { kind }) => service.getDefinition(principal, kind),
      },
    });

    registerCollectionRoutes(app, {
      ...workflowsAdminCollection,
      path: entitiesHref,
      list: {
        summary: "List entities, optionally of one kind (admin:read)",
        query: EntityListQuery,
        response: EntityList,
        run: (principal, page, query) => service.listEntities(principal, { ...page, kind: query.kind }),
      },
      create: {
        summary: "Create an entity in its workflow's initial state, version 1 (admin:write)",
        description: "States change only through workflow transition requests.",
        body: CreateEntityBody,
        response: EntitySchema,
        run: (principal, body) => service.createEntity(principal, body),
      },
      read: {
        summary: "Read an entity (admin:read)",
        params: IdParams,
        response: EntitySchema,
        run: (principal, { id }) => service.getEntity(principal, id),
      },
    });
  };
