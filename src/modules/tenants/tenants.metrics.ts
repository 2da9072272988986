import { sql } from "kysely";
import type { Executor } from "../../platform/jobs/index.js";
import { setCounts, type MetricsRegistry } from "../../platform/metrics/index.js";

const states = ["pending", "running", "succeeded", "failed"] as const;

/** `hanse_tenant_provisioning{state}`: tenants by provisioning state, read at scrape time. */
export function registerTenantMetrics(metrics: MetricsRegistry, db: Executor): void {
  const provisioning = metrics.gauge({
    name: "hanse_tenant_provisioning",
    help: "Tenants by provisioning state (pending, running, succeeded, failed)",
    labelNames: ["state"],
  });
  metrics.onScrape("tenants", async () => {
    const { rows } = await sql<{ key: string; n: number }>`
      SELECT state AS key, count(*)::int AS n FROM tenant_provisioning GROUP BY state`.execute(db);
    setCounts(provisioning, "state", states, rows);
  });
}
