/**
 * Issue 4 figures (`npm run bench -- exchange`), each against a baseline of the same run, on the
 * embedded database and on PostgreSQL when one answers:
 * - 10 KiB ORDERS uploads at 32 connections vs a bare Fastify route inserting one row (goal ≥ 40 %);
 * - 16 MiB uploads and payload downloads vs streaming the same bytes through a bare route with
 *   SHA-256 (goal ≥ 50 %); server RSS growth during 8 concurrent 16 MiB uploads (goal ≤ 64 MiB);
 * - end to end: 202 → every outbound entry listed (p50, p99) for BENCH_E2E_UPLOADS uploads;
 * - mailbox cycles (list → claim → payload → acknowledge) per second with 4 workers, the median of
 *   BENCH_MAILBOX_SAMPLES samples of 100; `BENCH_EXCHANGE_ONLY=mailbox` runs only these and the
 *   end-to-end uploads before them;
 * - the database's own share: the upload's accept statement (10 KiB stored, with its audit event
 *   and job) against the bare route's insert, both called in-process at 32 concurrent calls,
 *   without HTTP — the ceiling of the upload ratio on this machine.
 * - soak (issue 20): 10 KiB uploads at 32 connections for BENCH_SOAK_SECONDS while the worker
 *   (concurrency 4 as a default process, BENCH_WORKER_CONCURRENCY) processes them: uploads accepted (202) and refused
 *   (503, back-pressure at the default bounds) per second against uploads processed per second,
 *   the backlog at the end and how fast it drains. `BENCH_EXCHANGE_ONLY=soak` runs only this.
 *   Issue 35 item 3: its last row is processing during the flood against processing alone
 *   (the drain right after it, same run and backlog). BENCH_WORKER_PROCESSES=N (PostgreSQL) runs
 *   the jobs in N `serve` processes with HANSE_ROLES=worker instead of the bench's own process.
 * The partner rate limit is lifted for the run: its 429s would otherwise count as fast requests.
 * Uploads are sent by a load generator in its own process (undici, a fresh Idempotency-Key per
 * request), so the RSS sampled is the server's alone; the upload and download figures are the
 * medians of BENCH_ROUNDS rounds that interleave baseline and subject.
 */
import { spawn } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import Fastify from "fastify";
import { sql, type Kysely } from "kysely";
import { Agent, request } from "undici";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config/index.js";
import { createContainer } from "../src/container.js";
import { createWorker } from "../src/platform/jobs/index.js";
import { createLogger } from "../src/platform/logging/logger.js";
import { startWorkerProcesses } from "../src/worker-processes.js";
import { createPartnerClient } from "../packages/client/src/sdk/partner.js";
import { integrityProblem } from "../packages/client/src/sdk/partner-sync.js";
import { databasesInOwnProcesses } from "./support/databases.js";
import { exchangeTenant, orders } from "./support/exchange-tenant.js";
import { benchToken } from "./support/server.js";
import { medianBy, statementRate, table } from "./support/load.js";
import { cpuSince, cpuSnapshot, processCpuMs, type CpuSnapshot } from "./support/cpu.js";
import { acceptUpload, type ExchangeTables } from "../src/modules/exchange/index.js";
import { uuidv7 } from "../src/platform/crypto/index.js";
import type { HanseTables } from "../src/platform/db/tables.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const e2eUploads = Number(process.env.BENCH_E2E_UPLOADS ?? 1000);
/** 16 MiB uploads and downloads per round (and per baseline): one round of two was too noisy. */
const bigPerRound = Number(process.env.BENCH_BIG_PER_ROUND ?? 4);
const soakSeconds = Number(process.env.BENCH_SOAK_SECONDS ?? 30);
const soakOnly = process.env.BENCH_EXCHANGE_ONLY === "soak";
/** `BENCH_EXCHANGE_ONLY=mailbox`: the end-to-end uploads and the mailbox cycles only. */
const mailboxOnly = process.env.BENCH_EXCHANGE_ONLY === "mailbox";
/** Mailbox cycle samples of 100 cycles each (the median counts); each takes 100 e2e uploads' entries. */
const mailboxSamples = Number(process.env.BENCH_MAILBOX_SAMPLES ?? 1);
/**
 * The soak's clients (issue 35 item 3): `flood` ignores Retry-After and sends again at once (the
 * worst case), `polite` waits as a 503's Retry-After says, as a conforming client does. The soak
 * alone runs both by default, the whole bench the flood only.
 */
const soakClients = (process.env.BENCH_SOAK_CLIENTS ?? (soakOnly ? "flood,polite" : "flood"))
  .split(",")
  .filter((kind): kind is SoakClient => kind === "flood" || kind === "polite");
type SoakClient = "flood" | "polite";
/** Jobs the bench's worker runs at once (4, the default of HANSE_WORKER_CONCURRENCY). */
const workerConcurrency = Number(process.env.BENCH_WORKER_CONCURRENCY ?? 4);
/** Worker processes of their own for the soak (PostgreSQL only; 0: the bench process's worker). */
const workerProcesses = Number(process.env.BENCH_WORKER_PROCESSES ?? 0);
const MiB = 1024 * 1024;
const dispatcher = new Agent({ connections: 64, pipelining: 1 });

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
};

interface LoadFigures {
  rps: number;
  p99: number;
  failures: number;
  requests: number;
  elapsedSeconds: number;
  /** Responses per HTTP status. */
  statuses: Record<string, number>;
}

/**
 * The load generator runs in its own process (so the server's event loop and memory are the
 * server's alone): `connections` loops POST `file` to `url` for `seconds`, or until `requests`
 * were sent, each with a fresh Idempotency-Key when `uniqueKeys`. With `uniqueKeys` every
 * occurrence of `refPlaceholder` in the file is replaced by a fresh value of the same length, so
 * each upload is another interchange (UNB 0020), not a duplicate (rules/contract §8) of the first.
 * With `honourRetryAfter` a connection answered 503 waits the Retry-After's seconds (to the end).
 */
const loadScript = `
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";
const o = JSON.parse(process.env.BENCH_LOAD);
const body = readFileSync(o.file);
const parts = o.uniqueKeys && o.refPlaceholder ? body.toString("latin1").split(o.refPlaceholder) : null;
const freshRef = () => randomUUID().replaceAll("-", "").slice(0, o.refPlaceholder.length).toUpperCase();
const bodyOf = () => (parts ? Buffer.from(parts.join(freshRef()), "latin1") : body);
const dispatcher = new Agent({ connections: o.connections, pipelining: 1 });
const latencies = [];
let failures = 0, started = 0;
const statuses = {};
const t0 = performance.now();
const end = t0 + o.seconds * 1000;
await Promise.all(Array.from({ length: o.connections }, async () => {
  while (o.requests ? started < o.requests : performance.now() < end) {
    started++;
    const t = performance.now();
    const headers = o.uniqueKeys ? { ...o.headers, "idempotency-key": randomUUID() } : o.headers;
    const r = await request(o.url, { method: "POST", headers, body: bodyOf(), dispatcher });
    await r.body.dump();
    latencies.push(performance.now() - t);
    if (r.statusCode >= 300) failures++;
    statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1;
    const retryAfter = Number(r.headers["retry-after"]);
    if (o.honourRetryAfter && r.statusCode === 503 && retryAfter > 0) {
      const wait = Math.min(retryAfter * 1000, end - performance.now());
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}));
const elapsedSeconds = (performance.now() - t0) / 1000;
latencies.sort((a, b) => a - b);
const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0;
process.stdout.write(JSON.stringify({ rps: latencies.length / elapsedSeconds, p99, failures, requests: latencies.length, elapsedSeconds, statuses }));
await dispatcher.close();
`;

async function loadFromChild(options: {
  url: string;
  file: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  requests?: number;
  uniqueKeys?: boolean;
  refPlaceholder?: string;
  /** After a 503, wait as its Retry-After says before the connection sends again. */
  honourRetryAfter?: boolean;
}): Promise<LoadFigures> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", loadScript], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    env: { ...process.env, BENCH_LOAD: JSON.stringify(options) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`load generator exited with ${String(code)}`);
  return JSON.parse(out) as LoadFigures;
}

const median = (values: number[]) => percentile(values, 50);

/** The control reference (14 characters, UNB 0020's maximum) of the 10 KiB upload's file. */
const smallRef = "SMALLREF000000";

function sized(size: number): Buffer {
  const head = orders(2000, "BIG").toString("latin1");
  const unz = head.lastIndexOf("UNZ");
  return Buffer.concat([
    Buffer.from(head.slice(0, unz)),
    Buffer.alloc(size - head.length, "\n"),
    Buffer.from(head.slice(unz)),
  ]);
}

/** CPU of each part while a phase ran, as a share of the machine (its cores × the phase's time). */
interface CpuShares {
  load: number;
  api: number;
  workers: number;
  database: number;
  /** CPU milliseconds of the job runners (the worker processes, or the API's process when they run in it). */
  workerMs: number;
}

interface SoakFigures {
  client: SoakClient;
  seconds: number;
  acceptedPerSecond: number;
  refusedPerSecond: number;
  processedPerSecond: number;
  processedDuring: number;
  backlogAtEnd: number;
  drainPerSecond: number;
  drainSeconds: number;
  /** A backlog built while the job runners were paused, then drained with no API load. */
  alone: { uploads: number; seconds: number; perSecond: number };
  cpuDuring: CpuShares;
  cpuAlone: CpuShares;
}

const cores = availableParallelism();
/** The backlog processing alone drains (at most the per-tenant bound, else refused). */
const aloneBacklog = Number(process.env.BENCH_SOAK_BACKLOG ?? 300);

/** What each part spent since `before` (`workerPids` are worker processes; none: the API's process runs the jobs). */
function cpuShares(
  before: { snapshot: CpuSnapshot; workers: number; at: number },
  workerPids: readonly number[],
): CpuShares {
  const spent = cpuSince(before.snapshot);
  const workersNow = workerPids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const machineMs = (performance.now() - before.at) * cores;
  const workerMs = workerPids.length > 0 ? workersNow - before.workers : spent.serverMs;
  return {
    load: spent.loadMs / machineMs,
    api: spent.serverMs / machineMs,
    workers: workerPids.length > 0 ? workerMs / machineMs : 0,
    database: spent.databaseMs / machineMs,
    workerMs,
  };
}

function cpuMark(workerPids: readonly number[]) {
  return {
    snapshot: cpuSnapshot(),
    workers: workerPids.reduce((sum, pid) => sum + processCpuMs(pid), 0),
    at: performance.now(),
  };
}

/** Sends `name` to each process (the worker processes are paused with SIGSTOP, resumed with SIGCONT). */
function signal(pids: readonly number[], name: NodeJS.Signals): Promise<void> {
  for (const pid of pids) process.kill(pid, name);
  return Promise.resolve();
}

/** The job runners of a soak: paused and resumed to measure processing alone. */
interface SoakRunners {
  pids: () => number[];
  pause: () => Promise<void>;
  resume: () => Promise<void>;
}

/**
 * Issue 20's soak: uploads as fast as 32 connections send them while the worker processes them.
 * First processing alone (issue 35 item 3): with the job runners paused, a backlog of
 * BENCH_SOAK_BACKLOG uploads is accepted; then the runners resume and drain it with no API load,
 * timed to the last upload processed (twice; the second counts, the first warms up). Then the load: processed counts the uploads that reached
 * `processed` or `rejected` during it; the backlog is the processing jobs queued or running;
 * afterwards the backlog drains (at most 120 s). The CPU of the load generator, the API process,
 * the worker processes and PostgreSQL is taken over the load and over processing alone.
 */
async function soak(options: {
  db: Kysely<HanseTables>;
  inbox: string;
  file: string;
  headers: Record<string, string>;
  client: SoakClient;
  runners: SoakRunners;
}): Promise<SoakFigures> {
  const count = async (query: ReturnType<typeof sql<{ n: number }>>) =>
    (await query.execute(options.db)).rows[0]?.n ?? 0;
  const processed = () =>
    count(
      sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM exchange_uploads WHERE status IN ('processed', 'rejected')`,
    );
  const backlog = () =>
    count(sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs
      WHERE name = 'exchange.process-upload' AND state IN ('queued', 'running')`);
  const uploads = { url: options.inbox, file: options.file, headers: options.headers, connections: 32 };
  const pids = options.runners.pids;

  // Processing alone: a backlog accepted while the runners are paused, drained with no API load;
  // twice, and the second counts (the first warms the runners up after their start or pause).
  const drainAlone = async () => {
    await options.runners.pause();
    const queued = await loadFromChild({
      ...uploads,
      seconds: 600,
      requests: aloneBacklog,
      uniqueKeys: true,
      refPlaceholder: smallRef,
    });
    const built = queued.statuses["202"] ?? 0;
    const before = await processed();
    const mark = cpuMark(pids());
    await options.runners.resume();
    while ((await processed()) - before < built) {
      if (performance.now() - mark.at > 120_000) throw new Error("the backlog did not drain in 120 s");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const seconds = (performance.now() - mark.at) / 1000;
    return { uploads: built, seconds, perSecond: built / seconds, cpu: cpuShares(mark, pids()) };
  };
  await drainAlone();
  const { cpu: cpuAlone, ...alone } = await drainAlone();

  const processedBefore = await processed();
  const duringMark = cpuMark(pids());
  const load = await loadFromChild({
    ...uploads,
    seconds: soakSeconds,
    uniqueKeys: true,
    refPlaceholder: smallRef,
    honourRetryAfter: options.client === "polite",
  });
  const cpuDuring = cpuShares(duringMark, pids());
  const processedDuring = (await processed()) - processedBefore;
  const backlogAtEnd = await backlog();
  const drainStart = performance.now();
  const processedAtEnd = await processed();
  let left = backlogAtEnd;
  while (left > 0 && performance.now() - drainStart < 120_000) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    left = await backlog();
  }
  const drainSeconds = (performance.now() - drainStart) / 1000;
  const drained = (await processed()) - processedAtEnd;
  return {
    client: options.client,
    seconds: load.elapsedSeconds,
    acceptedPerSecond: (load.statuses["202"] ?? 0) / load.elapsedSeconds,
    refusedPerSecond: (load.statuses["503"] ?? 0) / load.elapsedSeconds,
    processedPerSecond: processedDuring / load.elapsedSeconds,
    processedDuring,
    backlogAtEnd,
    drainPerSecond: drainSeconds > 0 ? drained / drainSeconds : 0,
    drainSeconds,
    alone,
    cpuDuring,
    cpuAlone,
  };
}

const share = (cpu: CpuShares) =>
  [cpu.load, cpu.api, cpu.workers, cpu.database].map((part) => `${(part * 100).toFixed(0)} %`).join(" / ");
const percent = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(0)} %` : "—");

const soakTable = (label: string, figures: SoakFigures, processes: number) =>
  `\n### ${label}: soak, 10 KiB uploads at 32 connections for ${figures.seconds.toFixed(0)} s, clients ${figures.client === "flood" ? "ignoring Retry-After (flood)" : "honouring Retry-After"} (worker concurrency ${workerConcurrency}, ${processes === 0 ? "worker in the API's process" : `${String(processes)} worker process(es)`})\n\n${table(
    [
      ["figure", "value"],
      [
        "processing alone: a backlog drained with no API load, per second",
        `${figures.alone.perSecond.toFixed(0)} (${String(figures.alone.uploads)} in ${figures.alone.seconds.toFixed(2)} s)`,
      ],
      ["uploads accepted (202) per second", figures.acceptedPerSecond.toFixed(0)],
      ["uploads refused (503, backlog bound) per second", figures.refusedPerSecond.toFixed(0)],
      ["uploads processed per second", figures.processedPerSecond.toFixed(0)],
      [
        "backlog at the end (processing jobs), drained afterwards",
        `${String(figures.backlogAtEnd)} in ${figures.drainSeconds.toFixed(1)} s`,
      ],
      [
        `CPU during the load, share of ${String(cores)} cores: load generator / API process / worker processes / PostgreSQL`,
        share(figures.cpuDuring),
      ],
      ["CPU while processing alone, same split", share(figures.cpuAlone)],
      [
        "job runners' CPU per processed upload, during / alone (ms)",
        `${(figures.cpuDuring.workerMs / Math.max(1, figures.processedDuring)).toFixed(1)} / ${(figures.cpuAlone.workerMs / Math.max(1, figures.alone.uploads)).toFixed(1)}`,
      ],
      figures.client === "flood"
        ? [
            "processing during the flood / alone (issue 35 item 3: ≥ 80 %)",
            percent(figures.processedPerSecond, figures.alone.perSecond),
          ]
        : [
            "uploads processed / accepted during the load (the workers keep up)",
            percent(figures.processedPerSecond, figures.acceptedPerSecond),
          ],
    ],
  )}\n`;

/**
 * `count` worker processes (`serve` with HANSE_ROLES=worker, supervised as `serve` supervises
 * them) on the database at `url`; resolves once each says it runs.
 */
async function startBenchWorkers(url: string, count: number) {
  const entry = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  const saved = { ...process.env };
  Object.assign(process.env, {
    DATABASE_URL: url,
    HANSE_BOOTSTRAP_TOKEN: benchToken,
    LOG_LEVEL: "warn",
    HANSE_WORKER_CONCURRENCY: String(workerConcurrency),
    HANSE_JOB_POLL_MS: "20",
  });
  const config = loadConfig(process.env);
  const workers = startWorkerProcesses(
    config,
    createLogger("silent"),
    { entry, execArgv: ["--import", "tsx"] },
    count,
  );
  process.env = saved;
  // A worker process takes seconds to start (tsx, migrations checked, pool opened), more on a
  // loaded machine: its first job run says it is up.
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_WORKER_START_MS ?? 20_000)));
  return workers;
}

/**
 * Each database is measured in a fresh server process (this module again, for one target), so
 * the RSS of one run does not carry into the next.
 */
export async function run(): Promise<void> {
  for (const target of await databasesInOwnProcesses(import.meta.url)) {
    const database = await target.open();
    const config = loadConfig({
      HANSE_BOOTSTRAP_TOKEN: benchToken,
      LOG_LEVEL: "silent",
      HANSE_ROLES: "api,worker",
      HANSE_PARTNER_RATE_LIMIT_BURST: "100000000",
      HANSE_PARTNER_RATE_LIMIT_PER_SECOND: "100000000",
      // The soak runs at the default backlog bounds unless these are set (e.g. to lift them).
      HANSE_INBOX_MAX_BACKLOG: process.env.HANSE_INBOX_MAX_BACKLOG,
      HANSE_INBOX_MAX_BACKLOG_PER_TENANT: process.env.HANSE_INBOX_MAX_BACKLOG_PER_TENANT,
    });
    const logger = createLogger("silent");
    const container = await createContainer(config, { logger, database });
    const app = await buildApp(container);
    const appUrl = await app.listen({ port: 0, host: "127.0.0.1" });
    const worker = createWorker({
      database,
      jobs: container.jobs,
      clock: container.clock,
      logger,
      workerId: "bench",
      concurrency: workerConcurrency,
      pollMs: 20,
    });

    // Setup through the API: a tenant, a partner, a connection with ORDRSP only, a key.
    const { connectionId, apiKey, inbox, partnerHeaders } = await exchangeTenant(appUrl, () =>
      worker.drain(),
    );

    // Baselines: a bare route inserting one row, a bare route streaming with SHA-256.
    await sql`CREATE TABLE IF NOT EXISTS bench_rows (id uuid PRIMARY KEY, body_size integer)`.execute(
      database.db,
    );
    const bare = Fastify({ bodyLimit: 17 * MiB });
    bare.addContentTypeParser("application/edifact", (_r, payload, done) => {
      done(null, payload);
    });
    bare.post("/insert", async (req) => {
      let size = 0;
      for await (const chunk of req.body as AsyncIterable<Buffer>) size += chunk.length;
      await sql`INSERT INTO bench_rows (id, body_size) VALUES (${randomUUID()}, ${size})`.execute(
        database.db,
      );
      return { ok: true };
    });
    bare.post("/hash", async (req) => {
      const hash = createHash("sha256");
      for await (const chunk of req.body as AsyncIterable<Buffer>) hash.update(chunk);
      return { sha256: hash.digest("hex") };
    });
    const big = sized(16 * MiB);
    bare.get("/download", async (_req, reply) => {
      const hash = createHash("sha256").update(big);
      return reply.type("application/edifact").header("x-sha", hash.digest("hex")).send(big);
    });
    const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });

    // Its control reference is replaced per upload by the load generator (refPlaceholder).
    const small = orders(10 * 1024, smallRef);
    const scratch = await mkdtemp(join(tmpdir(), "hanse-bench-"));
    const closeTarget = async () => {
      await rm(scratch, { recursive: true, force: true });
      await bare.close();
      await app.close();
      await container.close();
      await target.cleanup();
    };
    const post = async (url: string, body: Buffer, extra: Record<string, string> = {}) => {
      const r = await request(url, {
        method: "POST",
        headers: { ...partnerHeaders, ...extra },
        body,
        dispatcher,
      });
      await r.body.dump();
      return r.statusCode;
    };
    const smallFile = join(scratch, "small.edi");
    const bigFile = join(scratch, "big.edi");
    await writeFile(smallFile, small);
    await writeFile(bigFile, big);
    const loadHeaders = { ...partnerHeaders };
    if (soakOnly) {
      const processes = target.url ? workerProcesses : 0;
      const children = processes > 0 ? await startBenchWorkers(target.url ?? "", processes) : undefined;
      const runners: SoakRunners = children
        ? {
            pids: () => children.pids(),
            pause: () => signal(children.pids(), "SIGSTOP"),
            resume: () => signal(children.pids(), "SIGCONT"),
          }
        : { pids: () => [], pause: () => worker.stop(2000), resume: () => worker.start() };
      for (const client of soakClients) {
        const figures = await soak({
          db: database.db,
          inbox,
          file: smallFile,
          headers: loadHeaders,
          client,
          runners,
        });
        process.stdout.write(soakTable(target.label, figures, processes));
      }
      if (children) await children.stop();
      else await worker.stop(2000);
      await closeTarget();
      continue;
    }
    // Every figure is measured in rounds that interleave baseline and subject; the median round
    // counts, so a burst of load from elsewhere on the machine hits both alike.
    const samples = {
      baseline: [] as LoadFigures[],
      uploads: [] as LoadFigures[],
      bareUpload: [] as number[],
      bigUpload: [] as number[],
      bareDownload: [] as number[],
      download: [] as number[],
      bareStatement: [] as number[],
      acceptStatement: [] as number[],
    };
    const mbps = async (fn: () => Promise<unknown>, n: number) => {
      const start = performance.now();
      for (let i = 0; i < n; i++) await fn();
      return (n * 16) / ((performance.now() - start) / 1000);
    };
    const client = createPartnerClient({ baseUrl: appUrl, apiKey: apiKey, connectionId: connectionId });
    // Mailbox entries whose payload is a 16 MiB upload's blob, bigPerRound per round.
    const bigBlobId = async () => {
      await post(inbox, big, { "idempotency-key": `big-${Date.now()}` });
      const row = await sql<{
        id: string;
      }>`SELECT id FROM blobs WHERE byte_count = ${big.length} LIMIT 1`.execute(database.db);
      return row.rows[0]?.id;
    };
    // One 16 MiB upload first: it warms the path up (compiled code, pools) and its blob is the
    // payload of the download figure.
    const blobId = await bigBlobId();
    // Server RSS growth during 8 concurrent 16 MiB uploads, before the rounds (RSS does not
    // shrink, so a measurement after more 16 MiB work would hide growth), sent by a separate
    // process: only the server's own memory is sampled.
    global.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 5);
    const concurrent = await loadFromChild({
      url: inbox,
      file: bigFile,
      headers: loadHeaders,
      connections: 8,
      seconds: 0,
      requests: 8,
      uniqueKeys: true,
    });
    clearInterval(sampler);
    await sql`DELETE FROM jobs WHERE name = 'exchange.process-upload' AND state = 'queued'`.execute(
      database.db,
    );
    for (let i = 0; i < rounds * bigPerRound; i++)
      await post(inbox, orders(600, `D${i}`), { "idempotency-key": `download-${i}` });
    await worker.drain();
    await sql`UPDATE exchange_deliveries SET blob_id = ${blobId}, payload_size = ${big.length}, payload_sha256 = ${createHash("sha256").update(big).digest()}
      WHERE status = 'ready'`.execute(database.db);
    const downloadTargets = (await client.list({ limit: 100 })).items;
    const sixteen = { connections: 1, seconds: 0, requests: bigPerRound };
    const exchangeDatabase = database.as<ExchangeTables>();
    const smallSha = createHash("sha256").update(small).digest();
    const tenantId = (
      await sql<{
        tenant_id: string;
      }>`SELECT tenant_id FROM exchange_connections WHERE id = ${connectionId}`.execute(database.db)
    ).rows[0]?.tenant_id;
    if (!tenantId) throw new Error("no connection");
    const acceptOnce = () => {
      const now = new Date();
      return acceptUpload(
        exchangeDatabase,
        {
          id: uuidv7(),
          connectionId: connectionId,
          keyHash: createHash("sha256").update(randomUUID()).digest(),
          blobId: uuidv7(),
          byteCount: small.length,
          sha256: smallSha,
          interchangeId: "S",
          at: now,
          auditId: uuidv7(),
          job: { id: uuidv7(), name: "exchange.process-upload", key: null, maxAttempts: 5 },
          origin: { apiKeyId: tenantId, sourceAddress: "127.0.0.1", correlationId: uuidv7() },
        },
        { tenantId, profileRevision: 1, principalId: tenantId },
        small,
      );
    };
    const bareOnce = () =>
      sql`INSERT INTO bench_rows (id, body_size) VALUES (${randomUUID()}, ${small.length})`.execute(
        database.db,
      );

    for (let round = 0; round < (mailboxOnly ? 0 : rounds); round++) {
      samples.baseline.push(
        await loadFromChild({
          url: `${bareUrl}/insert`,
          file: smallFile,
          headers: loadHeaders,
          connections: 32,
          seconds,
        }),
      );
      samples.uploads.push(
        await loadFromChild({
          url: inbox,
          file: smallFile,
          headers: loadHeaders,
          connections: 32,
          seconds,
          uniqueKeys: true,
          refPlaceholder: smallRef,
        }),
      );
      samples.bareStatement.push(await statementRate(bareOnce, { seconds }));
      samples.acceptStatement.push(await statementRate(acceptOnce, { seconds }));
      await sql`DELETE FROM jobs WHERE name = 'exchange.process-upload' AND state = 'queued'`.execute(
        database.db,
      );

      const bare = await loadFromChild({
        url: `${bareUrl}/hash`,
        file: bigFile,
        headers: loadHeaders,
        ...sixteen,
      });
      samples.bareUpload.push((bare.requests * 16) / bare.elapsedSeconds);
      const subject = await loadFromChild({
        url: inbox,
        file: bigFile,
        headers: loadHeaders,
        ...sixteen,
        uniqueKeys: true,
      });
      samples.bigUpload.push((subject.requests * 16) / subject.elapsedSeconds);
      await sql`DELETE FROM jobs WHERE name = 'exchange.process-upload' AND state = 'queued'`.execute(
        database.db,
      );

      samples.bareDownload.push(
        await mbps(async () => {
          const r = await request(`${bareUrl}/download`, { dispatcher });
          const hash = createHash("sha256");
          for await (const chunk of r.body) hash.update(chunk as Buffer);
        }, bigPerRound),
      );
      // Only the payload read is timed (claim and acknowledge are the mailbox cycle's figure).
      const mine = downloadTargets.splice(0, bigPerRound);
      let reading = 0;
      for (const item of mine) {
        const c = await client.claim(item.deliveryAttemptId);
        const start = performance.now();
        const read = await client.readPayload(item.deliveryAttemptId, c.claimToken, async () => undefined);
        reading += performance.now() - start;
        const problem = integrityProblem(read);
        if (problem) throw new Error(`payload read: ${problem}`);
        await client.acknowledge(item.deliveryAttemptId, c.claimToken);
      }
      samples.download.push((mine.length * 16) / (reading / 1000));
    }

    // Clear the mailbox, then end to end: 202 → outbound listed.
    await sql`UPDATE exchange_deliveries SET status = 'acknowledged'`.execute(database.db);
    await worker.start();
    const e2e: number[] = [];
    const tiny = (i: number) => orders(600, `E${i}`);
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let i = w; i < e2eUploads; i += 8) {
          const t0 = performance.now();
          const r = await request(inbox, {
            method: "POST",
            headers: { ...partnerHeaders, "idempotency-key": `e2e-${i}` },
            body: tiny(i),
            dispatcher,
          });
          const { uploadId } = (await r.body.json()) as { uploadId: string };
          for (;;) {
            const rows = await sql<{
              n: number;
            }>`SELECT count(*)::int AS n FROM exchange_deliveries WHERE upload_id = ${uploadId}`.execute(
              database.db,
            );
            if ((rows.rows[0]?.n ?? 0) > 0) break;
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          e2e.push(performance.now() - t0);
        }
      }),
    );

    // Mailbox cycles with 4 workers, each its own slice of the listed entries; samples of 100.
    const cycleRates: number[] = [];
    for (let sample = 0; sample < mailboxSamples; sample++) {
      let cycles = 0;
      const listed = (await client.list({ limit: 100 })).items;
      if (listed.length < 100)
        throw new Error(`mailbox sample ${sample + 1}: ${listed.length} entries listed, not 100`);
      const cycleStart = performance.now();
      await Promise.all(
        Array.from({ length: 4 }, async (_, w) => {
          for (const item of listed.filter((_, i) => i % 4 === w)) {
            await client.list({ limit: 10 });
            const c = await client.claim(item.deliveryAttemptId);
            await client.readPayload(item.deliveryAttemptId, c.claimToken, async () => undefined);
            await client.acknowledge(item.deliveryAttemptId, c.claimToken);
            cycles++;
          }
        }),
      );
      cycleRates.push(cycles / ((performance.now() - cycleStart) / 1000));
    }
    const cyclesPerSecond = median(cycleRates);
    if (mailboxOnly) {
      await worker.stop(2000);
      const each = cycleRates.map((rate) => rate.toFixed(0)).join(", ");
      process.stdout.write(
        `\n### ${target.label}: mailbox cycles/s (4 workers) ${cyclesPerSecond.toFixed(1)} (${each})\n`,
      );
      await closeTarget();
      continue;
    }
    const soaked = [];
    for (const client of soakClients) {
      soaked.push(
        await soak({
          db: database.db,
          inbox,
          file: smallFile,
          headers: loadHeaders,
          client,
          runners: { pids: () => [], pause: () => worker.stop(2000), resume: () => worker.start() },
        }),
      );
    }
    await worker.stop(2000);

    const baseline = medianBy(samples.baseline, (r) => r.rps);
    const uploads = medianBy(samples.uploads, (r) => r.rps);
    const bareUpload = median(samples.bareUpload);
    const bigUpload = median(samples.bigUpload);
    const bareDownload = median(samples.bareDownload);
    const download = median(samples.download);
    const bareStatement = median(samples.bareStatement);
    const acceptStatement = median(samples.acceptStatement);

    const pct = (a: number, b: number) => `${Math.round((a / b) * 100)} %`;
    process.stdout.write(`\n### ${target.label} (medians of ${rounds} interleaved rounds)\n\n`);
    process.stdout.write(
      `${table([
        ["figure", "Hanse", "baseline", "ratio", "goal"],
        [
          "10 KiB upload req/s (32 conn)",
          uploads.rps.toFixed(0),
          baseline.rps.toFixed(0),
          pct(uploads.rps, baseline.rps),
          "≥ 40 %",
        ],
        ["10 KiB upload p99 ms", uploads.p99.toFixed(1), baseline.p99.toFixed(1), "", ""],
        [
          "statements alone/s (accept vs bare insert, no HTTP)",
          acceptStatement.toFixed(0),
          bareStatement.toFixed(0),
          pct(acceptStatement, bareStatement),
          "ceiling",
        ],
        [
          "16 MiB upload MB/s",
          bigUpload.toFixed(0),
          bareUpload.toFixed(0),
          pct(bigUpload, bareUpload),
          "≥ 50 %",
        ],
        [
          "16 MiB payload download MB/s",
          download.toFixed(0),
          bareDownload.toFixed(0),
          pct(download, bareDownload),
          "≥ 50 %",
        ],
        ["RSS growth, 8 × 16 MiB concurrent (MiB)", ((rssPeak - rssBefore) / MiB).toFixed(0), "", "", "≤ 64"],
        [
          `202 → outbound listed p50 / p99 ms (${e2e.length} uploads)`,
          `${percentile(e2e, 50).toFixed(0)} / ${percentile(e2e, 99).toFixed(0)}`,
          "",
          "",
          "",
        ],
        ["mailbox cycles/s (4 workers)", cyclesPerSecond.toFixed(0), "", "", ""],
      ])}\n`,
    );
    for (const figures of soaked) process.stdout.write(soakTable(target.label, figures, 0));
    if (uploads.failures > 0) process.stdout.write(`(${uploads.failures} upload requests were not 2xx)\n`);
    if (concurrent.failures > 0)
      process.stdout.write(`(${concurrent.failures} of the 8 concurrent 16 MiB uploads were not 2xx)\n`);
    await closeTarget();
  }
  await dispatcher.close();
}
