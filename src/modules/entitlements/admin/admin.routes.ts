import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { requirePrincipal } from "../../../platform/auth/index.js";
import {
  logPagedDescription,
  pagedDescription,
  registerCollectionRoutes,
} from "../../../platform/http/crud-routes.js";
import { PageQuery, PagingQuery, problemResponses } from "../../../platform/http/openapi-schemas.js";
import type { BindingsService } from "../service-auth/index.js";
import {
  AppEntitlementsParams,
  AppList,
  AppParams,
  AppSchema,
  BindingList,
  BindingSchema,
  CreateAppBody,
  CreateBindingBody,
  CreatedBinding,
  EntitlementHistory,
  EntitlementList,
  EntitlementParams,
  EntitlementSchema,
  IdParams,
  PutEntitlementBody,
  RotatedCredential,
} from "../entitlements.schemas.js";
import type { EntitlementsService } from "./entitlements.service.js";

export const entitlementAdminPaths = {
  apps: "/api/v1/admin/apps",
  entitlements: "/api/v1/admin/apps/{appId}/entitlements",
  bindings: "/api/v1/admin/service-bindings",
  subscriptions: "/api/v1/admin/webhook-subscriptions",
} as const;

const tags = ["entitlements-admin"];
const collection = { tags, scopes: { read: "admin:read", write: "admin:write" } } as const;
const read = { auth: { kind: "session" as const, allScopes: ["admin:read" as const] } };
const write = { auth: { kind: "session" as const, allScopes: ["admin:write" as const] } };

export const entitlementAdminRoutes =
  (entitlements: EntitlementsService, bindings: BindingsService): FastifyPluginAsyncTypebox =>
  async (app) => {
    const p = entitlementAdminPaths;
    registerCollectionRoutes(app, {
      ...collection,
      path: p.apps,
      list: {
        operationId: "listApps",
        summary: "List the tenant's apps (admin:read)",
        description: pagedDescription,
        response: AppList,
        run: (principal, page) => entitlements.listApps(principal, page),
      },
      create: {
        operationId: "createApp",
        summary: "Create an app with its capabilities (admin:write)",
        description: "App ids are unique per tenant: an id already used is 409 ERR_CONFLICT.",
        body: CreateAppBody,
        response: AppSchema,
        conflict: true,
        run: (principal, body) => entitlements.createApp(principal, body),
      },
      read: {
        operationId: "getApp",
        summary: "Read an app (admin:read)",
        description: "One app with its capabilities; an unknown id is 404.",
        params: AppParams,
        response: AppSchema,
        run: (principal, { id }) => entitlements.getApp(principal, id),
      },
    });

    const entitlementsPath = "/api/v1/admin/apps/:appId/entitlements";
    app.get(
      entitlementsPath,
      {
        config: read,
        schema: {
          tags,
          operationId: "listEntitlements",
          summary: "List an app's entitlements in actor order (admin:read)",
          description: `In actor id order. ${pagedDescription}`,
          params: AppEntitlementsParams,
          querystring: PageQuery,
          response: { 200: EntitlementList, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) =>
        entitlements.listEntitlements(requirePrincipal(request), request.params.appId, {
          limit: request.query.limit ?? 50,
          cursor: request.query.cursor,
          order: request.query.order,
        }),
    );
    app.get(
      `${entitlementsPath}/:actorId`,
      {
        config: read,
        schema: {
          tags,
          operationId: "getEntitlement",
          summary: "Read an actor's entitlement (admin:read)",
          description: "One actor's entitlement of the app (its capabilities and validity).",
          params: EntitlementParams,
          response: { 200: EntitlementSchema, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) =>
        entitlements.getEntitlement(requirePrincipal(request), request.params.appId, request.params.actorId),
    );
    app.get(
      `${entitlementsPath}/:actorId/changes`,
      {
        config: read,
        schema: {
          tags,
          operationId: "listEntitlementHistory",
          summary: "List an actor's entitlement changes, newest first (admin:read)",
          description:
            "The actor's changes from the app's change feed, newest first: each with its `sequence`, " +
            "the entitlement after the change and when it occurred (who made it: the audit event " +
            "`entitlement.changed`). Changes are kept HANSE_FEED_RETENTION_SECONDS like the feed's; " +
            "`meta.prunedThrough` is the highest sequence no longer kept. An actor without changes " +
            `has an empty list; an unknown app is 404. ${logPagedDescription}`,
          params: EntitlementParams,
          querystring: PagingQuery,
          response: { 200: EntitlementHistory, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) =>
        entitlements.listEntitlementHistory(
          requirePrincipal(request),
          request.params.appId,
          request.params.actorId,
          { limit: request.query.limit ?? 50, cursor: request.query.cursor },
        ),
    );
    app.put(
      `${entitlementsPath}/:actorId`,
      {
        config: write,
        schema: {
          tags,
          operationId: "setEntitlement",
          summary: "Set an actor's entitlement (admin:write)",
          description:
            "Replaces the actor's entitlement and records it as the next change of the app's stream " +
            "(its `sequence`). `capabilities` must be the app's; `validFrom` defaults to the earlier " +
            "value or now; `validUntil` (exclusive) must be later than `validFrom`, null or absent for no end.",
          params: EntitlementParams,
          body: PutEntitlementBody,
          response: { 200: EntitlementSchema, ...problemResponses(400, 401, 403, 404, 413, 500, 503) },
        },
      },
      async (request) =>
        entitlements.putEntitlement(
          requirePrincipal(request),
          request.params.appId,
          request.params.actorId,
          request.body,
        ),
    );

    registerCollectionRoutes(app, {
      ...collection,
      path: p.bindings,
      list: {
        operationId: "listServiceBindings",
        summary: "List service bindings (admin:read)",
        description: pagedDescription,
        response: BindingList,
        run: (principal, page) => bindings.listBindings(principal, page),
      },
      create: {
        operationId: "createServiceBinding",
        summary: "Create a service binding and issue its credential (admin:write)",
        description: "The `secret` is shown only in this response; the binding's app must exist.",
        body: CreateBindingBody,
        response: CreatedBinding,
        run: (principal, body) => bindings.createBinding(principal, body),
      },
      read: {
        operationId: "getServiceBinding",
        summary: "Read a service binding (admin:read)",
        description: "One binding of the tenant, without its credential's secret.",
        params: IdParams,
        response: BindingSchema,
        run: (principal, { id }) => bindings.getBinding(principal, id),
      },
    });
    app.post(
      `${p.bindings}/:id/rotate`,
      {
        config: write,
        schema: {
          tags,
          operationId: "rotateServiceBindingCredential",
          summary: "Rotate a service binding's credential (admin:write)",
          description:
            "Issues a new credential id and secret (shown only here); the previous ones stay valid for " +
            "HANSE_CREDENTIAL_OVERLAP_SECONDS.",
          params: IdParams,
          response: { 200: RotatedCredential, ...problemResponses(400, 401, 403, 404, 409, 500, 503) },
        },
      },
      async (request) => bindings.rotateCredential(requirePrincipal(request), request.params.id),
    );
    app.post(
      `${p.bindings}/:id/revoke`,
      {
        config: write,
        schema: {
          tags,
          operationId: "revokeServiceBinding",
          summary: "Revoke a service binding (admin:write)",
          description:
            "rules/contract §7, offboarding: from the answer on every credential of the binding, the previous one " +
            "of a rotation's overlap included, is refused (401 ERR_SERVICE_AUTH_INVALID_CREDENTIAL) in every " +
            "process, and its webhook subscriptions stop. Grants already issued stay valid until they expire. " +
            "Revoking a revoked binding answers it unchanged.",
          params: IdParams,
          response: { 200: BindingSchema, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) => bindings.revokeBinding(requirePrincipal(request), request.params.id),
    );
  };
