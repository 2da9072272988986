import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { pagedDescription, registerCollectionRoutes } from "../../platform/http/crud-routes.js";
import { lifecycleAdaptersHref, type LifecycleAdapters } from "./lifecycle-adapters.js";
import { workflowsAdminCollection } from "./workflows-admin.routes.js";
import {
  AdapterList,
  AdapterSchema,
  CreateAdapterBody,
  CreatedAdapter,
  IdParams,
} from "./workflows.schemas.js";

export const lifecycleAdaptersRoutes =
  (adapters: LifecycleAdapters): FastifyPluginAsyncTypebox =>
  async (app) => {
    // The secret is in the create answer only (`CreatedAdapter`).
    registerCollectionRoutes(app, {
      ...workflowsAdminCollection,
      path: lifecycleAdaptersHref,
      list: {
        operationId: "listLifecycleAdapters",
        summary: "List the tenant's PIM lifecycle adapters (admin:read)",
        description: pagedDescription,
        response: AdapterList,
        run: (principal, page) => adapters.list(principal, page),
      },
      create: {
        operationId: "createLifecycleAdapter",
        summary: "Register the PIM lifecycle adapter of an entity kind (admin:write)",
        description:
          "The processor POSTs every transition of this kind to the HTTPS `url` before applying it, signed like " +
          "Standard Webhooks (`webhook-id` = requestId, `webhook-timestamp`, `webhook-signature`) with the " +
          "returned `secret`; the body is at most 64 KiB. 2xx lets the transition proceed, 4xx vetoes it " +
          "(ERR_WORKFLOW_ADAPTER_REJECTED), 5xx or a time-out is retried with backoff up to `maxAttempts` " +
          "(then ERR_WORKFLOW_ADAPTER_UNAVAILABLE). Private and loopback targets are refused. One adapter per " +
          "kind (409 ERR_CONFLICT).",
        body: CreateAdapterBody,
        response: CreatedAdapter,
        conflict: true,
        run: (principal, body) => adapters.create(principal, body),
      },
      read: {
        operationId: "getLifecycleAdapter",
        summary: "Read a lifecycle adapter (admin:read); the secret is never shown again",
        description: "One adapter of the tenant, without its signing secret.",
        params: IdParams,
        response: AdapterSchema,
        run: (principal, { id }) => adapters.get(principal, id),
      },
    });
  };
