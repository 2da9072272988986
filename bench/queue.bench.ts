/**
 * Issue 35 item 4 (`npm run bench -- queue`): Hanse's job queue against the two leading PostgreSQL
 * queues for Node, graphile-worker and pg-boss, on the same PostgreSQL, in one run, at the same
 * concurrency. Each queue gets a database of its own on that server. A round, per queue and kind,
 * starts the queue's worker (BENCH_QUEUE_CONCURRENCY jobs at once, default 8), enqueues
 * BENCH_QUEUE_JOBS jobs (default 5,000) one per call from as many producers as the concurrency
 * (unbatched: each job its own statement and commit), and times from the first enqueue to the
 * last job's completion. Two kinds: a no-op job, and a job that writes one row. Rounds
 * (BENCH_ROUNDS, default 3) interleave the three queues; the medians count.
 *
 * Each queue runs as its users would run it for throughput: Hanse as the server runs it (LISTEN
 * wake-ups, poll every second as a backstop); graphile-worker with its defaults (LISTEN/NOTIFY);
 * pg-boss with a queue created with `notify: true` and one worker that fetches batches of
 * `concurrency` jobs, runs them at once and fetches again at once while batches come back full
 * (`burstWhenBatchFull`; polling at its floor of 0.5 s otherwise). PostgreSQL only.
 */
import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import pg from "pg";
import { Logger as GraphileLogger, makeWorkerUtils, run as runGraphileWorker } from "graphile-worker";
import { PgBoss } from "pg-boss";
import { systemClock } from "../src/platform/clock/clock.js";
import { uuidv7 } from "../src/platform/crypto/ids.js";
import { openDatabase } from "../src/platform/db/database.js";
import { migrateToLatest } from "../src/platform/db/migrate.js";
import { createJobQueue, createWorker, defineJob, type JobDefinition } from "../src/platform/jobs/index.js";
import { createLogger } from "../src/platform/logging/logger.js";
import { table } from "./support/load.js";

const jobCount = Number(process.env.BENCH_QUEUE_JOBS ?? 5000);
const concurrency = Number(process.env.BENCH_QUEUE_CONCURRENCY ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const base = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const kinds = ["no-op", "one row"] as const;
type Kind = (typeof kinds)[number];

/** One queue under test: `start` its worker, `enqueue` one job, `stop`. */
interface QueueUnderTest {
  label: string;
  start(onDone: () => void): Promise<void>;
  enqueue(kind: Kind, i: number): Promise<void>;
  stop(): Promise<void>;
  /** Closes the queue's connections (before its database is dropped). */
  close(): Promise<void>;
}

/** The value `start` set up; a call before it is a bug of this bench. */
const started = <T>(value: T | undefined): T => {
  if (value === undefined) throw new Error("the queue is not started");
  return value;
};

const rowsTable =
  "CREATE TABLE IF NOT EXISTS bench_rows (id bigint PRIMARY KEY, written_at timestamptz NOT NULL)";
const rowInsert = "INSERT INTO bench_rows (id, written_at) VALUES ($1, now())";

function hanseQueue(url: string): QueueUnderTest {
  const logger = createLogger("silent");
  const queue = createJobQueue({ clock: systemClock, newId: () => uuidv7() });
  let database: Awaited<ReturnType<typeof openDatabase>> | undefined;
  let worker: ReturnType<typeof createWorker> | undefined;
  let done = (): void => undefined;
  const noop = defineJob<{ i: number }>({
    name: "bench.noop",
    run: async () => {
      done();
    },
  });
  const write = defineJob<{ i: number }>({
    name: "bench.row",
    run: async ({ i }) => {
      await sql`INSERT INTO bench_rows (id, written_at) VALUES (${i}, now())`.execute(started(database).db);
      done();
    },
  });
  return {
    label: "Hanse",
    async start(onDone) {
      done = onDone;
      database ??= await openDatabase({ url, poolSize: 20, maintenanceIntervalMs: 0 });
      await migrateToLatest(database.db);
      await sql.raw(rowsTable).execute(database.db);
      worker = createWorker({
        database,
        jobs: [noop, write] as JobDefinition<never>[],
        clock: systemClock,
        logger,
        workerId: "bench",
        concurrency,
        pollMs: 1000,
      });
      await worker.start();
    },
    async enqueue(kind, i) {
      await started(database).transaction((trx) =>
        queue.enqueue(trx, kind === "no-op" ? noop : write, { i }),
      );
    },
    async stop() {
      await worker?.stop(5000);
      await sql`TRUNCATE jobs, bench_rows`.execute(started(database).db);
    },
    async close() {
      await database?.close();
    },
  };
}

function graphileQueue(url: string): QueueUnderTest {
  let runner: Awaited<ReturnType<typeof runGraphileWorker>> | undefined;
  let utils: Awaited<ReturnType<typeof makeWorkerUtils>> | undefined;
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  const report = (error: Error) => process.stderr.write(`graphile-worker pool: ${error.message}\n`);
  pool.on("error", report);
  pool.on("connect", (client) => client.on("error", report));
  return {
    label: "graphile-worker 0.18",
    async start(onDone) {
      await pool.query(rowsTable);
      utils ??= await makeWorkerUtils({ pgPool: pool });
      await utils.migrate();
      runner = await runGraphileWorker({
        pgPool: pool,
        concurrency,
        noHandleSignals: true,
        pollInterval: 1000,
        logger: new GraphileLogger(() => () => undefined),
        taskList: {
          noop: async () => {
            onDone();
          },
          row: async (payload, helpers) => {
            await helpers.query(rowInsert, [(payload as { i: number }).i]);
            onDone();
          },
        },
      });
    },
    async enqueue(kind, i) {
      await started(utils).addJob(kind === "no-op" ? "noop" : "row", { i });
    },
    async stop() {
      await runner?.stop();
      await pool.query("TRUNCATE graphile_worker._private_jobs CASCADE; TRUNCATE bench_rows");
    },
    async close() {
      await utils?.release();
      await pool.end();
    },
  };
}

function pgBossQueue(url: string): QueueUnderTest {
  let boss: PgBoss | undefined;
  return {
    label: "pg-boss 12",
    async start(onDone) {
      boss = new PgBoss({ connectionString: url, max: 20, supervise: false, schedule: false });
      boss.on("error", (error: unknown) => process.stderr.write(`pg-boss: ${String(error)}\n`));
      await boss.start();
      const db = boss.getDb();
      await db.executeSql(rowsTable, []);
      for (const name of ["noop", "row"]) {
        if (!(await boss.getQueue(name))) await boss.createQueue(name, { notify: true });
      }
      // One fetch takes up to `concurrency` jobs, which run at once; a full batch fetches again at
      // once (with batches of one, each worker waits out its poll after every job: 16 jobs/s).
      const options = { batchSize: concurrency, burstWhenBatchFull: true, pollingIntervalSeconds: 0.5 };
      await boss.work("noop", options, async (jobs) => {
        for (const _ of jobs) onDone();
      });
      await boss.work<{ i: number }>("row", options, async (jobs) => {
        await Promise.all(jobs.map((job) => db.executeSql(rowInsert, [job.data.i])));
        for (const _ of jobs) onDone();
      });
    },
    async enqueue(kind, i) {
      await started(boss).send(kind === "no-op" ? "noop" : "row", { i });
    },
    async stop() {
      await boss?.stop({ graceful: true });
      const cleaner = new pg.Client({ connectionString: url });
      await cleaner.connect();
      await cleaner.query("TRUNCATE pgboss.job; TRUNCATE bench_rows");
      await cleaner.end();
    },
    close: async () => undefined,
  };
}

/** Enqueue `jobCount` jobs from `concurrency` producers; resolves when the last one completed. */
async function measure(queue: QueueUnderTest, kind: Kind): Promise<number> {
  let completed = 0;
  let finish = (): void => undefined;
  const allDone = new Promise<void>((resolve) => {
    finish = resolve;
  });
  await queue.start(() => {
    completed += 1;
    if (completed === jobCount) finish();
  });
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobCount) await queue.enqueue(kind, next++);
    }),
  );
  await allDone;
  const seconds = (performance.now() - start) / 1000;
  await queue.stop();
  return jobCount / seconds;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function run(): Promise<void> {
  const admin = new pg.Client({ connectionString: base });
  try {
    await admin.connect();
  } catch {
    process.stdout.write("PostgreSQL not reachable: the queue bench runs on PostgreSQL only\n");
    return;
  }
  const [hanseName, graphileName, bossName] = ["hanse", "graphile", "pgboss"].map(
    (name) => `hanse_bench_queue_${name}_${process.pid}`,
  ) as [string, string, string];
  const names = [hanseName, graphileName, bossName];
  const urlOf = (name: string) => {
    const url = new URL(base);
    url.pathname = `/${name}`;
    return url.toString();
  };
  for (const name of names) await admin.query(`CREATE DATABASE ${name}`);
  const queues = [
    hanseQueue(urlOf(hanseName)),
    graphileQueue(urlOf(graphileName)),
    pgBossQueue(urlOf(bossName)),
  ];
  try {
    const rates = new Map<string, number[]>();
    for (let round = 0; round < rounds; round++) {
      for (const kind of kinds) {
        for (const queue of queues) {
          const key = `${queue.label}|${kind}`;
          rates.set(key, [...(rates.get(key) ?? []), await measure(queue, kind)]);
        }
      }
    }
    const rows: (string | number)[][] = [
      ["kind", ...queues.map((q) => q.label), "Hanse / faster peer", "goal"],
    ];
    for (const kind of kinds) {
      const figures = queues.map((queue) => median(rates.get(`${queue.label}|${kind}`) ?? []));
      const [hanse, ...peers] = figures;
      const ratio = (hanse ?? 0) / Math.max(...peers);
      rows.push([
        kind,
        ...figures.map((rate) => Math.round(rate)),
        ratio.toFixed(2),
        ratio >= 1 ? "≥ 1 — met" : "≥ 1 — missed",
      ]);
    }
    process.stdout.write(
      `\n### PostgreSQL: ${jobCount} jobs enqueued to completion, ${concurrency} at once, jobs/s (medians of ${rounds} interleaved rounds)\n\n`,
    );
    process.stdout.write(`${table(rows)}\n`);
  } finally {
    for (const queue of queues) await queue.close();
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
