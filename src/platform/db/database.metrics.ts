import type { MetricsRegistry } from "../metrics/index.js";
import type { Database } from "./database.js";

/** `hanse_db_pool_connections{state}` and the pool's size (PostgreSQL; PGlite has no pool). */
export function registerDatabaseMetrics(
  metrics: MetricsRegistry,
  database: Pick<Database, "poolUsage">,
): void {
  if (!database.poolUsage()) return;
  metrics.gauge({
    name: "hanse_db_pool_connections",
    help: "PostgreSQL pool of this process: connections in use, idle, callers waiting, and its maximum",
    labelNames: ["state"],
    collect() {
      const usage = database.poolUsage();
      if (!usage) return;
      this.set({ state: "in_use" }, usage.total - usage.idle);
      this.set({ state: "idle" }, usage.idle);
      this.set({ state: "waiting" }, usage.waiting);
      this.set({ state: "max" }, usage.max);
    },
  });
}
