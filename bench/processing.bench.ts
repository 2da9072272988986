/**
 * Issue 35 item 1 (`npm run bench -- processing`): where the time of processing one upload goes,
 * on PostgreSQL (this part only there: it times the statements `pg` sends).
 * BENCH_PROCESSING_UPLOADS (default 300) 10 KiB ORDERS uploads are accepted through the API with
 * no worker running; then one worker (concurrency 1, so nothing overlaps) processes them into
 * their CONTRL and ORDRSP (in batches of the job's `batch.max`, as any backlog is), and the bench
 * reports per upload: the wall time, the CPU time of this process (Node) and of PostgreSQL's
 * processes, and every SQL statement the processing sent (the job's claim and completion
 * included) with its calls and its time from send to answer, grouped by statement text. What no
 * statement accounts for is JavaScript: the EDIFACT work, building the messages, and the driver.
 * With BENCH_CPU_PROFILE=<file> the measured drain is also CPU-profiled (a `.cpuprofile` for
 * Chrome's DevTools) and its self time summed per source file is printed.
 *
 * Then, on every database of BENCH_DATABASE, issue 35 item 2's goal (processing alone ≥ 50 % of a
 * bare job loop): BENCH_ROUNDS rounds that each drain a backlog of as many uploads with a worker
 * of concurrency 4 (a default process), and a backlog of as many bare jobs on the same queue with
 * the same worker: each reads the stored bytes of one of the uploads, writes the outbound bytes (a
 * blob each) and delivery rows of a CONTRL and an ORDRSP of the sizes processing made in one
 * transaction, and completes.
 */
import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { request } from "undici";
import { createContainer } from "../src/container.js";
import { sql } from "kysely";
import { readBlobBytes, writeBlob } from "../src/platform/blobs/index.js";
import { uuidv7 } from "../src/platform/crypto/index.js";
import type { Database } from "../src/platform/db/database.js";
import { createJobQueue, createWorker, defineJob, type JobDefinition } from "../src/platform/jobs/index.js";
import { createLogger } from "../src/platform/logging/logger.js";
import { cpuSince, cpuSnapshot } from "./support/cpu.js";
import { benchDatabases, type BenchDatabase } from "./support/databases.js";
import { exchangeTenant, orders } from "./support/exchange-tenant.js";
import { table } from "./support/load.js";
import { startServer } from "./support/server.js";

const uploads = Number(process.env.BENCH_PROCESSING_UPLOADS ?? 300);
const profileFile = process.env.BENCH_CPU_PROFILE;
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/** The worker's concurrency of a default process (HANSE_WORKER_CONCURRENCY). */
const concurrency = 4;

interface StatementFigures {
  calls: number;
  ms: number;
}

/**
 * Times every query sent through `pg` from here on (send to answer), keyed by its text with the
 * whitespace folded; `take()` returns what was recorded since the last take.
 */
function statementTimer() {
  let recorded = new Map<string, StatementFigures>();
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  prototype.query = function timed(this: unknown, ...args: unknown[]) {
    const [first] = args;
    const text =
      typeof first === "string" ? first : ((first as { text?: string } | undefined)?.text ?? "(submittable)");
    const start = performance.now();
    const result = original.apply(this, args);
    if (result && typeof (result as Promise<unknown>).then === "function") {
      const settle = () => {
        const key = text.replace(/\s+/g, " ").trim();
        const figures = recorded.get(key) ?? { calls: 0, ms: 0 };
        figures.calls += 1;
        figures.ms += performance.now() - start;
        recorded.set(key, figures);
      };
      (result as Promise<unknown>).then(settle, settle);
    }
    return result;
  };
  return {
    take() {
      const taken = recorded;
      recorded = new Map();
      return taken;
    },
    restore() {
      prototype.query = original;
    },
  };
}

/** The first words of a statement that tell what it does (its tables), for the table. */
const shortText = (text: string) =>
  (text.length > 110 ? `${text.slice(0, 107)}…` : text).replaceAll("|", "¦");

export async function run(): Promise<void> {
  for (const target of await benchDatabases()) {
    try {
      await runOn(target);
    } finally {
      await target.cleanup();
    }
  }
}

/**
 * The profile (PostgreSQL only: it times the statements `pg` sends), then the comparison with the
 * bare job loop (every database).
 */
async function runOn(target: BenchDatabase): Promise<void> {
  const profiled = target.label === "PostgreSQL";
  const timer = profiled ? statementTimer() : undefined;
  try {
    const database = await target.open({ settled: true });
    const { logger, container, app, appUrl } = await startServer(database, {
      HANSE_PARTNER_RATE_LIMIT_BURST: "100000000",
      HANSE_PARTNER_RATE_LIMIT_PER_SECOND: "100000000",
      HANSE_INBOX_MAX_BACKLOG: "1000000",
      HANSE_INBOX_MAX_BACKLOG_PER_TENANT: "1000000",
    });
    const worker = createWorker({
      database,
      jobs: container.jobs,
      clock: container.clock,
      logger,
      workerId: "bench",
      concurrency: 1,
      pollMs: 20,
    });
    const { inbox, partnerHeaders } = await exchangeTenant(appUrl, () => worker.drain());
    const placeholder = "P0000000000000";
    const template = orders(10 * 1024, placeholder).toString("latin1");
    const upload = async (from: number, count: number) => {
      for (let i = from; i < from + count; i++) {
        const ref = `P${String(i).padStart(13, "0")}`;
        const response = await request(inbox, {
          method: "POST",
          headers: { ...partnerHeaders, "idempotency-key": `profile-${ref}` },
          body: Buffer.from(template.replaceAll(placeholder, ref), "latin1"),
        });
        await response.body.dump();
        if (response.statusCode !== 202)
          throw new Error(`upload ${String(i)}: ${String(response.statusCode)}`);
      }
    };
    // A warm-up (plans, caches), then the measured uploads, accepted before the drain is timed.
    const warmUp = Math.min(20, Math.floor(uploads / 10));
    const measured = uploads - warmUp;
    await upload(0, warmUp);
    await worker.drain();
    if (profiled) {
      await upload(warmUp, measured);
      timer?.take();
      const profiler = profileFile ? new Session() : undefined;
      if (profiler) {
        profiler.connect();
        await profiler.post("Profiler.enable");
        await profiler.post("Profiler.start");
      }
      const cpu = cpuSnapshot();
      const start = performance.now();
      const processed = await worker.drain();
      if (processed !== measured)
        throw new Error(`${String(processed)} jobs ran, ${String(measured)} expected`);
      const wallMs = performance.now() - start;
      const spent = cpuSince(cpu);
      const statements = [...(timer?.take() ?? new Map<string, StatementFigures>())].sort(
        (a, b) => b[1].ms - a[1].ms,
      );
      const statementMs = statements.reduce((sum, [, figures]) => sum + figures.ms, 0);
      const calls = statements.reduce((sum, [, figures]) => sum + figures.calls, 0);
      const per = (value: number) => (value / measured).toFixed(3);

      process.stdout.write(
        `\n### PostgreSQL: ${String(measured)} uploads of 10 KiB processed by one worker of concurrency 1, in batches (after ${String(warmUp)} to warm up)\n\n`,
      );
      process.stdout.write(
        `${table([
          ["per upload", "ms"],
          ["wall time", per(wallMs)],
          [`SQL statements (${(calls / measured).toFixed(1)} round trips), send to answer`, per(statementMs)],
          ["outside statements (JavaScript: EDIFACT, messages, driver, job loop)", per(wallMs - statementMs)],
          ["CPU of this process (Node, all threads)", per(spent.serverMs)],
          ["of which in the kernel (sockets)", per(spent.serverSystemMs)],
          ["CPU of PostgreSQL", per(spent.databaseMs)],
        ])}\n\n`,
      );
      process.stdout.write(
        `${table([
          ["statement", "calls per upload", "ms per upload", "share of wall"],
          ...statements.map(([text, figures]) => [
            shortText(text),
            (figures.calls / measured).toFixed(2),
            per(figures.ms),
            `${((figures.ms / wallMs) * 100).toFixed(1)} %`,
          ]),
        ])}\n`,
      );
      if (profiler && profileFile) {
        const { profile } = await profiler.post("Profiler.stop");
        profiler.disconnect();
        await writeFile(profileFile, JSON.stringify(profile));
        process.stdout.write(`\n${selfTimeByFile(profile, measured)}\n`);
      }
    }
    await compareWithBareLoop({
      label: target.label,
      database,
      container,
      logger,
      upload,
      firstRef: uploads,
    });
    await app.close();
    await container.close();
  } finally {
    timer?.restore();
  }
}

interface CpuProfile {
  nodes: { id: number; callFrame: { url: string; functionName: string } }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** The profile's self time per source file (packages as one), per upload, largest first. */
function selfTimeByFile(profile: CpuProfile, perUploads: number): string {
  const fileOf = new Map(profile.nodes.map((node) => [node.id, sourceOf(node.callFrame)]));
  const spent = new Map<string, number>();
  const deltas = profile.timeDeltas ?? [];
  for (const [index, id] of (profile.samples ?? []).entries()) {
    const file = fileOf.get(id) ?? "?";
    spent.set(file, (spent.get(file) ?? 0) + (deltas[index] ?? 0));
  }
  const rows = [...spent]
    .filter(([file]) => file !== "(idle)")
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20)
    .map(([file, micros]) => [file, (micros / 1000 / perUploads).toFixed(3)]);
  return table([["CPU self time (profile), by source", "ms per upload"], ...rows]);
}

function sourceOf(frame: { url: string; functionName: string }): string {
  if (frame.url === "") return `(${frame.functionName.replace(/[()]/g, "") || "native"})`;
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (packaged?.[1]) return packaged[1];
  if (frame.url.startsWith("node:")) return "node (runtime)";
  return frame.url.replace(/^file:\/\/.*?\/(src|bench)\//, "$1/");
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Processing alone against the bare job loop, both draining a backlog at `concurrency`. */
async function compareWithBareLoop(context: {
  label: string;
  database: Database;
  container: Awaited<ReturnType<typeof createContainer>>;
  logger: ReturnType<typeof createLogger>;
  upload: (from: number, count: number) => Promise<void>;
  firstRef: number;
}): Promise<void> {
  const { database, container, logger, upload } = context;
  const db = database.db;
  await sql`CREATE TABLE bench_deliveries (tenant_id uuid NOT NULL, id uuid PRIMARY KEY,
    upload_id uuid NOT NULL, message_type text NOT NULL, blob_id uuid NOT NULL, payload_size integer NOT NULL,
    created_at timestamptz NOT NULL)`.execute(db);
  const sizes = await sql<{ size: number }>`
    SELECT max(payload_size)::int AS size FROM exchange_deliveries WHERE message_type = 'ORDRSP'`.execute(db);
  const ordrsp = Buffer.alloc(sizes.rows[0]?.size ?? 4096, "A");
  const contrl = Buffer.alloc(300, "C");
  const transfer = database.tuning.byteaTransfer;
  const bare = defineJob<{ tenantId: string; uploadId: string; blobId: string }>({
    name: "bench.bare-processing",
    run: async ({ tenantId, uploadId, blobId }) => {
      await readBlobBytes(database, tenantId, blobId);
      await database.transaction(async (trx) => {
        for (const [type, bytes] of [
          ["CONTRL", contrl],
          ["ORDRSP", ordrsp],
        ] as const) {
          const blob = await writeBlob(trx, container.clock, {
            tenantId,
            id: uuidv7(),
            contentType: "application/edifact",
            bytes,
            transfer,
          });
          await sql`INSERT INTO bench_deliveries VALUES (${tenantId}, ${uuidv7()}, ${uploadId}, ${type},
            ${blob.id}, ${blob.byteCount}, now())`.execute(trx);
        }
      });
    },
  });
  const queue = createJobQueue({ clock: container.clock, newId: () => uuidv7() });
  const worker = createWorker({
    database,
    jobs: [...container.jobs, bare] as JobDefinition<never>[],
    clock: container.clock,
    logger,
    workerId: "bench-4",
    concurrency,
    pollMs: 20,
  });
  const perRound = uploads;
  const processing: number[] = [];
  const bareLoop: number[] = [];
  let next = context.firstRef;
  for (let round = 0; round < rounds; round++) {
    await upload(next, perRound);
    next += perRound;
    let start = performance.now();
    await worker.drain();
    processing.push(perRound / ((performance.now() - start) / 1000));
    const recent = await sql<{ tenant_id: string; id: string; blob_id: string }>`
      SELECT tenant_id, id, blob_id FROM exchange_uploads ORDER BY created_at DESC LIMIT ${perRound}`.execute(
      db,
    );
    await database.transaction(async (trx) => {
      for (const row of recent.rows) {
        await queue.enqueue(trx, bare, { tenantId: row.tenant_id, uploadId: row.id, blobId: row.blob_id });
      }
    });
    start = performance.now();
    await worker.drain();
    bareLoop.push(perRound / ((performance.now() - start) / 1000));
  }
  const ratio = median(processing) / median(bareLoop);
  process.stdout.write(
    `\n### ${context.label}: a backlog of ${String(perRound)} drained at concurrency ${String(concurrency)}, per second (medians of ${String(rounds)} rounds)\n\n`,
  );
  process.stdout.write(
    `${table([
      ["processing alone (uploads/s)", "bare job loop (jobs/s)", "ratio", "goal"],
      [
        median(processing).toFixed(0),
        median(bareLoop).toFixed(0),
        `${(ratio * 100).toFixed(0)} %`,
        ratio >= 0.5 ? "≥ 50 % — met" : "≥ 50 % — missed",
      ],
    ])}\n`,
  );
}
