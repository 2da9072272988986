import { sql, type Kysely } from "kysely";
import type { Clock } from "../clock/clock.js";
import type { IdGenerator } from "../crypto/ids.js";
import type { EnqueueOptions, Executor, JobDefinition } from "./define-job.js";
import type { JobTables } from "./jobs.tables.js";

export const jobsChannel = "hanse_jobs";
export const defaultMaxAttempts = 10;

export interface JobQueue {
  /**
   * Enqueues inside the caller's transaction (transactional outbox): the job exists exactly when
   * the caller's state change commits. Returns the job id (the existing one for a known key).
   */
  enqueue<P>(
    trx: Executor,
    job: JobDefinition<P> | string,
    payload: P,
    options?: EnqueueOptions,
  ): Promise<string>;
}

export function createJobQueue(deps: { clock: Clock; newId: IdGenerator }): JobQueue {
  return {
    async enqueue(trx, job, payload, options = {}) {
      const db = trx as Kysely<JobTables>;
      const name = typeof job === "string" ? job : job.name;
      const maxAttempts =
        options.maxAttempts ?? (typeof job === "string" ? undefined : job.maxAttempts) ?? defaultMaxAttempts;
      const now = deps.clock.now();
      const id = deps.newId();
      const inserted = await db
        .insertInto("jobs")
        .values({
          id,
          tenant_id: options.tenantId ?? null,
          name,
          key: options.key ?? null,
          payload: JSON.stringify(payload),
          state: "queued",
          attempts: 0,
          max_attempts: maxAttempts,
          run_at: options.runAt ?? now,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.column("key").where("key", "is not", null).doNothing())
        .returning("id")
        .executeTakeFirst();
      if (!inserted) {
        const existing = await db
          .selectFrom("jobs")
          .select("id")
          .where("key", "=", options.key ?? "")
          .executeTakeFirstOrThrow();
        return existing.id;
      }
      await sql`SELECT pg_notify(${jobsChannel}, ${name})`.execute(db);
      return inserted.id;
    },
  };
}
