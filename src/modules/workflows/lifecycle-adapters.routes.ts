import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { requirePrincipal } from "../../platform/auth/index.js";
import { PageQuery, problemResponses } from "../../platform/http/openapi-schemas.js";
import { lifecycleAdaptersHref, type LifecycleAdapters } from "./lifecycle-adapters.js";
import {
  AdapterList,
  AdapterSchema,
  CreateAdapterBody,
  CreatedAdapter,
  IdParams,
} from "./workflows.schemas.js";

const bearer = [{ bearerAuth: [] }];

export const lifecycleAdaptersRoutes =
  (adapters: LifecycleAdapters): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      lifecycleAdaptersHref,
      {
        config: { auth: { kind: "session", allScopes: ["admin:read"] } },
        schema: {
          tags: ["admin", "workflows"],
          summary: "List the tenant's PIM lifecycle adapters (admin:read)",
          security: bearer,
          querystring: PageQuery,
          response: { 200: AdapterList, ...problemResponses(400, 401, 403, 500, 503) },
        },
      },
      async (request) =>
        adapters.list(requirePrincipal(request), {
          limit: request.query.limit ?? 50,
          cursor: request.query.cursor,
        }),
    );

    app.get(
      `${lifecycleAdaptersHref}/:id`,
      {
        config: { auth: { kind: "session", allScopes: ["admin:read"] } },
        schema: {
          tags: ["admin", "workflows"],
          summary: "Read a lifecycle adapter (admin:read); the secret is never shown again",
          security: bearer,
          params: IdParams,
          response: { 200: AdapterSchema, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) => adapters.get(requirePrincipal(request), request.params.id),
    );

    app.post(
      lifecycleAdaptersHref,
      {
        config: { auth: { kind: "session", allScopes: ["admin:write"] } },
        schema: {
          tags: ["admin", "workflows"],
          summary: "Register the PIM lifecycle adapter of an entity kind (admin:write)",
          description:
            "The processor POSTs every transition of this kind to the HTTPS `url` before applying it, signed like " +
            "Standard Webhooks (`webhook-id` = requestId, `webhook-timestamp`, `webhook-signature`) with the " +
            "returned `secret`; the body is at most 64 KiB. 2xx lets the transition proceed, 4xx vetoes it " +
            "(ERR_WORKFLOW_ADAPTER_REJECTED), 5xx or a time-out is retried with backoff up to `maxAttempts` " +
            "(then ERR_WORKFLOW_ADAPTER_UNAVAILABLE). Private and loopback targets are refused. One adapter per " +
            "kind (409 ERR_CONFLICT).",
          security: bearer,
          body: CreateAdapterBody,
          response: { 201: CreatedAdapter, ...problemResponses(400, 401, 403, 409, 413, 500, 503) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await adapters.create(requirePrincipal(request), request.body)),
    );
  };
