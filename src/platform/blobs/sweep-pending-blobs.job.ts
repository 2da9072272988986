import type { FastifyBaseLogger as Logger } from "fastify";
import type { Kysely } from "kysely";
import type { Clock } from "../clock/clock.js";
import { defineJob, type JobDefinition } from "../jobs/index.js";
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
 * Recurring housekeeping (worker role): every 10 minutes, delete the blobs a crashed upload left
 * `pending` for more than an hour. One row in the jobs table, so one sweep at a time whatever the
 * number of workers; the log line holds the count only.
 */
export function createSweepPendingBlobsJob(deps: {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  clock: Clock;
  logger: Logger;
}): JobDefinition<Record<string, never>> {
  return defineJob<Record<string, never>>({
    name: sweepPendingBlobsJobName,
    everyMs: sweepPendingBlobsEveryMs,
    maxAttempts: 3,
    run: async (_payload, context) => {
      const olderThan = new Date(deps.clock.now().getTime() - pendingBlobMaxAgeMs);
      const deleted = await sweepPendingBlobs(deps.db, olderThan, context.signal);
      deps.logger[deleted > 0 ? "info" : "debug"](
        { job: sweepPendingBlobsJobName, deleted },
        "deleted stale pending blobs",
      );
    },
  });
}
