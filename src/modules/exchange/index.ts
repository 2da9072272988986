import type { FastifyPluginAsync } from "fastify";
import { ConfigSchema } from "../../config/index.js";
import { createSweepPendingBlobsJob } from "../../platform/blobs/index.js";
import { crudActions, type ActionDefinition } from "../../platform/http/entrypoints.js";
import { defineJob, type JobDefinition } from "../../platform/jobs/index.js";
import type { IdentityService } from "../identity/index.js";
import type { HanseModule, ModuleDeps } from "../module.js";
import { adminPaths, adminRoutes } from "./admin.routes.js";
import { createAdminService, type AdminService } from "./admin.service.js";
import type { ExchangeDeps } from "./exchange.deps.js";
import {
  ApiKeyItem,
  AuditEventItem,
  ConnectionItem,
  CreateApiKeyBody,
  CreateConnectionBody,
  CreatePartnerBody,
  DeliveryItem,
  PartnerItem,
  UpdateConnectionBody,
  UpdatePartnerBody,
  UploadItem,
} from "./exchange.schemas.js";
import type { ExchangeTables } from "./exchange.tables.js";
import { createInboxService } from "./inbox.service.js";
import { createMailboxService, type MailboxService } from "./mailbox.service.js";
import { partnerRoutes } from "./partner.routes.js";
import { KeyRateLimiter } from "../../platform/http/rate-limit.js";
import { createProcessingRunner } from "./processing-runner.js";
import {
  createProcessingService,
  processUploadJobName,
  type ProcessingService,
} from "./processing.service.js";
import { Type } from "@sinclair/typebox";

export type { AdminService } from "./admin.service.js";
export type { MailboxService } from "./mailbox.service.js";
export type { ProcessingService } from "./processing.service.js";

/** Spec A: each payload is limited to 16 MiB. */
export const maxPayloadBytes = 16 * 1024 * 1024;
export const exchangeCapability = "b2b.exchange.partner";
/**
 * The defaults of the per-key rate limit (HANSE_PARTNER_RATE_LIMIT_BURST and _PER_SECOND): a burst
 * of 2000 requests per partner API key and API process, refilled at 1000 per second. A process
 * uses its config; this is for callers that need the defaults (tests of the default app).
 */
export const rateLimit = {
  burst: ConfigSchema.properties.HANSE_PARTNER_RATE_LIMIT_BURST.default as number,
  perSecond: ConfigSchema.properties.HANSE_PARTNER_RATE_LIMIT_PER_SECOND.default as number,
};

const scopes = { read: "admin:read", write: "admin:write" } as const;
const readOnly = (href: string): ActionDefinition[] => [
  { id: "list", method: "GET", href, anyScopes: ["admin:read"] },
  { id: "read", method: "GET", href: `${href}/{id}`, anyScopes: ["admin:read"] },
];
const tenantTypes = ["system", "customer"] as const;

export function createExchangeModule(
  deps: ModuleDeps & { identity: IdentityService; workflows: ExchangeDeps["workflows"] },
): HanseModule & { admin: AdminService; mailbox: MailboxService; processing: ProcessingService } {
  const runner = createProcessingRunner();
  const exchangeDeps: ExchangeDeps = {
    database: deps.database.as<ExchangeTables>(),
    clock: deps.clock,
    newId: deps.newId,
    cursors: deps.cursors,
    jobs: deps.jobs,
    identity: deps.identity,
    workflows: deps.workflows,
    logger: deps.logger,
    mailbox: {
      leaseSeconds: deps.config.HANSE_MAILBOX_LEASE_SECONDS,
      maxAttempts: deps.config.HANSE_MAILBOX_MAX_ATTEMPTS,
      retryBaseSeconds: deps.config.HANSE_MAILBOX_RETRY_BASE_SECONDS,
    },
    maxPayloadBytes,
    maxConcurrentUploads: deps.config.HANSE_PARTNER_MAX_CONCURRENT_UPLOADS,
    backlogLimits: {
      maxTotal: deps.config.HANSE_INBOX_MAX_BACKLOG,
      maxPerTenant: deps.config.HANSE_INBOX_MAX_BACKLOG_PER_TENANT,
    },
    runner,
  };
  const admin = createAdminService(exchangeDeps);
  const processing = createProcessingService(exchangeDeps);
  const processJob = defineJob<{ tenantId: string; uploadId: string }>({
    name: processUploadJobName,
    maxAttempts: 5,
    run: ({ tenantId, uploadId }) => processing.processUpload(tenantId, uploadId),
    onDead: ({ tenantId, uploadId }, error) => processing.failUpload(tenantId, uploadId, error),
  });
  // Lazily bound: the mailbox service enqueues it, the job calls the service.
  const mailboxRef: { current?: MailboxService } = {};
  const expireJob = defineJob<{ tenantId: string; connectionId: string }>({
    name: "exchange.expire-leases",
    maxAttempts: 10,
    run: async ({ tenantId, connectionId }) => {
      await mailboxRef.current?.expireLeases(tenantId, connectionId);
    },
  });
  const mailbox = createMailboxService(exchangeDeps, () => expireJob);
  mailboxRef.current = mailbox;
  const inbox = createInboxService(exchangeDeps, () => processJob);
  const limiter = new KeyRateLimiter(
    deps.clock,
    deps.config.HANSE_PARTNER_RATE_LIMIT_BURST,
    deps.config.HANSE_PARTNER_RATE_LIMIT_PER_SECOND,
  );
  const sweepJob = createSweepPendingBlobsJob({
    db: deps.database.db,
    clock: deps.clock,
    logger: deps.logger,
  });

  const routes: FastifyPluginAsync = async (app) => {
    await app.register(adminRoutes(admin));
    await app.register(partnerRoutes(inbox, mailbox, maxPayloadBytes, limiter));
  };

  const none = Type.Object({}, { additionalProperties: false });
  return {
    name: "exchange",
    admin,
    mailbox,
    processing,
    routes,
    apiTags: [
      {
        name: "exchange-partner",
        description:
          "What a trading partner calls with its API key: upload one EDIFACT interchange per request into a " +
          "connection's inbox, then list, claim, read (with an integrity trailer) and acknowledge the replies in its mailbox.",
      },
      {
        name: "exchange-admin",
        description:
          "Operators set up partners, connections (with EDIFACT profile revisions) and partner API keys, and " +
          "read uploads, deliveries and the audit trail.",
      },
    ],
    close: () => runner.close(),
    // The exchange is the only part that stores blobs, so it also runs their housekeeping.
    jobs: [processJob, expireJob, sweepJob] as JobDefinition<never>[],
    capabilities: [exchangeCapability],
    entrypoints: [
      {
        id: "admin.partners",
        kind: "crud",
        href: adminPaths.partners,
        tenantTypes,
        actions: crudActions(adminPaths.partners, scopes, [
          { id: "update", method: "PATCH", href: `${adminPaths.partners}/{id}`, anyScopes: ["admin:write"] },
        ]),
        schemas: { create: CreatePartnerBody, update: UpdatePartnerBody, item: PartnerItem },
      },
      {
        id: "admin.connections",
        kind: "crud",
        href: adminPaths.connections,
        tenantTypes,
        actions: crudActions(adminPaths.connections, scopes, [
          {
            id: "update",
            method: "PATCH",
            href: `${adminPaths.connections}/{id}`,
            anyScopes: ["admin:write"],
          },
          {
            id: "listProfileRevisions",
            method: "GET",
            href: `${adminPaths.connections}/{id}/profile-revisions`,
            anyScopes: ["admin:read"],
          },
          {
            id: "readProfileRevision",
            method: "GET",
            href: `${adminPaths.connections}/{id}/profile-revisions/{revision}`,
            anyScopes: ["admin:read"],
          },
          {
            id: "createProfileRevision",
            method: "POST",
            href: `${adminPaths.connections}/{id}/profile-revisions`,
            anyScopes: ["admin:write"],
          },
          {
            id: "activateProfileRevision",
            method: "POST",
            href: `${adminPaths.connections}/{id}/profile-revisions/{revision}/activate`,
            anyScopes: ["admin:write"],
          },
        ]),
        schemas: { create: CreateConnectionBody, update: UpdateConnectionBody, item: ConnectionItem },
      },
      {
        id: "admin.apiKeys",
        kind: "crud",
        href: adminPaths.apiKeys,
        tenantTypes,
        actions: crudActions(adminPaths.apiKeys, scopes, [
          {
            id: "revoke",
            method: "POST",
            href: `${adminPaths.apiKeys}/{id}/revoke`,
            anyScopes: ["admin:write"],
          },
        ]),
        schemas: { create: CreateApiKeyBody, update: null, item: ApiKeyItem },
      },
      {
        id: "admin.auditEvents",
        kind: "crud",
        href: adminPaths.auditEvents,
        tenantTypes,
        actions: readOnly(adminPaths.auditEvents),
        schemas: { create: none, update: null, item: AuditEventItem },
      },
      {
        id: "admin.exchangeUploads",
        kind: "crud",
        href: adminPaths.uploads,
        tenantTypes,
        actions: readOnly(adminPaths.uploads),
        schemas: { create: none, update: null, item: UploadItem },
      },
      {
        id: "admin.exchangeDeliveries",
        kind: "crud",
        href: adminPaths.deliveries,
        tenantTypes,
        actions: [
          ...readOnly(adminPaths.deliveries),
          {
            id: "requeue",
            method: "POST",
            href: `${adminPaths.deliveries}/{id}/requeue`,
            anyScopes: ["admin:write"],
          },
        ],
        schemas: { create: none, update: null, item: DeliveryItem },
      },
    ],
  };
}
