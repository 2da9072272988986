import type { FastifyBaseLogger } from "fastify";
import type { Kysely } from "kysely";

export interface JobContext {
  jobId: string;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the worker stops before the job finished. */
  signal: AbortSignal;
}

export interface JobDefinition<P = unknown> {
  name: string;
  /** Runs the job. Must be idempotent: a crashed attempt is run again. */
  run(payload: P, context: JobContext): Promise<void>;
  /**
   * Runs several claimed jobs of this name at once when a backlog waits: the worker claims up to
   * `batch.max` of them for one of its slots and hands them over together. The answer names each
   * job's failure (undefined: it succeeded), so one failing job retries or dies with its own
   * attempt budget and the others complete. Must be idempotent like `run`.
   */
  batch?: {
    max: number;
    run(items: readonly BatchItem<P>[]): Promise<unknown[]>;
  };
  /** Called once when the attempt budget is spent; records the terminal failure. */
  onDead?(payload: P, error: unknown, context: JobContext): Promise<void>;
  maxAttempts?: number;
  /** Delay before attempt n+1 after n failed attempts. */
  backoffMs?(attempts: number): number;
  /**
   * How long a claim lasts without a heartbeat; default the worker's lease (HANSE_JOB_LEASE_SECONDS).
   * The worker renews it every third of it while the job runs, so it bounds how long the job of
   * a dead worker waits, not how long a job may run.
   */
  leaseMs?: number;
  /**
   * Makes the job recurring: it is one row (key `recurringJobKey(name)`, payload `{}`) that the
   * worker puts back in the queue `everyMs` after each run — after a success and after a spent
   * attempt budget alike — instead of completing it. `Worker.start()` inserts that row when it is
   * missing, so the first start of any worker schedules the job and later starts change nothing.
   */
  everyMs?: number;
}

/** One job of a batch (`JobDefinition.batch`). */
export interface BatchItem<P> {
  payload: P;
  context: JobContext;
  /** Runs `fn` in the job's own trace (the request that enqueued it): its log lines name that trace. */
  inTrace: <T>(fn: () => T) => T;
}

export const defineJob = <P>(definition: JobDefinition<P>): JobDefinition<P> => definition;

/** What a housekeeping job's factory receives: the handle it cleans, the time, the log. */
export interface HousekeepingDeps {
  db: Executor;
  clock: { now(): Date };
  logger: Pick<FastifyBaseLogger, "info" | "debug">;
}

/**
 * Recurring housekeeping (worker role): one row in the jobs table, so one run at a time whatever
 * the number of workers. `sweep` returns what it removed; the run's one log line holds only that
 * (info when anything was removed, debug otherwise).
 */
export function defineHousekeepingJob(
  deps: Omit<HousekeepingDeps, "db">,
  spec: {
    name: string;
    everyMs: number;
    message: string;
    sweep(now: Date, signal: AbortSignal): Promise<number | Record<string, number>>;
  },
): JobDefinition<Record<string, never>> {
  return defineJob<Record<string, never>>({
    name: spec.name,
    everyMs: spec.everyMs,
    maxAttempts: 3,
    run: async (_payload, context) => {
      const deleted = await spec.sweep(deps.clock.now(), context.signal);
      const any = typeof deleted === "number" ? deleted > 0 : Object.values(deleted).some((n) => n > 0);
      deps.logger[any ? "info" : "debug"]({ job: spec.name, deleted }, spec.message);
    },
  });
}

/** The unique key of a recurring job's one row. */
export const recurringJobKey = (name: string): string => `recurring:${name}`;

/** Exponential backoff: 1 s, 2 s, 4 s … capped at 10 minutes. */
export const defaultBackoffMs = (attempts: number): number => Math.min(1000 * 2 ** (attempts - 1), 600_000);

export interface EnqueueOptions {
  /** A job key is unique: enqueueing an existing key is a no-op that returns the existing job. */
  key?: string;
  /**
   * Coalesces with the queued job of this key, if any: no second row, and that job runs at the
   * earlier of both times (its payload stays). Only a queued job holds the key — a claimed job gives
   * it up — so work committed while a job runs still gets a run of its own. Not with `key`.
   */
  coalesceKey?: string;
  tenantId?: string;
  runAt?: Date;
  maxAttempts?: number;
}

export type Executor = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
