import { sql, type Kysely } from "kysely";
import type { JobTables, JobsTable } from "./jobs.tables.js";

/**
 * The worker's statements on the `jobs` rows it claims: each write after the claim holds only
 * while this worker still holds the row (`locked_by`), most also only for the attempt it claimed,
 * so a job whose lease passed to another worker is never moved on by the first.
 */
export type ClaimedJob = Pick<
  JobsTable,
  "id" | "name" | "payload" | "attempts" | "max_attempts" | "trace_context"
>;

type Db = Kysely<JobTables>;

/**
 * One statement: picks due or lease-expired jobs of these names, skips rows other workers hold,
 * takes the lease. A claimed job gives up its coalesce key: later enqueues get a run of their own.
 * Jobs of a paused tenant (`JobQueue.pauseTenant`: a suspended tenant) are left where they are, due,
 * until the tenant is resumed; a job one of them already runs finishes.
 */
export async function claimJobs(
  db: Db,
  claim: { names: readonly string[]; limit: number; workerId: string; leaseMs: number; now: Date },
): Promise<ClaimedJob[]> {
  const { names, limit, workerId, leaseMs, now } = claim;
  const result = await sql<ClaimedJob>`
      UPDATE jobs SET state = 'running', attempts = attempts + 1, locked_by = ${workerId}, coalesce_key = NULL,
        locked_until = ${now}::timestamptz + make_interval(secs => ${leaseMs / 1000}), updated_at = ${now}
      WHERE id IN (
        SELECT id FROM jobs
        WHERE name = ANY(${names}::text[])
          AND ((state = 'queued' AND run_at <= ${now}) OR (state = 'running' AND locked_until < ${now}))
          AND NOT EXISTS (SELECT 1 FROM job_tenant_pauses AS p WHERE p.tenant_id = jobs.tenant_id)
        ORDER BY run_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      RETURNING id, name, payload, attempts, max_attempts, trace_context`.execute(db);
  return result.rows;
}

/** The claimed attempt of the job, while this worker holds it. */
const ownedAttempt = (db: Db, job: ClaimedJob, workerId: string) =>
  db
    .updateTable("jobs")
    .where("id", "=", job.id)
    .where("locked_by", "=", workerId)
    .where("attempts", "=", job.attempts);

export async function extendJobLease(db: Db, job: ClaimedJob, workerId: string, until: Date, now: Date) {
  await ownedAttempt(db, job, workerId).set({ locked_until: until, updated_at: now }).execute();
}

/**
 * One statement for any number of succeeded attempts: each row moves only while this worker still
 * holds the attempt it claimed (as `ownedAttempt`).
 */
export async function completeJobs(db: Db, jobs: readonly ClaimedJob[], workerId: string, now: Date) {
  if (jobs.length === 0) return;
  const ids = jobs.map((job) => job.id);
  const attempts = jobs.map((job) => job.attempts);
  await sql`
    UPDATE jobs SET state = 'succeeded', locked_until = NULL, completed_at = ${now}, updated_at = ${now},
      last_error = NULL
    FROM unnest(${ids}::uuid[], ${attempts}::int[]) AS done(id, attempts)
    WHERE jobs.id = done.id AND jobs.attempts = done.attempts AND jobs.locked_by = ${workerId}`.execute(db);
}

/** The attempt failed with budget left: queued again at `runAt`. */
export async function retryJob(
  db: Db,
  job: ClaimedJob,
  workerId: string,
  runAt: Date,
  lastError: string,
  now: Date,
) {
  await ownedAttempt(db, job, workerId)
    .set({ state: "queued", run_at: runAt, locked_until: null, last_error: lastError, updated_at: now })
    .execute();
}

/** The attempt budget is spent: the job is dead (whichever attempt of it this worker holds). */
export async function markJobDead(db: Db, job: ClaimedJob, workerId: string, lastError: string, now: Date) {
  await db
    .updateTable("jobs")
    .set({ state: "dead", locked_until: null, completed_at: now, last_error: lastError, updated_at: now })
    .where("id", "=", job.id)
    .where("locked_by", "=", workerId)
    .execute();
}

/** A recurring job is never completed: its one row goes back in the queue for the next run. */
export async function requeueRecurringJob(
  db: Db,
  job: ClaimedJob,
  workerId: string,
  runAt: Date,
  lastError: string | null,
  now: Date,
) {
  await ownedAttempt(db, job, workerId)
    .set({
      state: "queued",
      attempts: 0,
      run_at: runAt,
      locked_until: null,
      locked_by: null,
      last_error: lastError,
      updated_at: now,
    })
    .execute();
}
