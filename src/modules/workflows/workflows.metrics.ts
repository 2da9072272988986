import { sql } from "kysely";
import type { Clock } from "../../platform/clock/clock.js";
import type { Executor } from "../../platform/jobs/index.js";
import { setCounts, type MetricsRegistry } from "../../platform/metrics/index.js";
import { transitionRequestStatuses as statuses } from "./workflow-rules.js";

/**
 * Transition requests by status (read at scrape time) and the time from accept to a terminal
 * status (observed by the worker that finished them). Returns what the transition job calls.
 */
export function registerWorkflowMetrics(
  metrics: MetricsRegistry,
  deps: { db: Executor; clock: Clock },
): (status: "succeeded" | "failed", acceptedAt: Date) => void {
  const requests = metrics.gauge({
    name: "hanse_transition_requests",
    help: "Workflow transition requests by status",
    labelNames: ["status"],
  });
  const toTerminal = metrics.histogram({
    name: "hanse_transition_request_completion_seconds",
    help: "Time from a transition request's accept to its terminal status, by that status",
    labelNames: ["status"],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
  });
  metrics.onScrape("workflows", async () => {
    const { rows } = await sql<{ key: string; n: number }>`
      SELECT status AS key, count(*)::int AS n FROM workflow_transition_requests GROUP BY status`.execute(
      deps.db,
    );
    setCounts(requests, "status", statuses, rows);
  });
  return (status, acceptedAt) => {
    toTerminal.observe({ status }, Math.max(0, (deps.clock.now().getTime() - acceptedAt.getTime()) / 1000));
  };
}
