/**
 * A worker process for the multi-process queue tests (PostgreSQL). Runs `test.mp` jobs, each of
 * which records its execution in `mp_runs` (no unique key, so a double run would show) and
 * sleeps `sleepMs`. Stops on SIGTERM.
 */
import { sql } from "kysely";
import { openDatabase } from "../../src/platform/db/database.js";
import { defineJob, createWorker, type JobDefinition } from "../../src/platform/jobs/index.js";
import { systemClock } from "../../src/platform/clock/clock.js";
import { createLogger } from "../../src/platform/logging/logger.js";

const [url, workerId] = process.argv.slice(2);
if (!url || !workerId) throw new Error("usage: job-worker-process URL WORKER_ID");
const database = await openDatabase({ url, poolSize: 4 });

const job = defineJob<{ label: string; sleepMs?: number }>({
  name: "test.mp",
  leaseMs: Number(process.env.TEST_LEASE_MS ?? 60_000),
  run: async ({ label, sleepMs }) => {
    await sql`INSERT INTO mp_runs (label, worker, phase) VALUES (${label}, ${workerId}, 'started')`.execute(
      database.db,
    );
    if (sleepMs) await new Promise((r) => setTimeout(r, sleepMs));
    await sql`INSERT INTO mp_runs (label, worker, phase) VALUES (${label}, ${workerId}, 'finished')`.execute(
      database.db,
    );
  },
});

const worker = createWorker({
  database,
  jobs: [job] as JobDefinition<never>[],
  clock: systemClock,
  logger: createLogger("silent"),
  workerId,
  concurrency: Number(process.env.TEST_CONCURRENCY ?? 8),
  pollMs: 50,
  defaultLeaseMs: Number(process.env.TEST_LEASE_MS ?? 60_000),
});
await worker.start();
process.stdout.write("ready\n");
process.once("SIGTERM", () => {
  void worker
    .stop(5000)
    .then(() => database.close())
    .then(() => process.exit(0));
});
