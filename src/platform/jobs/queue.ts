import { sql, type Kysely } from "kysely";
import type { Clock } from "../clock/clock.js";
import type { IdGenerator } from "../crypto/ids.js";
import type { Database } from "../db/database.js";
import { recurringJobKey, type EnqueueOptions, type Executor, type JobDefinition } from "./define-job.js";
import type { JobTables } from "./jobs.tables.js";
import { currentTrace, storeTraceContext } from "../tracing/index.js";

/** The trace of the request enqueuing a job (JSON text), or null outside any request or job. */
export function enqueuingTraceContext(): string | null {
  const context = currentTrace();
  return context ? JSON.stringify(storeTraceContext(context)) : null;
}

/**
 * The column values of a new queued job, for a caller that inserts it in its own statement (a
 * data-modifying CTE written by `insertJobsSql`) rather than through `enqueue`. The outbox rules
 * still hold: insert it in the statement or transaction that makes the state change, and wake
 * idle workers when it commits (`pg_notify(jobsChannel, name)` there too, or `createJobNotifier`).
 */
export interface NewJobRow {
  id: string;
  tenantId: string | null;
  name: string;
  key: string | null;
  /** JSON text. */
  payload: string;
  maxAttempts: number;
  runAt: Date;
  createdAt: Date;
  /** JSON text of the enqueuing request's trace (`enqueuingTraceContext`); none: null. */
  traceContext?: string | null;
}

/**
 * SQL expressions for the columns of new queued jobs, evaluated once per row of the relation of
 * `insertJobsSql`: text the caller writes (column references, parameters, casts), never values.
 */
export interface JobRowSql {
  id: string;
  tenantId: string;
  name: string;
  key: string;
  /**
   * Coalesces each row with the queued job of this key (`EnqueueOptions.coalesceKey`; that job
   * runs at the earlier time and returns in RETURNING). The keys of one statement must be distinct.
   */
  coalesceKey?: string;
  /** jsonb. */
  payload: string;
  maxAttempts: string;
  runAt: string;
  /** Also the row's `updated_at`. */
  createdAt: string;
  /** jsonb: the enqueuing request's trace (`NewJobRow.traceContext`); NULL when not given. */
  traceContext?: string;
}

/**
 * The queue's insert for a statement of another part that must enqueue in its own round trip (a
 * data-modifying CTE of an accept statement), as graphile-worker's `add_job`: one queued job per
 * row of `from` (relations and joins, no WHERE), `RETURNING returning` when given. Nothing outside
 * platform/jobs spells the jobs table's columns; the outbox rules of `NewJobRow` hold.
 */
export function insertJobsSql(from: string, job: JobRowSql, returning?: string): string {
  const coalesce = job.coalesceKey !== undefined;
  return `INSERT INTO jobs
    (id, tenant_id, name, key, ${coalesce ? "coalesce_key, " : ""}payload, state, attempts, max_attempts,
    run_at, created_at, updated_at, trace_context)
  SELECT ${job.id}, ${job.tenantId}, ${job.name}, ${job.key}, ${coalesce ? `${job.coalesceKey}, ` : ""}${job.payload},
    'queued', 0, ${job.maxAttempts}, ${job.runAt}, ${job.createdAt}, ${job.createdAt}, ${job.traceContext ?? "NULL"}
  FROM ${from}${coalesce ? coalesceSql : ""}${returning === undefined ? "" : `\n  RETURNING ${returning}`}`;
}

const coalesceSql = `
  ON CONFLICT (coalesce_key) WHERE state = 'queued'
  DO UPDATE SET run_at = LEAST(jobs.run_at, excluded.run_at), updated_at = excluded.updated_at`;

/**
 * Jobs of `name` not finished yet (queued, also waiting for a retry, or running), per tenant (""
 * for jobs of no tenant). Reads the partial indexes on those two states, so the cost follows the
 * backlog, not the history.
 */
export async function countUnfinishedJobs(db: Executor, name: string): Promise<Map<string, number>> {
  const result = await sql<{ tenant_id: string | null; n: number }>`
    SELECT tenant_id, count(*)::int AS n FROM jobs
    WHERE state IN ('queued', 'running') AND name = ${name}
    GROUP BY tenant_id`.execute(db);
  return new Map(result.rows.map((row) => [row.tenant_id ?? "", row.n]));
}

export const jobsChannel = "hanse_jobs";
export const defaultMaxAttempts = 10;

/**
 * A job's name and attempt budget as SQL literals for `insertJobsSql`, taken from its definition
 * as `enqueue` takes them: a statement that enqueues never spells the name or the budget itself.
 */
export function jobSpecSql(job: JobSpec): Pick<JobRowSql, "name" | "maxAttempts"> {
  return {
    name: `'${job.name.replaceAll("'", "''")}'::text`,
    maxAttempts: String(job.maxAttempts ?? defaultMaxAttempts),
  };
}

/**
 * What enqueueing needs of a job's definition: its name and attempt budget. A bare name string is
 * not accepted, so a job never runs with another budget than its definition declares (issue 38).
 */
export type JobSpec<P = unknown> = Pick<JobDefinition<P>, "name" | "maxAttempts">;

export interface JobQueue {
  /**
   * Enqueues inside the caller's transaction (transactional outbox): the job exists exactly when
   * the caller's state change commits. Returns the job id (the existing one for a known key).
   */
  enqueue<P>(trx: Executor, job: JobSpec<P>, payload: P, options?: EnqueueOptions): Promise<string>;
  /** The row `enqueue` would insert (see `NewJobRow`); nothing is written. */
  newJobRow<P>(job: JobSpec<P>, payload: P, options?: Omit<EnqueueOptions, "coalesceKey">): NewJobRow;
  /**
   * In the caller's transaction: no worker claims the tenant's jobs from its commit on (a suspended
   * tenant's deliveries and webhooks wait, rules/contract §7); they stay queued, nothing is dropped.
   */
  pauseTenant(trx: Executor, tenantId: string): Promise<void>;
  /** Undoes `pauseTenant` in the caller's transaction and wakes the workers: the jobs run again. */
  resumeTenant(trx: Executor, tenantId: string): Promise<void>;
}

/**
 * Wakes idle workers (`Database.notify` on `jobsChannel`) after the caller's commit, from outside
 * its transaction: for hot write paths that insert a `NewJobRow` themselves. On PostgreSQL a NOTIFY
 * inside a transaction takes a database-wide lock at commit and holds it through the WAL flush,
 * so notifying transactions commit one after another (one fsync each) instead of in groups.
 * Calls while a NOTIFY is in flight are coalesced into one more; a lost NOTIFY (crash, error)
 * only delays the job until the workers' next poll.
 */
export function createJobNotifier(database: Pick<Database, "notify">): () => void {
  let inFlight = false;
  let again = false;
  const send = (): void => {
    inFlight = true;
    again = false;
    database.notify(jobsChannel, "wake").then(done, done);
  };
  const done = (): void => {
    inFlight = false;
    if (again) send();
  };
  return () => {
    if (inFlight) again = true;
    else send();
  };
}

export function createJobQueue(deps: { clock: Clock; newId: IdGenerator }): JobQueue {
  return {
    newJobRow(job, payload, options = {}) {
      const now = deps.clock.now();
      return {
        id: deps.newId(),
        tenantId: options.tenantId ?? null,
        name: job.name,
        key: options.key ?? null,
        payload: JSON.stringify(payload),
        maxAttempts: options.maxAttempts ?? job.maxAttempts ?? defaultMaxAttempts,
        runAt: options.runAt ?? now,
        createdAt: now,
        traceContext: enqueuingTraceContext(),
      };
    },
    async pauseTenant(trx, tenantId) {
      await (trx as Kysely<JobTables>)
        .insertInto("job_tenant_pauses")
        .values({ tenant_id: tenantId, paused_at: deps.clock.now() })
        .onConflict((oc) => oc.column("tenant_id").doNothing())
        .execute();
    },
    async resumeTenant(trx, tenantId) {
      const db = trx as Kysely<JobTables>;
      await db.deleteFrom("job_tenant_pauses").where("tenant_id", "=", tenantId).execute();
      await sql`SELECT pg_notify(${jobsChannel}, 'resume')`.execute(db);
    },
    async enqueue(trx, job, payload, options = {}) {
      const db = trx as Kysely<JobTables>;
      const name = job.name;
      const maxAttempts = options.maxAttempts ?? job.maxAttempts ?? defaultMaxAttempts;
      const now = deps.clock.now();
      const insert = db.insertInto("jobs").values({
        id: deps.newId(),
        tenant_id: options.tenantId ?? null,
        name,
        key: options.key ?? null,
        coalesce_key: options.coalesceKey ?? null,
        payload: JSON.stringify(payload),
        state: "queued",
        attempts: 0,
        max_attempts: maxAttempts,
        run_at: options.runAt ?? now,
        created_at: now,
        updated_at: now,
        trace_context: enqueuingTraceContext(),
      });
      // One statement: the insert (or the merge into the queued job of the coalesce key) and the
      // wake-up of idle workers, which PostgreSQL delivers at the commit.
      const notified = (inserted: typeof insert) =>
        db
          .with("inserted", () => inserted.returning("id"))
          .selectFrom("inserted")
          .select(["inserted.id", sql<string>`pg_notify(${jobsChannel}, ${name})`.as("notified")]);
      if (options.coalesceKey !== undefined) {
        if (options.key !== undefined) throw new Error("a job has a key or a coalesce key, not both");
        const row = await notified(
          insert.onConflict((oc) =>
            oc
              .column("coalesce_key")
              .where("state", "=", "queued")
              .doUpdateSet({ run_at: sql`LEAST(jobs.run_at, excluded.run_at)`, updated_at: now }),
          ),
        ).executeTakeFirstOrThrow();
        return row.id;
      }
      const inserted = await notified(
        insert.onConflict((oc) => oc.column("key").where("key", "is not", null).doNothing()),
      ).executeTakeFirst();
      if (inserted) return inserted.id;
      const existing = await db
        .selectFrom("jobs")
        .select("id")
        .where("key", "=", options.key ?? "")
        .executeTakeFirstOrThrow();
      return existing.id;
    },
  };
}

/**
 * Makes sure the one row of a recurring job (`everyMs`) exists and is live: inserts it, first run
 * `everyMs` from now, unless its key is taken; a row left `succeeded` or `dead` (written before the
 * job was recurring) is queued again. Idempotent, also when several workers start at once: the
 * unique key lets exactly one insert win, the others change nothing.
 */
export async function scheduleRecurringJob(
  trx: Executor,
  job: Pick<JobDefinition, "name" | "everyMs" | "maxAttempts">,
  deps: { clock: Clock; newId: IdGenerator },
): Promise<void> {
  if (!job.everyMs) throw new Error(`job ${job.name} is not recurring`);
  const db = trx as Kysely<JobTables>;
  const now = deps.clock.now();
  const runAt = new Date(now.getTime() + job.everyMs);
  await db
    .insertInto("jobs")
    .values({
      id: deps.newId(),
      tenant_id: null,
      name: job.name,
      key: recurringJobKey(job.name),
      payload: "{}",
      state: "queued",
      attempts: 0,
      max_attempts: job.maxAttempts ?? defaultMaxAttempts,
      run_at: runAt,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .column("key")
        .where("key", "is not", null)
        .doUpdateSet({
          state: "queued",
          attempts: 0,
          run_at: runAt,
          locked_until: null,
          locked_by: null,
          updated_at: now,
        })
        .where("jobs.state", "in", ["succeeded", "dead"]),
    )
    .execute();
}
