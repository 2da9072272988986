import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { requirePrincipal } from "../../../platform/auth/index.js";
import { registerCollectionRoutes } from "../../../platform/http/crud-routes.js";
import { PageQuery, problemResponses } from "../../../platform/http/openapi-schemas.js";
import type { AdminService } from "./admin.service.js";
import {
  ApiKeyItem,
  ApiKeyList,
  AuditEventItem,
  AuditEventList,
  AuditQuery,
  ConnectionItem,
  ConnectionList,
  CreateApiKeyBody,
  CreateConnectionBody,
  CreatePartnerBody,
  CreatedApiKey,
  DeliveryItem,
  DeliveryList,
  IdParams,
  PartnerItem,
  PartnerList,
  ProfileBody,
  ProfileRevision,
  ProfileRevisionList,
  RevisionParams,
  UpdateConnectionBody,
  UpdatePartnerBody,
  UploadItem,
  UploadList,
} from "../exchange.schemas.js";

const security = [{ bearerAuth: [] }];
const read = { auth: { kind: "session" as const, allScopes: ["admin:read" as const] } };
const write = { auth: { kind: "session" as const, allScopes: ["admin:write" as const] } };
const tags = ["exchange admin"];
const collection = { tags, scopes: { read: "admin:read", write: "admin:write" } } as const;

export const adminPaths = {
  partners: "/api/v1/admin/partners",
  connections: "/api/v1/admin/connections",
  apiKeys: "/api/v1/admin/api-keys",
  auditEvents: "/api/v1/admin/audit-events",
  uploads: "/api/v1/admin/exchange-uploads",
  deliveries: "/api/v1/admin/exchange-deliveries",
} as const;

export const adminRoutes =
  (service: AdminService): FastifyPluginAsyncTypebox =>
  async (app) => {
    const p = adminPaths;
    const page = (q: { limit?: number | undefined; cursor?: string | undefined }) => ({
      limit: q.limit ?? 50,
      cursor: q.cursor,
    });

    // Partners
    registerCollectionRoutes(app, {
      ...collection,
      path: p.partners,
      list: { response: PartnerList, run: (principal, pg) => service.listPartners(principal, pg) },
      create: {
        body: CreatePartnerBody,
        response: PartnerItem,
        run: (principal, body) => service.createPartner(principal, body),
      },
      read: {
        params: IdParams,
        response: PartnerItem,
        run: (principal, { id }) => service.getPartner(principal, id),
      },
    });
    app.patch(
      `${p.partners}/:id`,
      {
        config: write,
        schema: {
          tags,
          security,
          params: IdParams,
          body: UpdatePartnerBody,
          response: { 200: PartnerItem, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.updatePartner(requirePrincipal(req), req.params.id, req.body),
    );

    // Connections and profile revisions
    registerCollectionRoutes(app, {
      ...collection,
      path: p.connections,
      list: { response: ConnectionList, run: (principal, pg) => service.listConnections(principal, pg) },
      create: {
        body: CreateConnectionBody,
        response: ConnectionItem,
        run: (principal, body) => service.createConnection(principal, body),
      },
      read: {
        params: IdParams,
        response: ConnectionItem,
        run: (principal, { id }) => service.getConnection(principal, id),
      },
    });
    app.patch(
      `${p.connections}/:id`,
      {
        config: write,
        schema: {
          tags,
          security,
          params: IdParams,
          body: UpdateConnectionBody,
          response: { 200: ConnectionItem, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.updateConnection(requirePrincipal(req), req.params.id, req.body),
    );
    // Revisions live under a connection: an unknown one is 404 on every route, so they are written out.
    app.get(
      `${p.connections}/:id/profile-revisions`,
      {
        config: read,
        schema: {
          tags,
          security,
          params: IdParams,
          querystring: PageQuery,
          response: { 200: ProfileRevisionList, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.listRevisions(requirePrincipal(req), req.params.id, page(req.query)),
    );
    app.post(
      `${p.connections}/:id/profile-revisions`,
      {
        config: write,
        schema: {
          tags,
          security,
          params: IdParams,
          body: ProfileBody,
          response: { 201: ProfileRevision, ...problemResponses(400, 401, 403, 404, 413, 500, 503) },
        },
      },
      async (req, reply) =>
        reply.code(201).send(await service.createRevision(requirePrincipal(req), req.params.id, req.body)),
    );
    app.get(
      `${p.connections}/:id/profile-revisions/:revision`,
      {
        config: read,
        schema: {
          tags,
          security,
          params: RevisionParams,
          response: { 200: ProfileRevision, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.getRevision(requirePrincipal(req), req.params.id, req.params.revision),
    );
    app.post(
      `${p.connections}/:id/profile-revisions/:revision/activate`,
      {
        config: write,
        schema: {
          tags,
          security,
          params: RevisionParams,
          response: { 200: ProfileRevision, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.activateRevision(requirePrincipal(req), req.params.id, req.params.revision),
    );

    // Partner API keys: the secret is in the create answer only (`CreatedApiKey`).
    registerCollectionRoutes(app, {
      ...collection,
      path: p.apiKeys,
      list: { response: ApiKeyList, run: (principal, pg) => service.listApiKeys(principal, pg) },
      create: {
        body: CreateApiKeyBody,
        response: CreatedApiKey,
        run: (principal, body) => service.createApiKey(principal, body),
      },
      read: {
        params: IdParams,
        response: ApiKeyItem,
        run: (principal, { id }) => service.getApiKey(principal, id),
      },
    });
    app.post(
      `${p.apiKeys}/:id/revoke`,
      {
        config: write,
        schema: {
          tags,
          security,
          params: IdParams,
          response: { 200: ApiKeyItem, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.revokeApiKey(requirePrincipal(req), req.params.id),
    );

    // Audit events
    registerCollectionRoutes(app, {
      ...collection,
      path: p.auditEvents,
      list: {
        query: AuditQuery,
        response: AuditEventList,
        run: (principal, pg, query) => service.listAuditEvents(principal, { ...pg, type: query.type }),
      },
      read: {
        params: IdParams,
        response: AuditEventItem,
        run: (principal, { id }) => service.getAuditEvent(principal, id),
      },
    });

    // Operator views: uploads and deliveries
    registerCollectionRoutes(app, {
      ...collection,
      path: p.uploads,
      list: { response: UploadList, run: (principal, pg) => service.listUploads(principal, pg) },
      read: {
        params: IdParams,
        response: UploadItem,
        run: (principal, { id }) => service.getUpload(principal, id),
      },
    });
    registerCollectionRoutes(app, {
      ...collection,
      path: p.deliveries,
      list: { response: DeliveryList, run: (principal, pg) => service.listDeliveries(principal, pg) },
      read: {
        params: IdParams,
        response: DeliveryItem,
        run: (principal, { id }) => service.getDelivery(principal, id),
      },
    });
    app.post(
      `${p.deliveries}/:id/requeue`,
      {
        config: write,
        schema: {
          tags,
          security,
          params: IdParams,
          response: { 200: DeliveryItem, ...problemResponses(400, 401, 403, 404, 409, 500, 503) },
        },
      },
      async (req) => service.requeueDelivery(requirePrincipal(req), req.params.id),
    );
  };
