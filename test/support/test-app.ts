import { Writable } from "node:stream";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { buildApp } from "../../src/app.js";
import { loadConfig, type Config } from "../../src/config/index.js";
import { createContainer, type Container } from "../../src/container.js";
import { createManualClock, systemClock, type Clock } from "../../src/platform/clock/clock.js";
import { createWorker, type Worker } from "../../src/platform/jobs/index.js";
import { createLogger } from "../../src/platform/logging/logger.js";
import type { HostLookup } from "../../src/platform/outbound/index.js";
import { createRemoteTestApp, remote } from "./remote-app.js";
import { createTestDatabase, type TestDatabase } from "./test-database.js";

/** The system administrator's token: the remote server's in the remote mode (remote-app.ts). */
export const bootstrapToken =
  process.env.HANSE_TEST_BOOTSTRAP_TOKEN ?? "test-bootstrap-token-0123456789abcdefghijklmnop";

export interface TestApp {
  app: FastifyInstance;
  container: Container;
  config: Config;
  testDatabase: TestDatabase;
  worker: Worker;
  /** Every log line written so far, raw JSON text. */
  logs: string[];
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Runs due jobs until none is left. */
  drainJobs(): Promise<number>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock & { advance?(ms: number): void };
  manualClock?: boolean;
  /** PostgreSQL only: how the app connects to its test database (see createTestDatabase). */
  connectVia?: (url: string) => string;
  /** How customers' host names resolve (a stub plays DNS rebinding); ContainerOptions.lookupHost. */
  lookupHost?: HostLookup;
  /**
   * Another app's database, shared as a second process would share it (other settings, same
   * rows): closing this app leaves it open; its owner closes and drops it.
   */
  sharedDatabase?: TestDatabase;
}

/**
 * The real app on a fresh database, with captured logs and a worker the test drives; in the
 * remote mode (HANSE_TEST_BASE_URL set) the running service there (remote-app.ts).
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  if (remote) return createRemoteTestApp({ ...options });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      callback();
    },
  });
  const config = loadConfig({
    HANSE_BOOTSTRAP_TOKEN: bootstrapToken,
    HANSE_DATA_DIR: "/nonexistent-test-dir",
    LOG_LEVEL: "debug",
    ...options.env,
  });
  const shared = options.sharedDatabase;
  const testDatabase: TestDatabase = shared
    ? {
        ...shared,
        database: { ...shared.database, close: () => Promise.resolve() },
        drop: () => Promise.resolve(),
      }
    : await createTestDatabase(options.connectVia ? { connectVia: options.connectVia } : {});
  const clock = options.clock ?? (options.manualClock ? createManualClock(new Date()) : systemClock);
  const logger = createLogger(config.LOG_LEVEL, sink);
  const container = await createContainer(config, {
    logger,
    database: testDatabase.database,
    clock,
    ...(options.lookupHost ? { lookupHost: options.lookupHost } : {}),
  });
  const app = await buildApp(container);
  const worker = createWorker({
    database: container.database,
    jobs: container.jobs,
    clock,
    logger,
    workerId: `test-${process.pid}`,
    concurrency: 4,
    pollMs: 50,
  });
  return {
    app,
    container,
    config,
    testDatabase,
    worker,
    logs,
    inject: (opts) => app.inject(opts),
    drainJobs: () => worker.drain(),
    close: async () => {
      await app.close();
      await testDatabase.drop();
    },
  };
}

/**
 * A started worker of the app's jobs (or of `jobs`) on the app's clock: starting schedules the
 * recurring jobs. The caller stops it.
 */
export async function startWorker(
  t: TestApp,
  workerId: string,
  jobs: Container["jobs"] = t.container.jobs,
): Promise<Worker> {
  const worker = createWorker({
    database: t.container.database,
    jobs,
    clock: t.container.clock,
    logger: t.container.logger,
    workerId,
    concurrency: 1,
    pollMs: 20,
  });
  await worker.start();
  return worker;
}

/** Runs one of the app's recurring jobs now (e.g. `entitlements.housekeeping`), as the worker would. */
export async function runJobNow(t: TestApp, name: string): Promise<void> {
  const job = t.container.jobs.find((j) => j.name === name);
  if (!job) throw new Error(`no ${name} job`);
  await job.run({} as never, {
    jobId: "test",
    attempt: 1,
    maxAttempts: 1,
    signal: new AbortController().signal,
  });
}

/**
 * The settings of a worker process (`startWorkerProcess` of server-process.ts) on the app's
 * PostgreSQL database: its own data directory, polls every 50 ms, leases of `leaseSeconds`.
 */
export const workerProcessEnv = (t: TestApp, dataDir: string, leaseSeconds: number) => ({
  DATABASE_URL: t.testDatabase.url,
  HANSE_BOOTSTRAP_TOKEN: bootstrapToken,
  HANSE_DATA_DIR: dataDir,
  HANSE_JOB_POLL_MS: "50",
  HANSE_JOB_LEASE_SECONDS: String(leaseSeconds),
});

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const adminHeaders = bearer(bootstrapToken);
