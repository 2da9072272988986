import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Static } from "@sinclair/typebox";
import { requirePrincipal, type Principal } from "../../../platform/auth/index.js";
import { pagedDescription, registerCollectionRoutes } from "../../../platform/http/crud-routes.js";
import { PageQuery, problemResponses } from "../../../platform/http/openapi-schemas.js";
import type { AdminService } from "./admin.service.js";
import { auditTrailRoutes } from "./audit-trail.routes.js";
import {
  ApiKeyItem,
  ApiKeyList,
  ApiKeyQuery,
  AuditEventItem,
  AuditEventList,
  AuditQuery,
  ConnectionItem,
  ConnectionList,
  ConnectionQuery,
  CreateApiKeyBody,
  CreateConnectionBody,
  CreatePartnerBody,
  CreatedApiKey,
  DeliveryItem,
  DeliveryList,
  DeliveryQuery,
  IdParams,
  PartnerItem,
  PartnerList,
  ProfileBody,
  ProfileRevision,
  ProfileRevisionList,
  RevisionParams,
  SegmentsView,
  UpdateConnectionBody,
  UpdatePartnerBody,
  UploadDetail,
  UploadList,
  UploadQuery,
} from "./partners.schemas.js";
import { edifactExample } from "../partner-api.js";

const read = { auth: { kind: "session" as const, allScopes: ["admin:read" as const] } };
const write = { auth: { kind: "session" as const, allScopes: ["admin:write" as const] } };
const tags = ["exchange-admin"];
const collection = { tags, scopes: { read: "admin:read", write: "admin:write" } } as const;
const filterDescription =
  "In creation order. `connectionId`, `status` (one, or several separated by commas) and the time range `from` (inclusive) … `to` (exclusive) on `createdAt` narrow the list; a cursor is valid only with the filters of the page that gave it (else 400).";

const partnerCursor =
  "an unknown partner has none (an empty page), an id that is no UUID is 400; a cursor is valid only with the `partnerId` of the page that gave it (else 400).";

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
    const page = (q: {
      limit?: number | undefined;
      cursor?: string | undefined;
      order?: "asc" | "desc" | undefined;
    }) => ({ limit: q.limit ?? 50, cursor: q.cursor, order: q.order });

    // Partners
    registerCollectionRoutes(app, {
      ...collection,
      path: p.partners,
      list: {
        operationId: "listPartners",
        summary: "List trading partners (admin:read)",
        description: pagedDescription,
        response: PartnerList,
        run: (principal, pg) => service.listPartners(principal, pg),
      },
      create: {
        operationId: "createPartner",
        summary: "Create a trading partner (admin:write)",
        description: "A partner is a name; its connections and API keys refer to it.",
        body: CreatePartnerBody,
        response: PartnerItem,
        run: (principal, body) => service.createPartner(principal, body),
      },
      read: {
        operationId: "getPartner",
        summary: "Read a trading partner (admin:read)",
        description: "One partner of the tenant; an unknown id is 404.",
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
          operationId: "updatePartner",
          summary: "Rename a trading partner (admin:write)",
          description: "Replaces the partner's name.",
          tags,
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
      list: {
        operationId: "listConnections",
        summary: "List partner connections, oldest first, optionally one partner's (admin:read)",
        description: `In creation order. \`partnerId\` narrows the list to one partner's connections; ${partnerCursor} ${pagedDescription}`,
        query: ConnectionQuery,
        response: ConnectionList,
        run: (principal, pg, query) => service.listConnections(principal, { ...query, ...pg }),
      },
      create: {
        operationId: "createConnection",
        summary: "Create a connection to a partner with its first profile (admin:write)",
        description:
          "A connection is where one partner uploads interchanges and collects replies, under an EDIFACT profile (directory, syntax, identifications, which replies to send). The profile becomes revision 1, active; the partner must exist (else 404).",
        body: CreateConnectionBody,
        response: ConnectionItem,
        run: (principal, body) => service.createConnection(principal, body),
      },
      read: {
        operationId: "getConnection",
        summary: "Read a connection with its active profile (admin:read)",
        description: "One connection of the tenant; an unknown id is 404.",
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
          operationId: "updateConnection",
          summary:
            "Rename, suspend or reactivate a connection, or change its collection deadline (admin:write)",
          description:
            "Changes the name, the status or the collection deadline (any of them). A suspended connection refuses uploads and mailbox reads until it is active again. A new collection deadline applies to the deliveries not yet overdue.",
          tags,
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
          operationId: "listProfileRevisions",
          summary: "List a connection's profile revisions (admin:read)",
          description: `Every revision of the connection's profile, the active one marked. ${pagedDescription}`,
          tags,
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
          operationId: "createProfileRevision",
          summary: "Add a profile revision to a connection (admin:write)",
          description:
            "The next revision number, not active until activated; uploads keep using the active revision.",
          tags,
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
          operationId: "getProfileRevision",
          summary: "Read one profile revision (admin:read)",
          description: "An unknown connection or revision is 404.",
          tags,
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
          operationId: "activateProfileRevision",
          summary: "Make a profile revision the active one (admin:write)",
          description:
            "Uploads accepted from now on are processed under this revision; activating the active one changes nothing.",
          tags,
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
      list: {
        operationId: "listApiKeys",
        summary: "List partner API keys, oldest first, optionally one partner's (admin:read)",
        description: `In creation order, revoked keys included. \`partnerId\` narrows the list to one partner's keys; ${partnerCursor} ${pagedDescription}`,
        query: ApiKeyQuery,
        response: ApiKeyList,
        run: (principal, pg, query) => service.listApiKeys(principal, { ...query, ...pg }),
      },
      create: {
        operationId: "createApiKey",
        summary: "Issue a partner API key (admin:write)",
        description:
          "A key for one partner with partner scopes, optionally limited to some of its connections. The token `<apiKeyId>:<secret>` is in this answer only.",
        body: CreateApiKeyBody,
        response: CreatedApiKey,
        run: (principal, body) => service.createApiKey(principal, body),
      },
      read: {
        operationId: "getApiKey",
        summary: "Read a partner API key (admin:read)",
        description: "One key, without its secret; an unknown id is 404.",
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
          operationId: "revokeApiKey",
          summary: "Revoke a partner API key (admin:write, idempotent)",
          description: "The key is refused from now on; revoking a revoked key answers it unchanged.",
          tags,
          params: IdParams,
          response: { 200: ApiKeyItem, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req) => service.revokeApiKey(requirePrincipal(req), req.params.id),
    );

    // Audit events: the trail's verification and export, then the collection
    await app.register(auditTrailRoutes(service, p.auditEvents));
    registerCollectionRoutes(app, {
      ...collection,
      path: p.auditEvents,
      list: {
        operationId: "listAuditEvents",
        summary: "List audit events (admin:read)",
        description:
          "Every administrative act, sign-in and mailbox read of the tenant (rules/contract §7), oldest first " +
          "(`order=desc`: newest first). Narrowed by `type` (one, or a prefix ending in `.` such as `user.`), " +
          "`principalId` (who acted), `targetId` (what was changed) and `occurredFrom` (inclusive) … " +
          "`occurredBefore` (exclusive); a cursor is valid only with the filters and order of the page that " +
          `gave it (else 400). ${pagedDescription}`,
        query: AuditQuery,
        response: AuditEventList,
        run: (principal, pg, query) => service.listAuditEvents(principal, { ...query, ...pg }),
      },
      read: {
        operationId: "getAuditEvent",
        summary: "Read an audit event (admin:read)",
        description: "One audit event; an unknown id is 404.",
        params: IdParams,
        response: AuditEventItem,
        run: (principal, { id }) => service.getAuditEvent(principal, id),
      },
    });

    // Operator views: uploads and deliveries
    registerCollectionRoutes(app, {
      ...collection,
      path: p.uploads,
      list: {
        operationId: "listUploads",
        summary: "List uploads, oldest first, optionally filtered (admin:read)",
        description: `${filterDescription} Each upload with \`outboundCounts\` (messages produced per type) and \`findingCount\`; the findings themselves are on the upload. ${pagedDescription}`,
        query: UploadQuery,
        response: UploadList,
        run: (principal, pg, query) => service.listUploads(principal, { ...query, ...pg }),
      },
      read: {
        operationId: "getUpload",
        summary: "Read an upload with its findings and outbound messages (admin:read)",
        description:
          "One upload: its interchange, status and profile revision; `findings` says why it was rejected (interchange- and message-level syntax findings with their ISO 9735 codes, application findings with the APERAK's error code, each with its segment position); `outbound` lists the messages it produced in mailbox order, each with the UNH reference of the inbound message it answers. An unknown id is 404.",
        params: IdParams,
        response: UploadDetail,
        run: (principal, { id }) => service.getUpload(principal, id),
      },
    });
    /** The operator's reads of a stored interchange (an upload's or a delivery's): bytes and segment tree. */
    const interchangeReads = (
      path: string,
      docs: Record<"content" | "segments", { operationId: string; summary: string; description: string }>,
      run: {
        content: (principal: Principal, id: string) => Promise<Buffer>;
        segments: (principal: Principal, id: string) => Promise<Static<typeof SegmentsView>>;
      },
    ) => {
      const errors = problemResponses(400, 401, 403, 404, 500, 503);
      app.get(
        `${path}/:id/content`,
        {
          config: read,
          schema: {
            ...docs.content,
            tags,
            params: IdParams,
            response: {
              200: {
                description: "The EDIFACT bytes exactly as stored, with Content-Length",
                headers: { "Cache-Control": { type: "string", const: "no-store" } },
                content: {
                  "application/edifact": {
                    schema: { type: "string", format: "binary" },
                    example: edifactExample,
                  },
                },
              },
              ...errors,
            },
          },
        },
        async (req, reply) =>
          reply
            .header("content-type", "application/edifact")
            .header("cache-control", "no-store")
            .send(await run.content(requirePrincipal(req), req.params.id)),
      );
      app.get(
        `${path}/:id/segments`,
        {
          config: read,
          schema: { ...docs.segments, tags, params: IdParams, response: { 200: SegmentsView, ...errors } },
        },
        async (req) => run.segments(requirePrincipal(req), req.params.id),
      );
    };
    interchangeReads(
      p.uploads,
      {
        content: {
          operationId: "getUploadContent",
          summary: "Read the bytes of an upload (admin:read, audited)",
          description:
            "The interchange exactly as the partner uploaded it. Each read is audited as `upload.content.read` with its byte count; the bytes are never logged. An unknown id is 404.",
        },
        segments: {
          operationId: "getUploadSegments",
          summary: "Read an upload as a segment tree with its findings (admin:read, audited)",
          description:
            "Every segment with its position, depth, segment group and text, walked against the directory of the upload's profile, with the upload's findings on their segments (`hanse edi inspect` as JSON). Audited as `upload.content.read` (data `view: segments`). An unknown id is 404.",
        },
      },
      {
        content: (principal, id) => service.getUploadContent(principal, id),
        segments: (principal, id) => service.getUploadSegments(principal, id),
      },
    );
    registerCollectionRoutes(app, {
      ...collection,
      path: p.deliveries,
      list: {
        operationId: "listDeliveries",
        summary: "List outbound deliveries, oldest first, optionally filtered (admin:read)",
        description: `${filterDescription} \`uploadId\`, \`messageType\`, \`partnerId\` and \`overdue=true\` narrow it to what one upload produced, to one message type, to one partner's connections or to the overdue deliveries. ${pagedDescription}`,
        query: DeliveryQuery,
        response: DeliveryList,
        run: (principal, pg, query) => service.listDeliveries(principal, { ...query, ...pg }),
      },
      read: {
        operationId: "getDelivery",
        summary: "Read an outbound delivery (admin:read)",
        description: "One mailbox delivery: its message, status, attempts and receipt; an unknown id is 404.",
        params: IdParams,
        response: DeliveryItem,
        run: (principal, { id }) => service.getDelivery(principal, id),
      },
    });
    interchangeReads(
      p.deliveries,
      {
        content: {
          operationId: "getDeliveryContent",
          summary: "Read the bytes of an outbound delivery (admin:read, audited)",
          description:
            "The outbound interchange exactly as the partner downloads it. Does not claim the delivery, change its state or count as the partner's read. Audited as `delivery.content.read` with its byte count; the bytes are never logged. An unknown id is 404.",
        },
        segments: {
          operationId: "getDeliverySegments",
          summary: "Read an outbound delivery as a segment tree (admin:read, audited)",
          description:
            "Every segment with its position, depth, segment group and text, each message walked against the directory its UNH names (CONTRL against its service message). Audited as `delivery.content.read` (data `view: segments`). An unknown id is 404.",
        },
      },
      {
        content: (principal, id) => service.getDeliveryContent(principal, id),
        segments: (principal, id) => service.getDeliverySegments(principal, id),
      },
    );
    app.post(
      `${p.deliveries}/:id/requeue`,
      {
        config: write,
        schema: {
          operationId: "requeueDelivery",
          summary: "Put a failed delivery back into the mailbox (admin:write)",
          description:
            "A delivery that failed (its attempts used up) becomes due again with fresh attempts; one in another state is 409.",
          tags,
          params: IdParams,
          response: { 200: DeliveryItem, ...problemResponses(400, 401, 403, 404, 409, 500, 503) },
        },
      },
      async (req) => service.requeueDelivery(requirePrincipal(req), req.params.id),
    );
    app.post(
      `${p.deliveries}/:id/resend`,
      {
        config: write,
        schema: {
          operationId: "resendDelivery",
          summary: "Re-send a delivery a partner lost, as a new mailbox item (admin:write)",
          description:
            "A new delivery at the end of the connection's mailbox: a new `deliveryAttemptId`, status `ready` with a fresh attempt budget, the same payload (the same stored bytes, not a copy), interchange, message type and reference, upload and inbound interchange, and `resentFrom` naming the original. Allowed whatever the original's status (an acknowledged delivery included), which it leaves unchanged. Audited as `delivery.resent`. An unknown id is 404.",
          tags,
          params: IdParams,
          response: { 201: DeliveryItem, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (req, reply) =>
        reply.code(201).send(await service.resendDelivery(requirePrincipal(req), req.params.id)),
    );
  };
