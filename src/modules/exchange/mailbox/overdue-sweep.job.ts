import {
  defineHousekeepingJob,
  type HousekeepingDeps,
  type JobDefinition,
} from "../../../platform/jobs/index.js";
import { markOverdueDeliveries, overdueBatch } from "./overdue.repository.js";

export const overdueSweepJobName = "exchange.overdue-sweep";
/** How often the sweep runs: a delivery is marked at most this long after its deadline passed. */
export const overdueSweepEveryMs = 60_000;

/**
 * Marks every delivery whose collection deadline passed (`markOverdueDeliveries`), a batch at a
 * time, until a round marks fewer than a batch or the worker stops. Returns the count.
 */
export async function sweepOverdueDeliveries(
  db: HousekeepingDeps["db"],
  now: Date,
  signal?: AbortSignal,
): Promise<number> {
  let total = 0;
  for (;;) {
    const marked = await markOverdueDeliveries(db, now, overdueBatch);
    total += marked;
    if (marked < overdueBatch || signal?.aborted) return total;
  }
}

/**
 * Every minute (worker role): one recurring row in the jobs table, so one run at a time whatever
 * the number of workers; no job per delivery. Setting `overdue_since` once, with its audit record,
 * is the event `exchange.delivery.overdue` (rules/contract §8).
 */
export function createOverdueSweepJob(deps: HousekeepingDeps): JobDefinition<Record<string, never>> {
  return defineHousekeepingJob(deps, {
    name: overdueSweepJobName,
    everyMs: overdueSweepEveryMs,
    message: "marked overdue deliveries",
    sweep: (now, signal) => sweepOverdueDeliveries(deps.db, now, signal),
  });
}
