import { sql } from "kysely";
import type { Clock } from "../clock/clock.js";
import { ageSeconds, durationBuckets, setCounts, type MetricsRegistry } from "../metrics/index.js";
import type { Executor, JobDefinition } from "./define-job.js";

/** States of `hanse_jobs`: `failed` is queued again after a failed attempt, waiting for its retry. */
const jobStates = ["queued", "failed", "running", "dead"] as const;

/**
 * The jobs' series: per job name, the jobs in each state and the age of the oldest due one, read
 * at scrape time (one GROUP BY over unfinished and dead jobs); and the run durations of this
 * process's worker. Returns `jobs` with their runs measured.
 */
export function registerJobMetrics(
  metrics: MetricsRegistry,
  deps: { db: Executor; clock: Clock },
  jobs: readonly JobDefinition<never>[],
): JobDefinition<never>[] {
  const counts = metrics.gauge({
    name: "hanse_jobs",
    help: "Jobs by name and state (queued, failed: queued for a retry, running, dead)",
    labelNames: ["job", "state"],
  });
  const oldestDue = metrics.gauge({
    name: "hanse_jobs_oldest_due_age_seconds",
    help: "Age of the oldest job that is due and not yet claimed, by name (0: none)",
    labelNames: ["job"],
  });
  const runs = metrics.histogram({
    name: "hanse_job_run_duration_seconds",
    help: "Job runs in this process, by name and outcome (succeeded, failed), and how long they took",
    labelNames: ["job", "outcome"],
    buckets: durationBuckets,
  });
  const names = jobs.map((job) => job.name);

  metrics.onScrape("jobs", async () => {
    const now = deps.clock.now();
    const { rows } = await sql<{ name: string; state: string; n: number; oldest_due: Date | null }>`
      SELECT name,
        CASE WHEN state = 'queued' AND attempts > 0 THEN 'failed' ELSE state END AS state,
        count(*)::int AS n,
        -- A suspended tenant's jobs wait on purpose (job_tenant_pauses): they are not overdue.
        min(run_at) FILTER (WHERE state = 'queued' AND run_at <= ${now} AND NOT EXISTS
          (SELECT 1 FROM job_tenant_pauses AS p WHERE p.tenant_id = jobs.tenant_id)) AS oldest_due
      FROM jobs WHERE state IN ('queued', 'running', 'dead')
      GROUP BY 1, 2`.execute(deps.db);
    for (const name of new Set([...names, ...rows.map((row) => row.name)])) {
      const mine = rows.filter((row) => row.name === name);
      setCounts(
        counts,
        "state",
        jobStates,
        mine.map((row) => ({ key: row.state, n: row.n })),
        { job: name },
      );
      const due = mine.map((row) => row.oldest_due).filter((at): at is Date => at !== null);
      oldestDue.set(
        { job: name },
        ageSeconds(due.length ? new Date(Math.min(...due.map(Number))) : null, now),
      );
    }
  });

  return jobs.map((job) => ({
    ...job,
    run: async (payload, context) => {
      const end = runs.startTimer({ job: job.name });
      try {
        await job.run(payload, context);
        end({ outcome: "succeeded" });
      } catch (error) {
        end({ outcome: "failed" });
        throw error;
      }
    },
    // A batch: each of its jobs took the batch's time, with its own outcome.
    ...(job.batch
      ? {
          batch: {
            max: job.batch.max,
            run: async (items) => {
              const ends = items.map(() => runs.startTimer({ job: job.name }));
              const batch = job.batch;
              let failures: unknown[];
              try {
                failures = batch ? await batch.run(items) : [];
              } catch (error) {
                for (const end of ends) end({ outcome: "failed" });
                throw error;
              }
              for (const [index, end] of ends.entries()) {
                end({ outcome: failures[index] === undefined ? "succeeded" : "failed" });
              }
              return failures;
            },
          },
        }
      : {}),
  }));
}
