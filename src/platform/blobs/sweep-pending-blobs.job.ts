import type { Kysely } from "kysely";
import { serverLimits } from "../http/http-server.js";
import { defineHousekeepingJob, type HousekeepingDeps, type JobDefinition } from "../jobs/index.js";
import { deleteStalePendingBlobs } from "./blob-store.js";

export const sweepPendingBlobsJobName = "blobs.sweep-pending";
/**
 * A pending blob is written by the request that uploads it, which Node ends after
 * `requestTimeout` (noticed up to one connection check later; the blob row is stamped when its
 * first chunk is stored, after the request began). A pending blob older than that, plus a minute
 * for clocks of processes that differ, belongs to an upload no live request is still writing.
 */
export const pendingBlobMaxAgeMs =
  serverLimits.requestTimeoutMs + serverLimits.connectionsCheckingIntervalMs + 60_000;
/** A cut upload's bytes stay at most pendingBlobMaxAgeMs plus this (7.5 minutes). */
export const sweepPendingBlobsEveryMs = 60_000;

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
 * Every minute (worker role): delete the blobs a crashed upload left `pending` for longer than
 * any request lasts (pendingBlobMaxAgeMs). The log line holds the count only.
 */
export function createSweepPendingBlobsJob(deps: HousekeepingDeps): JobDefinition<Record<string, never>> {
  return defineHousekeepingJob(deps, {
    name: sweepPendingBlobsJobName,
    everyMs: sweepPendingBlobsEveryMs,
    message: "deleted stale pending blobs",
    sweep: (now, signal) => sweepPendingBlobs(deps.db, new Date(now.getTime() - pendingBlobMaxAgeMs), signal),
  });
}
