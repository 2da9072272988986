import { sql } from "kysely";
import type { Clock } from "../../platform/clock/clock.js";
import type { Executor } from "../../platform/jobs/index.js";
import { ageSeconds, setCounts, type MetricsRegistry } from "../../platform/metrics/index.js";
import type { WebhookCounters } from "./webhooks/index.js";

const deliveryStates = ["pending", "delivered", "failed", "cancelled"] as const;

/** The nearest-rank quantile of `values` (0 when empty). */
function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

/**
 * The entitlements' series: changes written (counted here), webhook deliveries by state and the
 * feed lag (age of the oldest change still pending for a receiver; read at scrape time), and the
 * webhook delivery job's counters of this process (attempts, outcomes, commit-to-delivery lag).
 * Returns what counts a change.
 */
export function registerEntitlementMetrics(
  metrics: MetricsRegistry,
  deps: { db: Executor; clock: Clock; counters: WebhookCounters },
): () => void {
  const changes = metrics.counter({
    name: "hanse_entitlement_changes_total",
    help: "Entitlement changes written by this process (counted in the change's transaction)",
  });
  const deliveries = metrics.gauge({
    name: "hanse_webhook_deliveries",
    help: "Entitlement webhook deliveries by state",
    labelNames: ["state"],
  });
  const feedLag = metrics.gauge({
    name: "hanse_entitlement_feed_lag_seconds",
    help: "Age of the oldest entitlement change still pending delivery to a webhook receiver (0: none)",
  });
  const { counters } = deps;
  metrics.counter({
    name: "hanse_webhook_attempts_total",
    help: "Webhook delivery attempts of this process by outcome (delivered, failed)",
    labelNames: ["outcome"],
    collect() {
      this.reset();
      this.inc({ outcome: "delivered" }, counters.delivered);
      this.inc({ outcome: "failed" }, counters.failedAttempts);
    },
  });
  metrics.counter({
    name: "hanse_webhook_deliveries_given_up_total",
    help: "Webhook deliveries of this process that spent their attempts",
    collect() {
      this.reset();
      this.inc(counters.gaveUp);
    },
  });
  metrics.counter({
    name: "hanse_webhook_subscriptions_disabled_total",
    help: "Webhook subscriptions this process disabled after failing too long",
    collect() {
      this.reset();
      this.inc(counters.disabled);
    },
  });
  metrics.gauge({
    name: "hanse_webhook_delivery_lag_seconds",
    help: "Commit-to-delivery lag of the last 1,000 webhook deliveries of this process, by quantile",
    labelNames: ["quantile"],
    collect() {
      for (const q of [0.5, 0.99, 1]) {
        this.set({ quantile: String(q) }, quantile(counters.recentLagsMs, q) / 1000);
      }
    },
  });

  metrics.onScrape("entitlements.webhooks", async () => {
    const now = deps.clock.now();
    const { rows } = await sql<{ key: string; n: number; oldest_pending: Date | null }>`
      SELECT state AS key, count(*)::int AS n,
        min(occurred_at) FILTER (WHERE state = 'pending') AS oldest_pending
      FROM webhook_deliveries GROUP BY state`.execute(deps.db);
    setCounts(deliveries, "state", deliveryStates, rows);
    feedLag.set(ageSeconds(rows.find((row) => row.key === "pending")?.oldest_pending, now));
  });
  return () => {
    changes.inc();
  };
}
