import { setTimeout as delay } from "node:timers/promises";
import type { FastifyBaseLogger as Logger } from "fastify";
import type { Clock } from "../clock/clock.js";
import { uuidv7, type IdGenerator } from "../crypto/ids.js";
import type { Database } from "../db/database.js";
import { defaultBackoffMs, type BatchItem, type JobContext, type JobDefinition } from "./define-job.js";
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

  /** Claims up to `limit` due jobs of `of` (default: every job this worker runs). */
  async function claim(limit: number, of: readonly string[] = names): Promise<ClaimedJob[]> {
    if (limit <= 0 || of.length === 0) return [];
    return claimJobs(db, { names: of, limit, workerId, leaseMs: defaultLeaseMs, now: clock.now() });
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

  /** Renews the lease of each job every third of it while `work` runs. */
  async function withHeartbeat<T>(jobs: readonly ClaimedJob[], work: () => Promise<T>): Promise<T> {
    const [first] = jobs;
    if (!first) return work();
    // The claim took the default lease; a job with a lease of its own takes that one at once.
    if (leaseFor(first.name) !== defaultLeaseMs) await Promise.all(jobs.map(extendLease));
    const heartbeat = setInterval(
      () => {
        for (const job of jobs) extendLease(job).catch(() => undefined);
      },
      leaseFor(first.name) / 3,
    );
    try {
      return await work();
    } finally {
      clearInterval(heartbeat);
    }
  }

  const logFailure = (job: ClaimedJob, failure: unknown): void => {
    logger.warn({ jobId: job.id, job: job.name, attempt: job.attempts, err: failure }, "job attempt failed");
  };

  /** False, with the job marked dead, when a worker crashed during its last allowed attempt. */
  async function runnable(job: ClaimedJob): Promise<boolean> {
    if (job.attempts <= job.max_attempts) return true;
    await markDead(job, new Error("attempt budget spent"), "attempt budget spent");
    return false;
  }

  /**
   * Several claimed jobs of one name with a `batch` run: one call, then each job is finished with
   * its own outcome (a failing job retries or dies with its own attempt budget).
   */
  async function executeBatch(jobs: readonly ClaimedJob[]): Promise<void> {
    const [first] = jobs;
    const batch = first && definitions.get(first.name)?.batch;
    if (!batch) return;
    const live: ClaimedJob[] = [];
    for (const job of jobs) if (await runnable(job)) live.push(job);
    if (live.length === 0) return;
    const items = live.map((job): BatchItem<unknown> => {
      const trace = restoreTraceContext(job.trace_context);
      return { payload: job.payload, context: contextFor(job), inTrace: (fn) => runInTrace(trace, fn) };
    });
    let failures: unknown[];
    try {
      failures = await withHeartbeat(live, () => batch.run(items));
    } catch (error) {
      failures = live.map(() => error ?? new Error("job failed"));
    }
    await Promise.all(
      live.map(async (job, index) => {
        const failure = failures[index];
        if (failure !== undefined) logFailure(job, failure);
        await finish(job, failure);
      }),
    );
  }

  async function execute(job: ClaimedJob): Promise<void> {
    const definition = definitions.get(job.name);
    if (!definition || !(await runnable(job))) return;
    let failure: unknown;
    try {
      await withHeartbeat([job], () => definition.run(job.payload, contextFor(job)));
    } catch (error) {
      failure = error ?? new Error("job failed");
      logFailure(job, failure);
    }
    await finish(job, failure);
  }

  /** Runs one job, or a batch of jobs of one name, in one of the worker's slots. */
  function track(jobs: readonly ClaimedJob[]): void {
    const [first] = jobs;
    if (!first) return;
    // The run continues the trace of the request that enqueued the job, as a span of its own (a
    // batch: of its first job's; each job's own work names its own trace, `BatchItem.inTrace`).
    const promise = runInTrace(restoreTraceContext(first.trace_context), () =>
      jobs.length === 1 ? execute(first) : executeBatch(jobs),
    )
      .catch((error: unknown) => {
        logger.error({ jobId: first.id, err: error }, "job bookkeeping failed; the lease will expire");
      })
      .finally(() => {
        running.delete(promise);
        wake?.();
      });
    running.add(promise);
  }

  /**
   * Claims a job for each free slot. A job whose definition runs batches takes its slot with up to
   * `batch.max` jobs of its name: the jobs of that name claimed together, topped up by one more
   * claim of that name only when a backlog is waiting (the first claim filled every free slot).
   */
  async function tick(): Promise<number> {
    const free = options.concurrency - running.size;
    const jobs = await claim(free);
    // Fewer due jobs than free slots: no backlog waits, so no claim to top a batch up.
    const backlog = jobs.length === free;
    let claimed = jobs.length;
    const batches = new Map<string, ClaimedJob[]>();
    for (const job of jobs) {
      const batch = definitions.get(job.name)?.batch;
      if (!batch) {
        track([job]);
        continue;
      }
      const group = batches.get(job.name) ?? [];
      if (group.length === 0) batches.set(job.name, group);
      group.push(job);
      if (group.length >= batch.max) {
        track(group.splice(0));
      }
    }
    for (const [name, group] of batches) {
      const max = definitions.get(name)?.batch?.max ?? 1;
      if (group.length === 0) continue;
      if (backlog && group.length < max) {
        try {
          const more = await claim(max - group.length, [name]);
          claimed += more.length;
          group.push(...more);
        } catch (error) {
          // The jobs already claimed still run (as a smaller batch).
          logger.error({ err: error, job: name }, "claiming more jobs for a batch failed");
        }
      }
      track(group);
    }
    return claimed;
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
