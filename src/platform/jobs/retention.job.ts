import { sql, type Kysely } from "kysely";
import { pruneAuditTrails } from "../audit/audit-retention.js";
import { deleteExpiredRecords } from "../http/idempotency.js";
import { deleteExpiredLeases, deleteIdleRateLimits } from "../limits/index.js";
import { defineHousekeepingJob, type HousekeepingDeps, type JobDefinition } from "./define-job.js";

export const retentionJobName = "platform.retention";
export const retentionEveryMs = 6 * 60 * 60 * 1000;
/** A finished job is kept this long for operators to look at, then removed. */
export const succeededJobRetentionMs = 24 * 60 * 60 * 1000;
export const deadJobRetentionMs = 30 * 24 * 60 * 60 * 1000;

/** Rows removed per statement: bounded work per statement, whatever the backlog. */
const batch = 500;

/**
 * What nothing reads any more: idempotency records past their expiry (a key can then be used
 * again, as the contract allows), succeeded jobs after a day and dead jobs after 30 days.
 * Transition requests and uploads stay (their status documents are kept). Rate-limit rows of full
 * buckets and the leases of dead processes mean nothing and go as well.
 */
const purges = (now: Date) => [
  { table: "idempotency_records", statement: deleteExpiredRecords(now, batch) },
  { table: "rate_limits", statement: deleteIdleRateLimits(now, batch) },
  { table: "limit_leases", statement: deleteExpiredLeases(now, batch) },
  {
    table: "jobs",
    statement: sql<{ n: number }>`WITH gone AS (
      DELETE FROM jobs WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM jobs
        WHERE (state = 'succeeded' AND completed_at < ${new Date(now.getTime() - succeededJobRetentionMs)})
           OR (state = 'dead' AND updated_at < ${new Date(now.getTime() - deadJobRetentionMs)})
        LIMIT ${batch}))
      RETURNING 1)
    SELECT count(*)::integer AS n FROM gone`,
  },
];

/** Runs every purge until it finds nothing more (or `signal` aborts); counts per table. */
export async function purgeExpired(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  now: Date,
  signal?: AbortSignal,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { table, statement } of purges(now)) {
    counts[table] = 0;
    for (;;) {
      const deleted = (await statement.execute(db)).rows[0]?.n ?? 0;
      counts[table] += deleted;
      if (deleted < batch || signal?.aborted) break;
    }
  }
  return counts;
}

/**
 * Every 6 hours (worker role); the log line holds the counts per table only. With
 * `auditRetentionMs` (HANSE_AUDIT_RETENTION_DAYS) the audit trail's old sealed records go too.
 */
export function createRetentionJob(
  deps: HousekeepingDeps & { auditRetentionMs?: number | undefined },
): JobDefinition<Record<string, never>> {
  return defineHousekeepingJob(deps, {
    name: retentionJobName,
    everyMs: retentionEveryMs,
    message: "removed expired rows",
    sweep: async (now, signal) => {
      const counts = await purgeExpired(deps.db, now, signal);
      if (deps.auditRetentionMs === undefined) return counts;
      return { ...counts, audit_events: await pruneAuditTrails(deps.db, now, deps.auditRetentionMs, signal) };
    },
  });
}
