import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../../../platform/clock/clock.js";
import { openSealedSecret, type SealingKeys } from "../../../platform/crypto/index.js";
import type { Database } from "../../../platform/db/database.js";
import { defineJob, type JobDefinition, type JobQueue, type JobSpec } from "../../../platform/jobs/index.js";
import { OutboundError, signWebhook, type OutboundClient } from "../../../platform/outbound/index.js";
import type { EntitlementTables, WebhookSubscriptionsTable } from "../entitlements.tables.js";
import { judgeBatch, type SentAttempt } from "./webhook-outcomes.js";
import * as repo from "./webhooks.repository.js";

export const webhookDeliveryJobName = "entitlements.deliver-webhooks";
/** The delivery job's name and budget (the queue's default), enqueued and defined through this. */
export const webhookDeliveryJobSpec: JobSpec<WebhookDeliveryPayload> = { name: webhookDeliveryJobName };
/** Deliveries of one subscription leased and sent at once. */
export const webhookBatchSize = 50;

/** One job per subscription delivers its due deliveries, batch after batch. */
export interface WebhookDeliveryPayload {
  tenantId: string;
  subscriptionId: string;
}

/** Enqueues of a subscription's delivery job coalesce while it waits (one queued job at most). */
export const webhookCoalesceKey = (tenantId: string, subscriptionId: string) =>
  `webhooks:${tenantId}:${subscriptionId}`;

/** Counters for the operations issue's metrics: attempts, outcomes and the lag from commit to delivery. */
export interface WebhookCounters {
  attempts: number;
  delivered: number;
  failedAttempts: number;
  gaveUp: number;
  disabled: number;
  /** Commit-to-delivery lags of delivered events, milliseconds (the last 1,000). */
  recentLagsMs: number[];
}

/**
 * What a delivery POSTs. An entitlement change: no rights (rules/interface C rule 5), receivers read the
 * feed. An operator event (rules/contract §8): its type and subject, ids only, never payload bytes.
 */
export function deliveryBody(tenantId: string, delivery: repo.LeasedDelivery): Record<string, unknown> {
  const occurredAt = delivery.occurred_at.toISOString();
  if (delivery.event_type !== null) {
    return {
      eventId: delivery.event_id,
      type: delivery.event_type,
      tenantId,
      occurredAt,
      subject: delivery.subject ?? {},
    };
  }
  return {
    eventId: delivery.event_id,
    type: "entitlement.changed",
    tenantId,
    appId: delivery.app_id,
    sequence: delivery.sequence,
    actorId: delivery.actor_id,
    occurredAt,
  };
}

export function webhookDeliveryJob(deps: {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  newId: () => string;
  logger: Pick<FastifyBaseLogger, "info" | "warn">;
  outbound: OutboundClient;
  sealingKey: () => Promise<SealingKeys>;
  timeoutMs: number;
  /** How long a batch's deliveries stay leased without a renewal (the job lease). */
  leaseMs: number;
  disableAfterMs: number;
  counters: WebhookCounters;
  random?: () => number;
}): JobDefinition<WebhookDeliveryPayload> {
  const database = deps.database.as<EntitlementTables>();
  const db = database.db;
  const random = deps.random ?? Math.random;
  const leaseEnd = () => new Date(deps.clock.now().getTime() + deps.leaseMs);

  /** POSTs a batch concurrently (lowest sequence first), keeping its lease while they run. */
  async function send(
    subscription: WebhookSubscriptionsTable,
    batch: readonly repo.LeasedDelivery[],
  ): Promise<SentAttempt[]> {
    const now = deps.clock.now();
    const key = await deps.sealingKey();
    const secrets = [openSealedSecret(key, subscription.secret, "webhook secret")];
    if (subscription.previous_secret && (subscription.previous_secret_expires_at ?? now) > now) {
      secrets.push(openSealedSecret(key, subscription.previous_secret, "webhook secret"));
    }
    const ids = batch.map((d) => d.id);
    const heartbeat = setInterval(() => {
      repo.renewLease(db, subscription.tenant_id, ids, leaseEnd()).catch(() => undefined);
    }, deps.leaseMs / 3);
    try {
      return await Promise.all(batch.map((delivery) => post(subscription, secrets, delivery)));
    } finally {
      clearInterval(heartbeat);
    }
  }

  async function post(
    subscription: WebhookSubscriptionsTable,
    secrets: readonly string[],
    delivery: repo.LeasedDelivery,
  ): Promise<SentAttempt> {
    const body = JSON.stringify(deliveryBody(subscription.tenant_id, delivery));
    const started = deps.clock.now().getTime();
    const timestamp = Math.floor(started / 1000);
    const headers = {
      "content-type": "application/json",
      "user-agent": "hanse-webhooks/1",
      "webhook-id": delivery.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": secrets.map((s) => signWebhook(s, delivery.id, timestamp, body)).join(" "),
    };
    const sent = {
      deliveryId: delivery.id,
      attempt: delivery.attempts + 1,
      attemptId: deps.newId(),
    };
    try {
      const response = await deps.outbound.post(subscription.url, body, headers, deps.timeoutMs);
      return { ...sent, ...response, errorClass: null };
    } catch (error) {
      const errorClass = error instanceof OutboundError ? error.errorClass : "protocol";
      const latencyMs = Math.max(0, deps.clock.now().getTime() - started);
      return { ...sent, status: null, retryAfterMs: undefined, errorClass, latencyMs };
    }
  }

  /**
   * Records a batch: all delivered in one statement; with failures, in a transaction that holds
   * the subscription's row, since its failing period and its disabling depend on it.
   */
  async function record(
    subscription: WebhookSubscriptionsTable,
    batch: readonly repo.LeasedDelivery[],
    sent: readonly SentAttempt[],
  ): Promise<void> {
    const { tenant_id: tenantId, id: subscriptionId } = subscription;
    const at = deps.clock.now();
    deps.counters.attempts += sent.length;
    const count = (verdict: ReturnType<typeof judgeBatch>, recorded: Set<string>) => {
      for (const outcome of verdict.outcomes) {
        if (!recorded.has(outcome.deliveryId)) continue;
        if (outcome.state !== "delivered") {
          deps.counters.failedAttempts++;
          if (outcome.state === "failed") deps.counters.gaveUp++;
          continue;
        }
        deps.counters.delivered++;
        const delivery = batch.find((d) => d.id === outcome.deliveryId);
        if (delivery) deps.counters.recentLagsMs.push(at.getTime() - delivery.occurred_at.getTime());
      }
      deps.counters.recentLagsMs.splice(0, deps.counters.recentLagsMs.length - 1000);
    };
    const context = { at, disableAfterMs: deps.disableAfterMs, random };
    if (sent.every((s) => s.status !== null && s.status >= 200 && s.status < 300)) {
      const verdict = judgeBatch(sent, { ...context, failingSince: null });
      count(verdict, await repo.recordOutcomes(db, tenantId, subscriptionId, verdict.outcomes));
      return;
    }
    await database.transaction(async (trx) => {
      const current = await repo.lockSubscriptionState(trx, tenantId, subscriptionId);
      const verdict = judgeBatch(sent, { ...context, failingSince: current?.failing_since ?? null });
      const recorded = await repo.recordOutcomes(trx, tenantId, subscriptionId, verdict.outcomes);
      count(verdict, recorded);
      if (recorded.size === 0 || !current?.enabled) return;
      if (verdict.disable) {
        deps.counters.disabled++;
        await repo.updateSubscription(trx, tenantId, subscriptionId, {
          enabled: false,
          disabled_reason: verdict.disable,
        });
        await repo.cancelPendingDeliveries(trx, tenantId, subscriptionId, at);
        deps.logger.warn({ subscriptionId }, "webhook subscription disabled");
      } else if (verdict.failingSince && !current.failing_since) {
        await repo.updateSubscription(trx, tenantId, subscriptionId, { failing_since: verdict.failingSince });
      }
    });
  }

  const job: JobDefinition<WebhookDeliveryPayload> = defineJob<WebhookDeliveryPayload>({
    ...webhookDeliveryJobSpec,
    /**
     * Leases a batch of due deliveries, sends it, records it — no transaction is held open while
     * receivers answer — until none is due; then runs again when the next one is due.
     */
    async run({ tenantId, subscriptionId }, { signal }) {
      for (;;) {
        const subscription = await repo.findSubscription(db, tenantId, subscriptionId);
        if (!subscription) return;
        const now = deps.clock.now();
        if (!subscription.enabled) {
          await repo.cancelPendingDeliveries(db, tenantId, subscriptionId, now);
          return;
        }
        const batch = await repo.leaseDeliveries(
          db,
          tenantId,
          subscriptionId,
          now,
          leaseEnd(),
          webhookBatchSize,
        );
        if (batch.length > 0) await record(subscription, batch, await send(subscription, batch));
        if (batch.length < webhookBatchSize || signal.aborted) break;
      }
      const next = await repo.earliestPending(db, tenantId, subscriptionId);
      if (next) {
        await deps.jobs.enqueue(
          db,
          job,
          { tenantId, subscriptionId },
          { tenantId, coalesceKey: webhookCoalesceKey(tenantId, subscriptionId), runAt: next },
        );
      }
    },
  });
  return job;
}
