import type { Transaction } from "kysely";
import type { Config } from "../../../config/index.js";
import { actorOf, recordAudit } from "../../../platform/audit/index.js";
import type { Principal } from "../../../platform/auth/index.js";
import { isUuid, sealSecret, type SealingKeys } from "../../../platform/crypto/index.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { pageOf, readCreationPage, type PageRequest } from "../../../platform/http/cursor.js";
import { newWebhookSecret, OutboundTargetError } from "../../../platform/outbound/index.js";
import type { ModuleDeps } from "../../module.js";
import { findBinding } from "../service-auth/index.js";
import type {
  CommittedChange,
  EntitlementTables,
  OperatorEvent,
  OperatorEventType,
  WebhookAttemptsTable,
  WebhookSubscriptionsTable,
} from "../entitlements.tables.js";
import { webhookCoalesceKey, webhookDeliveryJobSpec } from "./webhook-delivery.job.js";
import * as repo from "./webhooks.repository.js";

type Deps = Pick<ModuleDeps, "database" | "clock" | "newId" | "cursors" | "jobs" | "outbound"> & {
  config: Pick<Config, "HANSE_CREDENTIAL_OVERLAP_SECONDS">;
  sealingKey: () => Promise<SealingKeys>;
};
type Trx = Transaction<EntitlementTables>;

const toSubscription = (row: WebhookSubscriptionsTable) => ({
  id: row.id,
  bindingId: row.binding_id,
  appId: row.app_id,
  url: row.url,
  eventTypes: row.event_types as OperatorEventType[] | null,
  enabled: row.enabled,
  disabledReason: row.disabled_reason,
  failingSince: row.failing_since?.toISOString() ?? null,
  createdAt: row.created_at.toISOString(),
});

const toAttempt = (row: WebhookAttemptsTable) => ({
  id: row.id,
  deliveryId: row.delivery_id,
  sequence: row.sequence,
  attempt: row.attempt,
  attemptedAt: row.attempted_at.toISOString(),
  status: row.status,
  latencyMs: row.latency_ms,
  errorClass: row.error_class,
});

const noSuchSubscription = () => new AppError("ERR_NOT_FOUND", "No such webhook subscription.");

/** Webhook subscriptions (rules/contract §5): registration, the outbox of deliveries, and their administration. */
export function createWebhooksService(deps: Deps) {
  const database = deps.database.as<EntitlementTables>();
  const db = database.db;

  const invalidUrl = (message: string) =>
    new AppError("ERR_VALIDATION", `The webhook URL is not usable: ${message}.`, {
      errors: [{ pointer: "/url", message }],
    });

  /** Wakes the delivery job of each subscription (one queued job per subscription at most). */
  async function enqueue(trx: Trx, tenantId: string, subscriptionIds: readonly string[]) {
    for (const subscriptionId of new Set(subscriptionIds)) {
      await deps.jobs.enqueue(
        trx,
        webhookDeliveryJobSpec,
        { tenantId, subscriptionId },
        { tenantId, coalesceKey: webhookCoalesceKey(tenantId, subscriptionId) },
      );
    }
  }

  const badEventTypes = (message: string) =>
    new AppError("ERR_VALIDATION", `The event types are not usable: ${message}.`, {
      errors: [{ pointer: "/eventTypes", message }],
    });

  /** A binding's app, or the event types of an operator subscription; nothing else is accepted. */
  async function subscriptionTarget(
    tenantId: string,
    body: { bindingId?: string | undefined; eventTypes?: OperatorEventType[] | undefined },
  ): Promise<Pick<WebhookSubscriptionsTable, "binding_id" | "app_id" | "event_types">> {
    if (body.bindingId === undefined) {
      if (!body.eventTypes) throw badEventTypes("required for a subscription without bindingId");
      return { binding_id: null, app_id: null, event_types: [...body.eventTypes] };
    }
    if (body.eventTypes !== undefined) {
      throw badEventTypes("a binding's subscription receives its app's entitlement changes; omit it");
    }
    const binding = isUuid(body.bindingId)
      ? await findBinding(db, tenantId, body.bindingId.toLowerCase())
      : undefined;
    if (!binding) {
      throw new AppError("ERR_VALIDATION", "The tenant has no service binding with this id.", {
        errors: [{ pointer: "/bindingId", message: "no such service binding" }],
      });
    }
    if (binding.revoked_at) {
      throw new AppError("ERR_VALIDATION", "The service binding is revoked.", {
        errors: [{ pointer: "/bindingId", message: "the service binding is revoked" }],
      });
    }
    return { binding_id: binding.id, app_id: binding.app_id, event_types: null };
  }

  async function subscriptionOf(trx: Trx | typeof db, tenantId: string, id: string) {
    const row = isUuid(id) ? await repo.findSubscription(trx, tenantId, id.toLowerCase()) : undefined;
    if (!row) throw noSuchSubscription();
    return row;
  }

  const audit = (
    trx: Trx,
    principal: Principal,
    type: string,
    subscriptionId: string,
    extra: { changes?: readonly string[]; data?: Record<string, string | number | boolean> } = {},
  ) =>
    recordAudit(trx, {
      tenantId: principal.tenant.id,
      id: deps.newId(),
      type,
      occurredAt: deps.clock.now(),
      actor: actorOf(principal),
      targetType: "webhook_subscription",
      targetId: subscriptionId,
      changes: extra.changes,
      data: { subscriptionId, ...extra.data },
    });

  return {
    /** In a change's transaction: one delivery per enabled subscription of the app, and its job. */
    async enqueueChange(trx: Trx, change: CommittedChange): Promise<void> {
      await enqueue(trx, change.tenantId, await repo.insertDeliveries(trx, change));
    },

    /**
     * In the transaction of the state change it reports (rules/contract §8): one delivery of the operator
     * event per enabled operator subscription of the tenant that takes its type, and their jobs.
     */
    async raiseOperatorEvent(trx: Trx, event: OperatorEvent): Promise<void> {
      const subscriptions = await repo.insertOperatorDeliveries(trx, { ...event, eventId: deps.newId() });
      await enqueue(trx, event.tenantId, subscriptions);
    },

    /**
     * A subscription of a binding (its app's entitlement changes, rules/contract §5) or, without
     * `bindingId`, a tenant's operator subscription to `eventTypes` (rules/contract §8): an HTTPS URL
     * without credentials whose host resolves only to public addresses (checked again at every
     * delivery). Its secret is returned once.
     */
    async create(
      principal: Principal,
      body: { bindingId?: string | undefined; url: string; eventTypes?: OperatorEventType[] | undefined },
    ) {
      const tenantId = principal.tenant.id;
      const target = await subscriptionTarget(tenantId, body);
      let url: URL;
      try {
        url = await deps.outbound.checkTarget(body.url);
      } catch (error) {
        if (error instanceof OutboundTargetError) throw invalidUrl(error.message);
        throw error;
      }
      const secret = newWebhookSecret();
      const row = {
        tenant_id: tenantId,
        id: deps.newId(),
        ...target,
        url: url.href,
        secret: sealSecret(await deps.sealingKey(), secret),
        enabled: true,
        disabled_reason: null,
        failing_since: null,
        previous_secret: null,
        previous_secret_expires_at: null,
        created_at: deps.clock.now(),
        deleted_at: null,
      };
      await database.transaction(async (trx) => {
        await repo.insertSubscription(trx, row);
        await audit(trx, principal, "webhook_subscription.created", row.id);
      });
      return { ...toSubscription(row), secret };
    },

    async get(principal: Principal, id: string) {
      return toSubscription(await subscriptionOf(db, principal.tenant.id, id));
    },

    async list(principal: Principal, page: PageRequest) {
      const tenantId = principal.tenant.id;
      return readCreationPage(
        deps.cursors,
        `admin.webhookSubscriptions:${tenantId}`,
        page,
        (after, order) => repo.listSubscriptions(db, tenantId, page.limit, after, order),
        toSubscription,
      );
    },

    /** Delivery attempts, newest first: time, status, latency and error class, never a body or secret. */
    async attempts(principal: Principal, id: string, page: { limit: number; cursor?: string | undefined }) {
      const subscription = await subscriptionOf(db, principal.tenant.id, id);
      const key = `admin.webhookAttempts:${principal.tenant.id}:${subscription.id}`;
      const after = page.cursor
        ? deps.cursors.decode<{ attemptedAt: string; id: string }>(key, page.cursor)
        : undefined;
      const rows = await repo.listAttempts(db, principal.tenant.id, subscription.id, page.limit, after);
      const { items, meta } = pageOf(deps.cursors, key, rows, page.limit, (last) => ({
        attemptedAt: last.attempted_at.toISOString(),
        id: last.id,
      }));
      return { items: items.map(toAttempt), meta };
    },

    async setEnabled(principal: Principal, id: string, enabled: boolean) {
      return database.transaction(async (trx) => {
        const row = await subscriptionOf(trx, principal.tenant.id, id);
        if (
          enabled &&
          row.binding_id !== null &&
          (await findBinding(trx, row.tenant_id, row.binding_id))?.revoked_at
        ) {
          throw new AppError("ERR_CONFLICT", "The subscription's service binding is revoked.");
        }
        const now = deps.clock.now();
        const values = enabled
          ? { enabled: true, disabled_reason: null, failing_since: null }
          : { enabled: false, disabled_reason: "disabled by an administrator" };
        await repo.updateSubscription(trx, row.tenant_id, row.id, values);
        if (!enabled) await repo.cancelPendingDeliveries(trx, row.tenant_id, row.id, now);
        await audit(trx, principal, "webhook_subscription.updated", row.id, {
          changes: ["enabled"],
          data: { enabled },
        });
        return toSubscription({ ...row, ...values });
      });
    },

    /**
     * rules/contract §7: no delivery of the subscription starts after the answer (its pending ones are
     * cancelled, and a delivery job reads the subscription in the statement that leases them); one
     * already sent may finish. The subscription is kept with its attempts, unseen (404 from then on).
     */
    async delete(principal: Principal, id: string): Promise<void> {
      await database.transaction(async (trx) => {
        const row = await subscriptionOf(trx, principal.tenant.id, id);
        await repo.deleteSubscription(trx, row.tenant_id, row.id, deps.clock.now());
        await audit(trx, principal, "webhook_subscription.deleted", row.id);
      });
    },

    /** Re-sends every change of the app from `fromSequence` on that the feed still holds. */
    async recover(principal: Principal, id: string, fromSequence: number) {
      return database.transaction(async (trx) => {
        const row = await subscriptionOf(trx, principal.tenant.id, id);
        if (!row.enabled) {
          throw new AppError("ERR_CONFLICT", "The subscription is disabled; enable it first.");
        }
        if (row.app_id === null) {
          throw new AppError(
            "ERR_CONFLICT",
            "An operator subscription has no change feed to recover from; its events are delivered at least once.",
          );
        }
        const appId = row.app_id;
        const changes = await repo.changesFrom(trx, row.tenant_id, appId, fromSequence);
        let count = 0;
        for (const change of changes) {
          const subscriptions = await repo.insertDeliveries(
            trx,
            {
              tenantId: row.tenant_id,
              appId,
              sequence: change.sequence,
              eventId: change.event_id,
              actorId: change.actor_id,
              occurredAt: change.occurred_at,
            },
            [row.id],
          );
          count += subscriptions.length;
        }
        if (count > 0) await enqueue(trx, row.tenant_id, [row.id]);
        await audit(trx, principal, "webhook_subscription.recovered", row.id);
        return { subscriptionId: row.id, fromSequence, enqueued: count };
      });
    },

    /** A new secret (shown once); the old one signs too until HANSE_CREDENTIAL_OVERLAP_SECONDS pass. */
    async rotateSecret(principal: Principal, id: string) {
      const secret = newWebhookSecret();
      const sealed = sealSecret(await deps.sealingKey(), secret);
      return database.transaction(async (trx) => {
        const row = await subscriptionOf(trx, principal.tenant.id, id);
        const until = new Date(
          deps.clock.now().getTime() + deps.config.HANSE_CREDENTIAL_OVERLAP_SECONDS * 1000,
        );
        await repo.updateSubscription(trx, row.tenant_id, row.id, {
          secret: sealed,
          previous_secret: row.secret,
          previous_secret_expires_at: until,
        });
        // The field's name only: never the secret.
        await audit(trx, principal, "webhook_subscription.updated", row.id, { changes: ["secret"] });
        return { subscriptionId: row.id, secret, previousSecretValidUntil: until.toISOString() };
      });
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
