import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../../platform/clock/clock.js";
import { openSealedSecret } from "../../platform/crypto/index.js";
import type { Database } from "../../platform/db/database.js";
import { defineJob, type JobDefinition, type JobQueue } from "../../platform/jobs/index.js";
import { OutboundError, signWebhook, type OutboundClient } from "../../platform/outbound/index.js";
import type { EntitlementTables } from "./entitlements.tables.js";
import * as repo from "./webhooks.repository.js";

export const webhookDeliveryJobName = "entitlements.webhook-delivery";

/**
 * Delay before attempt n + 1 after n failed attempts: the first retry within 10 s, then spread
 * over more than 24 h (CONTRACT §5: at least 24 h). Ten attempts in all.
 */
export const webhookRetryDelaysMs = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
];

export interface WebhookDeliveryPayload {
  tenantId: string;
  deliveryId: string;
}

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

export const webhookJobKey = (deliveryId: string, attempt: number) => `webhook:${deliveryId}:${attempt}`;

const jitter = (ms: number, random: () => number) => Math.round(ms * (0.9 + 0.2 * random()));

export function webhookDeliveryJob(deps: {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  newId: () => string;
  logger: Pick<FastifyBaseLogger, "info" | "warn">;
  outbound: OutboundClient;
  sealingKey: () => Promise<Buffer>;
  timeoutMs: number;
  disableAfterMs: number;
  counters: WebhookCounters;
  random?: () => number;
}): JobDefinition<WebhookDeliveryPayload> {
  const database = deps.database.as<EntitlementTables>();
  const random = deps.random ?? Math.random;

  return defineJob<WebhookDeliveryPayload>({
    name: webhookDeliveryJobName,
    maxAttempts: 5,
    async run({ tenantId, deliveryId }) {
      // Read (no lock), send, then record under the delivery row's lock: no transaction is held
      // open while the receiver answers.
      const found = await repo.findDelivery(database.db, tenantId, deliveryId);
      if (!found || found.delivery.state !== "pending") return;
      const { delivery, subscription } = found;
      const now = deps.clock.now();
      if (!subscription.enabled) {
        await database.transaction((trx) =>
          repo.cancelPendingDeliveries(trx, tenantId, subscription.id, now),
        );
        return;
      }
      const key = await deps.sealingKey();
      const secrets = [openSealedSecret(key, subscription.secret, "webhook secret")];
      if (subscription.previous_secret && (subscription.previous_secret_expires_at ?? now) > now) {
        secrets.push(openSealedSecret(key, subscription.previous_secret, "webhook secret"));
      }
      // No rights in the body (spec C rule 5): receivers read the feed.
      const body = JSON.stringify({
        eventId: delivery.event_id,
        type: "entitlement.changed",
        tenantId,
        appId: delivery.app_id,
        sequence: delivery.sequence,
        actorId: delivery.actor_id,
        occurredAt: delivery.occurred_at.toISOString(),
      });
      const timestamp = Math.floor(now.getTime() / 1000);
      const headers = {
        "content-type": "application/json",
        "user-agent": "hanse-webhooks/1",
        "webhook-id": delivery.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": secrets.map((s) => signWebhook(s, delivery.id, timestamp, body)).join(" "),
      };
      let status: number | null = null;
      let retryAfterMs: number | undefined;
      let errorClass: string | null = null;
      let latencyMs = 0;
      const started = deps.clock.now().getTime();
      try {
        const response = await deps.outbound.post(subscription.url, body, headers, deps.timeoutMs);
        ({ status, retryAfterMs, latencyMs } = response);
      } catch (error) {
        errorClass = error instanceof OutboundError ? error.errorClass : "protocol";
        latencyMs = Math.max(0, deps.clock.now().getTime() - started);
      }
      deps.counters.attempts++;
      const at = deps.clock.now();
      const attempt = delivery.attempts + 1;
      const delivered = status !== null && status >= 200 && status < 300;
      const attemptRow = {
        tenant_id: tenantId,
        id: deps.newId(),
        subscription_id: subscription.id,
        delivery_id: delivery.id,
        sequence: delivery.sequence,
        attempt,
        attempted_at: at,
        status,
        latency_ms: Math.round(latencyMs),
        error_class: errorClass ?? (delivered ? null : `http-${String(status)}`),
      };
      if (delivered) {
        // The usual outcome, recorded in one statement; like the transaction below, only while the
        // delivery is still pending at this attempt (another run of this job, after a lease that
        // ran out mid-send, may have recorded it).
        if (await repo.recordDelivered(database.db, attemptRow)) {
          deps.counters.delivered++;
          deps.counters.recentLagsMs.push(at.getTime() - delivery.occurred_at.getTime());
          if (deps.counters.recentLagsMs.length > 1000) deps.counters.recentLagsMs.shift();
        }
        return;
      }
      await database.transaction(async (trx) => {
        // Recorded once: another run of this job (a lease that expired mid-send) may have recorded it.
        const current = await repo.lockDeliveryState(trx, tenantId, deliveryId);
        if (current?.state !== "pending" || current.attempts !== delivery.attempts) return;
        await repo.insertAttempt(trx, attemptRow);
        deps.counters.failedAttempts++;
        const failure = errorClass ?? `http-${String(status)}`;
        if (status === 410) {
          await disable(trx, "the receiver answered 410 Gone", at);
          await repo.updateDelivery(trx, tenantId, delivery.id, {
            state: "cancelled",
            attempts: attempt,
            last_status: status,
            last_error: failure,
            completed_at: at,
          });
          return;
        }
        const failingSince = current.failing_since ?? at;
        if (!current.failing_since) {
          await repo.updateSubscription(trx, tenantId, subscription.id, { failing_since: at });
        }
        if (at.getTime() - failingSince.getTime() >= deps.disableAfterMs) {
          await disable(
            trx,
            `every delivery failed for ${Math.round(deps.disableAfterMs / 3_600_000)} hours`,
            at,
          );
          await repo.updateDelivery(trx, tenantId, delivery.id, {
            state: "cancelled",
            attempts: attempt,
            last_status: status,
            last_error: failure,
            completed_at: at,
          });
          return;
        }
        const delay = webhookRetryDelaysMs[attempt - 1];
        if (delay === undefined) {
          deps.counters.gaveUp++;
          await repo.updateDelivery(trx, tenantId, delivery.id, {
            state: "failed",
            attempts: attempt,
            last_status: status,
            last_error: failure,
            completed_at: at,
          });
          return;
        }
        const wait = Math.min(Math.max(jitter(delay, random), retryAfterMs ?? 0), 86_400_000);
        const runAt = new Date(at.getTime() + wait);
        await repo.updateDelivery(trx, tenantId, delivery.id, {
          attempts: attempt,
          next_attempt_at: runAt,
          last_status: status,
          last_error: failure,
        });
        await deps.jobs.enqueue(
          trx,
          webhookDeliveryJobName,
          { tenantId, deliveryId },
          {
            key: webhookJobKey(delivery.id, attempt),
            tenantId,
            runAt,
          },
        );

        async function disable(trx2: typeof trx, reason: string, when: Date) {
          deps.counters.disabled++;
          await repo.updateSubscription(trx2, tenantId, subscription.id, {
            enabled: false,
            disabled_reason: reason,
          });
          await repo.cancelPendingDeliveries(trx2, tenantId, subscription.id, when);
          deps.logger.warn({ subscriptionId: subscription.id }, "webhook subscription disabled");
        }
      });
    },
  });
}
