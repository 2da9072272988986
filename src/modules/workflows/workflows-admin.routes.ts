import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { requirePrincipal } from "../../platform/auth/index.js";
import { PageQuery, problemResponses } from "../../platform/http/openapi-schemas.js";
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

const bearer = [{ bearerAuth: [] }];
export const entitiesHref = "/api/v1/admin/entities";
export const definitionsHref = "/api/v1/admin/workflow-definitions";

export const workflowsAdminRoutes =
  (service: WorkflowsService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      definitionsHref,
      {
        config: { auth: { kind: "session", allScopes: ["admin:read"] } },
        schema: {
          tags: ["admin", "workflows"],
          summary: "List the tenant's workflow definitions (admin:read)",
          security: bearer,
          querystring: PageQuery,
          response: { 200: DefinitionList, ...problemResponses(400, 401, 403, 500, 503) },
        },
      },
      async (request) =>
        service.listDefinitions(requirePrincipal(request), {
          limit: request.query.limit ?? 50,
          cursor: request.query.cursor,
        }),
    );

    app.get(
      `${definitionsHref}/:kind`,
      {
        config: { auth: { kind: "session", allScopes: ["admin:read"] } },
        schema: {
          tags: ["admin", "workflows"],
          summary: "Read the workflow of one entity kind (admin:read)",
          security: bearer,
          params: KindParams,
          response: { 200: DefinitionSchema, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) => service.getDefinition(requirePrincipal(request), request.params.kind),
    );

    app.post(
      definitionsHref,
      {
        config: { auth: { kind: "session", allScopes: ["admin:write"] } },
        schema: {
          tags: ["admin", "workflows"],
          summary: "Add a workflow for a new entity kind (admin:write)",
          description:
            "Definitions are not changed once created; a kind already defined is 409 ERR_CONFLICT.",
          security: bearer,
          body: CreateDefinitionBody,
          response: { 201: DefinitionSchema, ...problemResponses(400, 401, 403, 409, 413, 500, 503) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.createDefinition(requirePrincipal(request), request.body)),
    );

    app.get(
      entitiesHref,
      {
        config: { auth: { kind: "session", allScopes: ["admin:read"] } },
        schema: {
          tags: ["admin", "workflows"],
          summary: "List entities, optionally of one kind (admin:read)",
          security: bearer,
          querystring: EntityListQuery,
          response: { 200: EntityList, ...problemResponses(400, 401, 403, 500, 503) },
        },
      },
      async (request) =>
        service.listEntities(requirePrincipal(request), {
          limit: request.query.limit ?? 50,
          kind: request.query.kind,
          cursor: request.query.cursor,
        }),
    );

    app.get(
      `${entitiesHref}/:id`,
      {
        config: { auth: { kind: "session", allScopes: ["admin:read"] } },
        schema: {
          tags: ["admin", "workflows"],
          summary: "Read an entity (admin:read)",
          security: bearer,
          params: IdParams,
          response: { 200: EntitySchema, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) => service.getEntity(requirePrincipal(request), request.params.id),
    );

    app.post(
      entitiesHref,
      {
        config: { auth: { kind: "session", allScopes: ["admin:write"] } },
        schema: {
          tags: ["admin", "workflows"],
          summary: "Create an entity in its workflow's initial state, version 1 (admin:write)",
          description: "States change only through workflow transition requests.",
          security: bearer,
          body: CreateEntityBody,
          response: { 201: EntitySchema, ...problemResponses(400, 401, 403, 413, 500, 503) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.createEntity(requirePrincipal(request), request.body)),
    );
  };
