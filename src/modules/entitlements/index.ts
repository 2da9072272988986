import type { FastifyPluginAsync } from "fastify";
import type { Transaction } from "kysely";
import { decideEntitlement, type Entitlement, type EntitlementDecision } from "@hanse/client/protocol";
import type { ServiceAuthenticator } from "../../platform/auth/index.js";
import { sealingKey, secretKeysOf } from "../../platform/crypto/index.js";
import { entitlementSealedColumns } from "./sealed-columns.js";
import type { EntrypointDefinition } from "../../platform/http/entrypoints.js";
import { crudActions } from "../../platform/http/entrypoints.js";
import type { HanseModule, ModuleDeps } from "../module.js";
import { createEntitlementsService, entitlementAdminPaths, entitlementAdminRoutes } from "./admin/index.js";
import * as repo from "./entitlements.repository.js";
import {
  AppSchema,
  BindingSchema,
  CreateAppBody,
  CreateBindingBody,
  CreateSubscriptionBody,
  EntitlementSchema,
  PutEntitlementBody,
  SubscriptionSchema,
} from "./entitlements.schemas.js";
import { registerEntitlementMetrics } from "./entitlements.metrics.js";
import { entitlementTables, type EntitlementTables, type OperatorEvent } from "./entitlements.tables.js";
import { createKeyRing, signingKeysAdmin } from "./grants/index.js";
import { entitlementHousekeepingJob } from "./housekeeping.job.js";
import { createServiceApi, jwksPath, serviceRoutes } from "./read/index.js";
import { createBindingsService, createServiceAuthenticator } from "./service-auth/index.js";
import {
  createWebhooksService,
  stopBindingSubscriptions,
  webhookDeliveryJob,
  webhooksRoutes,
  type WebhookCounters,
} from "./webhooks/index.js";

/*
 * Entitlements in five parts: service-auth/ (service bindings, their credentials, the signed-request
 * check), read/ (introspection, snapshot, change feed and grants for a service; the JWKS), grants/
 * (the signing keys: key ring, rotation, their administration), webhooks/ (subscriptions, deliveries,
 * operator events), admin/ (apps and entitlements, their only writer). The tables, schemas, metrics,
 * the entitlement statements and the housekeeping job are shared at this level. This file is its
 * public surface.
 */

export type { EntitlementTables } from "./entitlements.tables.js";
export { raiseOperatorEventsSql } from "./webhooks/index.js";
export type { OperatorEvent, OperatorEventSubject, OperatorEventType } from "./entitlements.tables.js";

/**
 * Raises an operator event (rules/contract §8) in the caller's transaction, the one that makes the state
 * change it reports: the webhooks part, the only writer of its tables, queues one delivery per
 * operator subscription of the tenant that takes the event's type.
 */
export type RaiseOperatorEvent = (
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  trx: Transaction<any>,
  event: OperatorEvent,
) => Promise<void>;
export const entitlementsCapability = "entitlements.service";

export interface EntitlementsModule extends HanseModule {
  /** Webhook delivery counters (attempts, outcomes, commit-to-delivery lag) for metrics. */
  webhookCounters: WebhookCounters;
  serviceAuthenticator: ServiceAuthenticator;
  /** Operator notifications (rules/contract §8): what the exchange and workflows raise their events through. */
  raiseOperatorEvent: RaiseOperatorEvent;
  /** What discovery reports (rules/contract §3). */
  discovery: { issuer: string; jwksUri: string };
  /**
   * The native resolver (rules/interface C rule 4's first mode): one actor's entitlement decision for code in
   * this process, isolated by tenant, decided as introspection decides.
   */
  resolveEntitlement(
    tenantId: string,
    appId: string,
    actorId: string,
    requiredCapabilities?: readonly string[],
  ): Promise<EntitlementDecision & { entitlement: Entitlement | null }>;
}

export function createEntitlementsModule(deps: ModuleDeps): EntitlementsModule {
  const database = deps.database.as<EntitlementTables>();
  const seal = sealingKey(secretKeysOf(deps.config), deps.database.db, "entitlement-secrets");
  const keys = createKeyRing({
    clock: deps.clock,
    sealingKey: seal,
    grantTtlSeconds: deps.config.HANSE_GRANT_TTL_SECONDS,
  });
  const webhooks = createWebhooksService({ ...deps, sealingKey: seal });
  const counters: WebhookCounters = {
    attempts: 0,
    delivered: 0,
    failedAttempts: 0,
    gaveUp: 0,
    disabled: 0,
    recentLagsMs: [],
  };
  const countChange = registerEntitlementMetrics(deps.metrics, {
    db: deps.database.db,
    clock: deps.clock,
    counters,
  });
  const entitlements = createEntitlementsService({
    ...deps,
    onChange: (trx, change) => {
      countChange();
      return webhooks.enqueueChange(trx, change);
    },
  });
  const bindings = createBindingsService({ ...deps, sealingKey: seal, onRevoke: stopBindingSubscriptions });
  const api = createServiceApi({ ...deps, keys });
  const p = entitlementAdminPaths;

  const routes: FastifyPluginAsync = async (app) => {
    await app.register(entitlementAdminRoutes(entitlements, bindings));
    await app.register(serviceRoutes(api));
    await app.register(signingKeysAdmin({ ...deps, keys }));
    await app.register(webhooksRoutes(webhooks));
  };

  const admin = (
    id: string,
    href: string,
    schemas: EntrypointDefinition["schemas"],
    extra = crudActions(href, { read: "admin:read", write: "admin:write" }),
  ): EntrypointDefinition => ({
    id,
    kind: "crud",
    href,
    tenantTypes: ["system", "customer"],
    actions: extra,
    ...(schemas ? { schemas } : {}),
  });

  return {
    name: "entitlements",
    routes,
    apiTags: [
      {
        name: "entitlements-admin",
        description:
          "A tenant's apps and their capabilities, each actor's entitlement (plan, status, validity), and the " +
          "service bindings (with their credentials) through which separately deployed services read them.",
      },
      {
        name: "entitlements-service",
        description:
          "What a separately deployed service calls with a signed request (X-Platform-Service-* headers): " +
          "introspection, snapshot and change feed of its app's entitlements, and short-lived Ed25519 grants; " +
          "the public JWKS that verifies them.",
      },
      {
        name: "webhooks",
        description:
          "Webhook subscriptions that push a binding's entitlement changes, or a tenant's operator events " +
          "(rejected and failed uploads, failed and overdue deliveries, failed workflow requests), to an " +
          "HTTPS URL (Standard Webhooks signatures), their delivery attempts, and recovery from a sequence.",
      },
      {
        name: "signing-keys",
        description:
          "The Ed25519 keys that sign a tenant's grants: rotation and withdrawal (system tenant only).",
      },
    ],
    prepare: async () => {
      await seal();
    },
    sealedColumns: entitlementSealedColumns(deps.database.db, seal),
    serviceAuthenticator: createServiceAuthenticator({
      database,
      clock: deps.clock,
      sealingKey: seal,
    }),
    discovery: {
      issuer: deps.config.HANSE_PUBLIC_URL,
      jwksUri: `${deps.config.HANSE_PUBLIC_URL}${jwksPath}`,
    },
    capabilities: [entitlementsCapability],
    webhookCounters: counters,
    raiseOperatorEvent: (trx, event) =>
      webhooks.raiseOperatorEvent(trx as Transaction<EntitlementTables>, event),
    jobs: [
      webhookDeliveryJob({
        database: deps.database,
        clock: deps.clock,
        jobs: deps.jobs,
        newId: deps.newId,
        logger: deps.logger,
        outbound: deps.outbound,
        sealingKey: seal,
        timeoutMs: deps.config.HANSE_WEBHOOK_TIMEOUT_MS,
        leaseMs: deps.config.HANSE_JOB_LEASE_SECONDS * 1000,
        disableAfterMs: deps.config.HANSE_WEBHOOK_DISABLE_AFTER_SECONDS * 1000,
        counters,
      }),
      entitlementHousekeepingJob({
        database: deps.database,
        clock: deps.clock,
        logger: deps.logger,
        keys,
        feedRetentionSeconds: deps.config.HANSE_FEED_RETENTION_SECONDS,
        keyRotationSeconds: deps.config.HANSE_SIGNING_KEY_ROTATION_DAYS * 86400,
      }),
    ],
    provisioningSteps: [
      {
        name: "entitlement-state",
        run: (trx, { tenantId }) => entitlements.provisionTenant(entitlementTables(trx), tenantId),
      },
      {
        name: "signing-keys",
        run: (trx, { tenantId }) => keys.provision(entitlementTables(trx), tenantId),
      },
    ],
    entrypoints: [
      admin("admin.apps", p.apps, { create: CreateAppBody, update: null, item: AppSchema }),
      admin(
        "admin.entitlements",
        p.entitlements,
        { create: PutEntitlementBody, update: PutEntitlementBody, item: EntitlementSchema },
        [
          { id: "list", method: "GET", href: p.entitlements, anyScopes: ["admin:read"] },
          { id: "read", method: "GET", href: `${p.entitlements}/{actorId}`, anyScopes: ["admin:read"] },
          { id: "update", method: "PUT", href: `${p.entitlements}/{actorId}`, anyScopes: ["admin:write"] },
          {
            id: "history",
            method: "GET",
            href: `${p.entitlements}/{actorId}/changes`,
            anyScopes: ["admin:read"],
          },
        ],
      ),
      admin(
        "admin.serviceBindings",
        p.bindings,
        { create: CreateBindingBody, update: null, item: BindingSchema },
        [
          ...crudActions(p.bindings, { read: "admin:read", write: "admin:write" }),
          { id: "rotate", method: "POST", href: `${p.bindings}/{id}/rotate`, anyScopes: ["admin:write"] },
          { id: "revoke", method: "POST", href: `${p.bindings}/{id}/revoke`, anyScopes: ["admin:write"] },
        ],
      ),
      admin(
        "admin.webhookSubscriptions",
        p.subscriptions,
        { create: CreateSubscriptionBody, update: null, item: SubscriptionSchema },
        [
          ...crudActions(p.subscriptions, { read: "admin:read", write: "admin:write" }),
          {
            id: "attempts",
            method: "GET",
            href: `${p.subscriptions}/{id}/attempts`,
            anyScopes: ["admin:read"],
          },
          {
            id: "enable",
            method: "POST",
            href: `${p.subscriptions}/{id}/enable`,
            anyScopes: ["admin:write"],
          },
          {
            id: "disable",
            method: "POST",
            href: `${p.subscriptions}/{id}/disable`,
            anyScopes: ["admin:write"],
          },
          {
            id: "recover",
            method: "POST",
            href: `${p.subscriptions}/{id}/recover`,
            anyScopes: ["admin:write"],
          },
          {
            id: "rotateSecret",
            method: "POST",
            href: `${p.subscriptions}/{id}/rotate-secret`,
            anyScopes: ["admin:write"],
          },
          { id: "delete", method: "DELETE", href: `${p.subscriptions}/{id}`, anyScopes: ["admin:write"] },
        ],
      ),
    ],
    async resolveEntitlement(tenantId, appId, actorId, requiredCapabilities = []) {
      const row = await repo.findEntitlementPrepared(database, tenantId, appId, actorId);
      const entitlement = row ? repo.toEntitlement(row) : null;
      return { ...decideEntitlement(entitlement, requiredCapabilities, deps.clock.now()), entitlement };
    },
  };
}
