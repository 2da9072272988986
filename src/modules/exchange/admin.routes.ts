import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { requirePrincipal } from "../../platform/auth/index.js";
import { PageQuery, problemResponses } from "../../platform/http/openapi-schemas.js";
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
} from "./exchange.schemas.js";

const security = [{ bearerAuth: [] }];
const read = { auth: { kind: "session" as const, allScopes: ["admin:read" as const] } };
const write = { auth: { kind: "session" as const, allScopes: ["admin:write" as const] } };
const tags = ["exchange admin"];

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
    app.get(
      p.partners,
      {
        config: read,
        schema: {
          tags,
          security,
          querystring: PageQuery,
          response: { 200: PartnerList, ...problemResponses(400, 401, 403, 500, 503) },
        },
      },
      async (req) => service.listPartners(requirePrincipal(req), page(req.query)),
    );
    app.post(
      p.partners,
      {
        config: write,
        schema: {
          tags,
          security,
          body: CreatePartnerBody,
          response: { 201: PartnerItem, ...problemResponses(400, 401, 403, 413, 500, 503) },
        },
      },
      async (req, reply) =>
        reply.code(201).send(await service.createPartner(requirePrincipal(req), req.body)),
    );
    app.get(
      `${p.partners}/:id`,
      {
        config: read,
        schema: {
          tags,
          security,
          params: IdParams,
          response: { 200: PartnerItem, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.getPartner(requirePrincipal(req), req.params.id),
    );
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
    app.get(
      p.connections,
      {
        config: read,
        schema: {
          tags,
          security,
          querystring: PageQuery,
          response: { 200: ConnectionList, ...problemResponses(400, 401, 403, 500, 503) },
        },
      },
      async (req) => service.listConnections(requirePrincipal(req), page(req.query)),
    );
    app.post(
      p.connections,
      {
        config: write,
        schema: {
          tags,
          security,
          body: CreateConnectionBody,
          response: { 201: ConnectionItem, ...problemResponses(400, 401, 403, 413, 500, 503) },
        },
      },
      async (req, reply) =>
        reply.code(201).send(await service.createConnection(requirePrincipal(req), req.body)),
    );
    app.get(
      `${p.connections}/:id`,
      {
        config: read,
        schema: {
          tags,
          security,
          params: IdParams,
          response: { 200: ConnectionItem, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.getConnection(requirePrincipal(req), req.params.id),
    );
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

    // Partner API keys
    app.get(
      p.apiKeys,
      {
        config: read,
        schema: {
          tags,
          security,
          querystring: PageQuery,
          response: { 200: ApiKeyList, ...problemResponses(400, 401, 403, 500, 503) },
        },
      },
      async (req) => service.listApiKeys(requirePrincipal(req), page(req.query)),
    );
    app.post(
      p.apiKeys,
      {
        config: write,
        schema: {
          tags,
          security,
          body: CreateApiKeyBody,
          response: { 201: CreatedApiKey, ...problemResponses(400, 401, 403, 413, 500, 503) },
        },
      },
      async (req, reply) => reply.code(201).send(await service.createApiKey(requirePrincipal(req), req.body)),
    );
    app.get(
      `${p.apiKeys}/:id`,
      {
        config: read,
        schema: {
          tags,
          security,
          params: IdParams,
          response: { 200: ApiKeyItem, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.getApiKey(requirePrincipal(req), req.params.id),
    );
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
    app.get(
      p.auditEvents,
      {
        config: read,
        schema: {
          tags,
          security,
          querystring: AuditQuery,
          response: { 200: AuditEventList, ...problemResponses(400, 401, 403, 500, 503) },
        },
      },
      async (req) =>
        service.listAuditEvents(requirePrincipal(req), { ...page(req.query), type: req.query.type }),
    );
    app.get(
      `${p.auditEvents}/:id`,
      {
        config: read,
        schema: {
          tags,
          security,
          params: IdParams,
          response: { 200: AuditEventItem, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.getAuditEvent(requirePrincipal(req), req.params.id),
    );

    // Operator views: uploads and deliveries
    app.get(
      p.uploads,
      {
        config: read,
        schema: {
          tags,
          security,
          querystring: PageQuery,
          response: { 200: UploadList, ...problemResponses(400, 401, 403, 500, 503) },
        },
      },
      async (req) => service.listUploads(requirePrincipal(req), page(req.query)),
    );
    app.get(
      `${p.uploads}/:id`,
      {
        config: read,
        schema: {
          tags,
          security,
          params: IdParams,
          response: { 200: UploadItem, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.getUpload(requirePrincipal(req), req.params.id),
    );
    app.get(
      p.deliveries,
      {
        config: read,
        schema: {
          tags,
          security,
          querystring: PageQuery,
          response: { 200: DeliveryList, ...problemResponses(400, 401, 403, 500, 503) },
        },
      },
      async (req) => service.listDeliveries(requirePrincipal(req), page(req.query)),
    );
    app.get(
      `${p.deliveries}/:id`,
      {
        config: read,
        schema: {
          tags,
          security,
          params: IdParams,
          response: { 200: DeliveryItem, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.getDelivery(requirePrincipal(req), req.params.id),
    );
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
