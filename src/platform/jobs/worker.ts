import { setTimeout as delay } from "node:timers/promises";
import type { FastifyBaseLogger as Logger } from "fastify";
import type { Clock } from "../clock/clock.js";
import { uuidv7, type IdGenerator } from "../crypto/ids.js";
import type { Database } from "../db/database.js";
import { defaultBackoffMs, type JobContext, type JobDefinition } from "./define-job.js";
import { jobsChannel, scheduleRecurringJob } from "./queue.js";
import {
  claimJobs,
  completeJobs,
  extendJobLease,
  markJobDead,
  requeueRecurringJob,
  retryJob,
  type ClaimedJob,
} from "./claimed-jobs.js";
import type { JobTables } from "./jobs.tables.js";
import { restoreTraceContext, runInTrace } from "../tracing/index.js";

export interface WorkerOptions {
  database: Database;
  jobs: readonly JobDefinition<never>[];
  clock: Clock;
  logger: Logger;
  /** Names this worker in `locked_by`. */
  workerId: string;
  concurrency: number;
  pollMs: number;
  /**
   * How long a claim lasts without a heartbeat (default 30 s; HANSE_JOB_LEASE_SECONDS). A running
   * job renews it every third of it, so a job holds its lease as long as its worker lives, and a
   * job whose worker died is claimable again one lease after the last renewal.
   */
  defaultLeaseMs?: number;
  /** Ids of the rows `start()` inserts for recurring jobs; default UUIDv7 at the clock's time. */
  newId?: IdGenerator;
}

export interface Worker {
  /** Schedules the recurring jobs (when not yet scheduled), then claims jobs until stopped. */
  start(): Promise<void>;
  /** Stops claiming, waits up to `timeoutMs` for running jobs, then aborts them. */
  stop(timeoutMs: number): Promise<void>;
  /** Claims and runs due jobs until none is left (tests and the CLI). */
  drain(): Promise<number>;
}

/** The lease of a claimed job when neither the worker nor the job names one. */
export const defaultJobLeaseMs = 30_000;

export function createWorker(options: WorkerOptions): Worker {
  const { database, clock, logger, workerId } = options;
  const db = database.as<JobTables>().db;
  const definitions = new Map(options.jobs.map((job) => [job.name, job as JobDefinition]));
  const names = [...definitions.keys()];
  const defaultLeaseMs = options.defaultLeaseMs ?? defaultJobLeaseMs;
  const newId = options.newId ?? (() => uuidv7(clock.now().getTime()));
  const running = new Set<Promise<void>>();
  const abort = new AbortController();
  let stopped = true;
  let wake: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  let unlisten: (() => Promise<void>) | undefined;

  const leaseFor = (name: string) => definitions.get(name)?.leaseMs ?? defaultLeaseMs;

  async function claim(limit: number): Promise<ClaimedJob[]> {
    if (limit <= 0 || names.length === 0) return [];
    return claimJobs(db, { names, limit, workerId, leaseMs: defaultLeaseMs, now: clock.now() });
  }

  async function extendLease(job: ClaimedJob): Promise<void> {
    const now = clock.now();
    await extendJobLease(db, job, workerId, new Date(now.getTime() + leaseFor(job.name)), now);
  }

  /**
   * Succeeded jobs are recorded in batches: the first waits for no one, and the jobs that finish
   * while a batch is being written go together in the next one (one statement each, however many
   * jobs run at once). A job's slot is free only once its completion is written.
   */
  const complete = batchedCompletions<ClaimedJob>((jobs) => completeJobs(db, jobs, workerId, clock.now()));

  async function finish(job: ClaimedJob, error: unknown): Promise<void> {
    const definition = definitions.get(job.name);
    const now = clock.now();
    if (error === undefined) {
      if (definition?.everyMs) {
        await requeueRecurring(job, definition.everyMs, null);
        return;
      }
      await complete(job);
      return;
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : "non-error thrown";
    if (job.attempts < job.max_attempts) {
      const backoff = (definition?.backoffMs ?? defaultBackoffMs)(job.attempts);
      await retryJob(db, job, workerId, new Date(now.getTime() + backoff), message, now);
      return;
    }
    await markDead(job, error, message);
  }

  async function markDead(job: ClaimedJob, error: unknown, message: string): Promise<void> {
    const definition = definitions.get(job.name);
    const now = clock.now();
    if (definition?.onDead) {
      await definition.onDead(job.payload, error, contextFor(job));
    }
    if (definition?.everyMs) {
      await requeueRecurring(job, definition.everyMs, message);
      logger.error(
        { jobId: job.id, job: job.name, attempts: job.attempts },
        "recurring job failed after its attempt budget; it runs again at its next interval",
      );
      return;
    }
    await markJobDead(db, job, workerId, message, now);
    logger.error(
      { jobId: job.id, job: job.name, attempts: job.attempts },
      "job is dead after its attempt budget",
    );
  }

  /** A recurring job is never completed: its one row goes back in the queue for the next run. */
  async function requeueRecurring(job: ClaimedJob, everyMs: number, lastError: string | null): Promise<void> {
    const now = clock.now();
    await requeueRecurringJob(db, job, workerId, new Date(now.getTime() + everyMs), lastError, now);
  }

  const contextFor = (job: ClaimedJob): JobContext => ({
    jobId: job.id,
    attempt: job.attempts,
    maxAttempts: job.max_attempts,
    signal: abort.signal,
  });

  async function execute(job: ClaimedJob): Promise<void> {
    const definition = definitions.get(job.name);
    if (!definition) return;
    if (job.attempts > job.max_attempts) {
      // A worker crashed during the last allowed attempt; the budget is spent.
      await markDead(job, new Error("attempt budget spent"), "attempt budget spent");
      return;
    }
    // The claim took the default lease; a job with a lease of its own takes that one at once.
    if (leaseFor(job.name) !== defaultLeaseMs) await extendLease(job);
    const heartbeat = setInterval(
      () => {
        extendLease(job).catch(() => undefined);
      },
      leaseFor(job.name) / 3,
    );
    let failure: unknown;
    try {
      await definition.run(job.payload, contextFor(job));
    } catch (error) {
      failure = error ?? new Error("job failed");
      logger.warn(
        { jobId: job.id, job: job.name, attempt: job.attempts, err: failure },
        "job attempt failed",
      );
    } finally {
      clearInterval(heartbeat);
    }
    await finish(job, failure);
  }

  function track(job: ClaimedJob): void {
    // The run continues the trace of the request that enqueued the job, as a span of its own.
    const promise = runInTrace(restoreTraceContext(job.trace_context), () => execute(job))
      .catch((error: unknown) => {
        logger.error({ jobId: job.id, err: error }, "job bookkeeping failed; the lease will expire");
      })
      .finally(() => {
        running.delete(promise);
        wake?.();
      });
    running.add(promise);
  }

  async function tick(): Promise<number> {
    const jobs = await claim(options.concurrency - running.size);
    for (const job of jobs) track(job);
    return jobs.length;
  }

  async function runLoop(): Promise<void> {
    while (!stopped) {
      let claimed = 0;
      try {
        claimed = await tick();
      } catch (error) {
        logger.error({ err: error }, "claiming jobs failed");
      }
      if (claimed > 0 && running.size < options.concurrency) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  }

  return {
    async start() {
      if (!stopped) return;
      // Before claiming anything: a recurring job's row must exist (idempotent across processes).
      for (const job of definitions.values()) {
        if (job.everyMs) await scheduleRecurringJob(db, job, { clock, newId });
      }
      stopped = false;
      try {
        unlisten = await database.listen(jobsChannel, () => wake?.());
      } catch (error) {
        logger.warn({ err: error }, "LISTEN unavailable; polling only");
      }
      loop = runLoop();
    },
    async stop(timeoutMs) {
      stopped = true;
      wake?.();
      await loop;
      await unlisten?.();
      const all = Promise.all(running);
      const timedOut = await Promise.race([all.then(() => false), delay(timeoutMs).then(() => true)]);
      if (timedOut) {
        abort.abort();
        await Promise.race([all, delay(1000)]);
      }
    },
    async drain() {
      let total = 0;
      for (;;) {
        const claimed = await tick();
        total += claimed;
        if (running.size === 0 && claimed === 0) return total;
        await Promise.race(running);
      }
    },
  };
}

/** Calls `write` for the items given while no write runs, and for all given meanwhile after it. */
function batchedCompletions<T>(write: (items: T[]) => Promise<void>): (item: T) => Promise<void> {
  let waiting: { item: T; settle: (error?: Error) => void }[] = [];
  let writing = false;
  const drain = async (): Promise<void> => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await write(batch.map((entry) => entry.item));
        for (const entry of batch) entry.settle();
      } catch (error) {
        const failure = error instanceof Error ? error : new Error("completion failed", { cause: error });
        for (const entry of batch) entry.settle(failure);
      }
    }
    writing = false;
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({
        item,
        settle: (error) => {
          if (error === undefined) resolve();
          else reject(error);
        },
      });
      if (!writing) void drain();
    });
}
