import type { FastifyPluginAsync } from "fastify";
import { ConfigSchema } from "../../config/index.js";
import { createSweepPendingBlobsJob } from "../../platform/blobs/index.js";
import type { JobDefinition } from "../../platform/jobs/index.js";
import { createLeases, createRateLimits } from "../../platform/limits/index.js";
import type { IdentityService, IdentityTables } from "../identity/index.js";
import type { HanseModule, ModuleDeps } from "../module.js";
import type { ExchangeDeps } from "./exchange.deps.js";
import { registerExchangeMetrics } from "./exchange.metrics.js";
import type { ExchangeTables } from "./exchange.tables.js";
import { createInboxService, inboxRoutes } from "./inbox/index.js";
import {
  createMailboxService,
  createOverdueSweepJob,
  createPayloadService,
  expireLeasesJob,
  mailboxRoutes,
  type MailboxService,
} from "./mailbox/index.js";
import { createPartnerRateLimit, partnerApi } from "./partner-api.js";
import { adminEntrypoints, adminRoutes, createAdminService, type AdminService } from "./partners/index.js";
import {
  createProcessingRunner,
  createProcessingService,
  processUploadJob,
  type ProcessingService,
} from "./processing/index.js";

/*
 * The partner exchange in four parts: inbox/ (upload and its checks), processing/ (the job that
 * turns an upload into outbound messages), mailbox/ (list, claim, payload, acknowledge, lease
 * expiry), partners/ (administration and the operator's views). This file is its public surface.
 */

export type { AdminService } from "./partners/index.js";
export type { MailboxService } from "./mailbox/index.js";
export type { ProcessingService } from "./processing/index.js";
export { backlogRefreshMs, acceptUpload } from "./inbox/index.js";
export { leaseBackoffMs, overdueSweepJobName, sweepOverdueDeliveries } from "./mailbox/index.js";
export {
  batchDuplicateLookup,
  duplicateLookup,
  interchangeKeyHash,
  outboundIssues,
  outboundObserver,
  type OutboundType,
} from "./processing/index.js";
export type { ExchangeTables } from "./exchange.tables.js";
export type { Profile } from "./profile.js";

/** Spec A: each payload is limited to 16 MiB. */
export const maxPayloadBytes = 16 * 1024 * 1024;
export const exchangeCapability = "b2b.exchange.partner";
/**
 * The defaults of the per-key rate limit (HANSE_PARTNER_RATE_LIMIT_BURST and _PER_SECOND): a burst
 * of 2000 requests per partner API key (all API processes together), refilled at 1000 per second. A process
 * uses its config; this is for callers that need the defaults (tests of the default app).
 */
export const rateLimit = {
  burst: ConfigSchema.properties.HANSE_PARTNER_RATE_LIMIT_BURST.default as number,
  perSecond: ConfigSchema.properties.HANSE_PARTNER_RATE_LIMIT_PER_SECOND.default as number,
};

export function createExchangeModule(
  deps: ModuleDeps & {
    identity: IdentityService;
    workflows: ExchangeDeps["workflows"];
    raiseOperatorEvent: ExchangeDeps["raiseOperatorEvent"];
  },
): HanseModule & { admin: AdminService; mailbox: MailboxService; processing: ProcessingService } {
  const runner = createProcessingRunner();
  const exchangeDeps: ExchangeDeps = {
    database: deps.database.as<ExchangeTables>(),
    keysDatabase: deps.database.as<ExchangeTables & IdentityTables>(),
    clock: deps.clock,
    newId: deps.newId,
    cursors: deps.cursors,
    jobs: deps.jobs,
    identity: deps.identity,
    workflows: deps.workflows,
    raiseOperatorEvent: deps.raiseOperatorEvent,
    logger: deps.logger,
    mailbox: {
      leaseSeconds: deps.config.HANSE_MAILBOX_LEASE_SECONDS,
      maxAttempts: deps.config.HANSE_MAILBOX_MAX_ATTEMPTS,
      retryBaseSeconds: deps.config.HANSE_MAILBOX_RETRY_BASE_SECONDS,
    },
    maxPayloadBytes,
  };
  const inbox = createInboxService({
    ...exchangeDeps,
    maxConcurrentUploads: deps.config.HANSE_PARTNER_MAX_CONCURRENT_UPLOADS,
    leases: createLeases({ database: deps.database, clock: deps.clock }),
    backlogLimits: {
      maxTotal: deps.config.HANSE_INBOX_MAX_BACKLOG,
      maxPerTenant: deps.config.HANSE_INBOX_MAX_BACKLOG_PER_TENANT,
    },
  });
  const metrics = registerExchangeMetrics(deps.metrics, { db: deps.database.db, clock: deps.clock });
  const processing = createProcessingService({ ...exchangeDeps, runner });
  const mailbox = createMailboxService(exchangeDeps);
  const payloads = metrics.countPayloadReads(createPayloadService(exchangeDeps));
  const admin = createAdminService(exchangeDeps, mailbox);
  const limiter = createPartnerRateLimit(createRateLimits({ database: deps.database, clock: deps.clock }), {
    burst: deps.config.HANSE_PARTNER_RATE_LIMIT_BURST,
    perSecond: deps.config.HANSE_PARTNER_RATE_LIMIT_PER_SECOND,
  });
  const sweepJob = createSweepPendingBlobsJob({
    db: deps.database.db,
    clock: deps.clock,
    logger: deps.logger,
  });

  const overdueSweepJob = createOverdueSweepJob({
    db: deps.database.db,
    clock: deps.clock,
    logger: deps.logger,
  });

  const routes: FastifyPluginAsync = async (app) => {
    await app.register(adminRoutes(admin));
    await app.register(
      partnerApi(limiter, [
        inboxRoutes(inbox, maxPayloadBytes, limiter),
        mailboxRoutes({ ...mailbox, ...payloads }),
      ]),
    );
  };

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
    jobs: [
      processUploadJob(processing),
      expireLeasesJob({
        expireLeases: async (tenantId, connectionId) => {
          const expired = await mailbox.expireLeases(tenantId, connectionId);
          metrics.countLeaseExpiries(expired);
          return expired;
        },
      }),
      sweepJob,
      overdueSweepJob,
    ] as JobDefinition<never>[],
    capabilities: [exchangeCapability],
    entrypoints: adminEntrypoints,
  };
}
