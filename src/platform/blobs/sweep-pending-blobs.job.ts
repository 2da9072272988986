import type { Kysely } from "kysely";
import { defineHousekeepingJob, type HousekeepingDeps, type JobDefinition } from "../jobs/index.js";
import { deleteStalePendingBlobs } from "./blob-store.js";

export const sweepPendingBlobsJobName = "blobs.sweep-pending";
/**
 * A pending blob this old belongs to an upload that will never finish: a 16 MiB upload takes
 * seconds, and the API closes a request after 5 minutes (`requestTimeout`).
 */
export const pendingBlobMaxAgeMs = 60 * 60 * 1000;
export const sweepPendingBlobsEveryMs = 10 * 60 * 1000;

/** Blobs removed per statement round (bounded work per round, whatever the backlog). */
const batch = 100;

/**
 * Deletes every pending blob (with its chunks) created before `olderThan`, a batch at a time so
 * no statement grows with the backlog; stops early when `signal` aborts. Returns the count.
 */
export async function sweepPendingBlobs(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  olderThan: Date,
  signal?: AbortSignal,
): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteStalePendingBlobs(db, olderThan, batch);
    total += deleted;
    if (deleted < batch || signal?.aborted) return total;
  }
}

/**
 * Every 10 minutes (worker role): delete the blobs a crashed upload left `pending` for more than
 * an hour. The log line holds the count only.
 */
export function createSweepPendingBlobsJob(deps: HousekeepingDeps): JobDefinition<Record<string, never>> {
  return defineHousekeepingJob(deps, {
    name: sweepPendingBlobsJobName,
    everyMs: sweepPendingBlobsEveryMs,
    message: "deleted stale pending blobs",
    sweep: (now, signal) => sweepPendingBlobs(deps.db, new Date(now.getTime() - pendingBlobMaxAgeMs), signal),
  });
}
