/**
 * Issue 22 figures (`npm run bench -- webhooks`), on PGlite and on PostgreSQL when one answers,
 * each database in a fresh process, against a local HTTPS receiver in a process of its own
 * (bench/support/webhook-receiver.ts; HANSE_WEBHOOK_ALLOW_PRIVATE=1 and its certificate in
 * HANSE_WEBHOOK_CA_FILE):
 * - deliveries per second: a backlog of BENCH_WEBHOOK_DELIVERIES entitlement changes (default
 *   500, written through the API with no worker running) delivered by a worker of the delivery
 *   job — one job for the subscription, sending batches of `webhookBatchSize` at once — against a
 *   bare loop of as many signed undici POSTs of the same body shape to the same receiver from
 *   `webhookBatchSize` concurrent loops, the same number in flight (goal ≥ 50 %); rounds
 *   interleave both, the median round counts;
 * - the time from an entitlement change's commit (its PUT answered) to the delivery's arrival at
 *   the receiver, p50 and p99, with 2 workers, changes written at BENCH_WEBHOOK_RATE per second
 *   (default 50) for BENCH_WEBHOOK_LATENCY_SECONDS (default 10). "2 workers" is two claimers that
 *   each have one delivery in flight: on PostgreSQL two `hanse serve` processes with
 *   HANSE_ROLES=worker and HANSE_WORKER_CONCURRENCY=1 (the API in this process); on PGlite, whose
 *   database lives in one process, that process's worker with concurrency 2 (what `hanse serve`
 *   with both roles runs).
 * BENCH_ROUNDS (default 3) as in the other benches. VACUUM ANALYZE runs before every measured window.
 */
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSecureContext, rootCertificates } from "node:tls";
import { Agent, request } from "undici";
import { webhookBatchSize, webhookDeliveryJobName } from "../src/modules/entitlements/webhooks/index.js";
import { uuidv7 } from "../src/platform/crypto/ids.js";
import { createWorker } from "../src/platform/jobs/index.js";
import { signWebhook, verifyWebhook } from "@hanse/client/protocol";
import { startWorkerProcess, type HanseProcess } from "../test/support/server-process.js";
import { cpuSince, cpuSnapshot, perRequest, processCpuMs, type CpuSpent } from "./support/cpu.js";
import { databasesInOwnProcesses, settle } from "./support/databases.js";
import { medianBy, table } from "./support/load.js";
import { benchToken, customerTenant, requestJson, startServer } from "./support/server.js";
import type { Arrival, Received } from "./support/webhook-receiver.js";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const deliveries = Number(process.env.BENCH_WEBHOOK_DELIVERIES ?? 500);
const rate = Number(process.env.BENCH_WEBHOOK_RATE ?? 50);
const latencySeconds = Number(process.env.BENCH_WEBHOOK_LATENCY_SECONDS ?? 10);

const wallMs = () => performance.timeOrigin + performance.now();

/** The receiver process: its URL and certificate, and the arrivals it recorded since the last take. */
async function startReceiver() {
  const child: ChildProcess = fork(new URL("./support/webhook-receiver.ts", import.meta.url), {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const [ready] = (await once(child, "message")) as [{ url: string; caFile: string }];
  const last: Received = { headers: {}, body: "" };
  return {
    ...ready,
    pid: child.pid ?? 0,
    /** The last request received, as of the last take. */
    last,
    async take(): Promise<Arrival[]> {
      const answer = once(child, "message") as Promise<[{ arrivals: Arrival[]; last: Received }]>;
      child.send("take");
      const [{ arrivals, last }] = await answer;
      this.last = last;
      return arrivals;
    },
    async close() {
      child.send("close");
      await once(child, "exit");
    },
  };
}

interface Round {
  seconds: number;
  cpu: CpuSpent;
}

const perSecond = (r: Round) => deliveries / r.seconds;

/** CPU of this process and the database as cpu.ts counts it, the receiver's in place of the load's. */
async function measured(receiverPid: number, work: () => Promise<void>): Promise<Round> {
  const before = cpuSnapshot();
  const receiverBefore = processCpuMs(receiverPid);
  const start = performance.now();
  await work();
  const seconds = (performance.now() - start) / 1000;
  const cpu = { ...cpuSince(before), loadMs: processCpuMs(receiverPid) - receiverBefore };
  return { seconds, cpu };
}

/**
 * BENCH_CPU_PROFILE=<file prefix>: `work` under V8's sampling profiler, written to
 * `<prefix>-<label>.cpuprofile` (open it in Chrome's DevTools); otherwise just `work`.
 */
async function profiled<T>(label: string, work: () => Promise<T>): Promise<T> {
  const prefix = process.env.BENCH_CPU_PROFILE;
  if (!prefix) return work();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    return await work();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    await writeFile(`${prefix}-${label}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  }
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export async function run(): Promise<void> {
  for (const target of await databasesInOwnProcesses(import.meta.url)) {
    const receiver = await startReceiver();
    const database = await target.open({ settled: true });
    const webhookEnv = { HANSE_WEBHOOK_ALLOW_PRIVATE: "1", HANSE_WEBHOOK_CA_FILE: receiver.caFile };
    const { logger, container, app, appUrl } = await startServer(database, webhookEnv);
    const deliveryJobs = container.jobs.filter((job) => job.name === webhookDeliveryJobName);
    const workerOf = (workerId: string, jobs = container.jobs, workers = 4) =>
      createWorker({
        database,
        jobs,
        clock: container.clock,
        logger,
        workerId,
        concurrency: workers,
        pollMs: 20,
      });

    // A customer tenant, an app, a binding and a subscription of it to the receiver.
    const { tenantId, auth } = await customerTenant(appUrl, () => workerOf("provisioning").drain());
    const appId = "bench";
    await requestJson(`${appUrl}/api/v1/admin/apps`, {
      method: "POST",
      headers: auth,
      body: { id: appId, name: "Bench", capabilities: ["use"] },
    });
    const binding = await requestJson<{ id: string }>(`${appUrl}/api/v1/admin/service-bindings`, {
      method: "POST",
      headers: auth,
      body: { appId, audience: "bench-service", requiredCapabilities: ["use"] },
    });
    const subscription = await requestJson<{ secret: string }>(
      `${appUrl}/api/v1/admin/webhook-subscriptions`,
      {
        method: "POST",
        headers: auth,
        body: { bindingId: binding.id, url: receiver.url },
      },
    );

    /** One entitlement change through the API; its sequence and when its PUT was answered. */
    let changes = 0;
    const change = async () => {
      const n = changes++;
      const answer = await requestJson<{ sequence: number }>(
        `${appUrl}/api/v1/admin/apps/${appId}/entitlements/a${n % 1000}`,
        { method: "PUT", headers: auth, body: { status: "active", plan: `p${n}`, capabilities: ["use"] } },
      );
      return { sequence: answer.sequence, answeredAt: wallMs() };
    };
    /** Every sequence of `written` arrived (at least once); returns the arrivals. */
    const arrivedAll = (arrivals: readonly Arrival[], written: readonly number[], what: string) => {
      const seen = new Set(arrivals.map(([sequence]) => sequence));
      const missing = written.filter((s) => !seen.has(s));
      if (missing.length > 0) throw new Error(`${what}: ${missing.length} deliveries did not arrive`);
    };

    // A sample delivery arrives and verifies with the subscription's secret.
    const secureContext = createSecureContext({
      ca: [...rootCertificates, await readFile(receiver.caFile, "utf8")],
    });
    const sample = await change();
    await workerOf("sample", deliveryJobs).drain();
    arrivedAll(await receiver.take(), [sample.sequence], "sample");
    const verified = verifyWebhook(
      subscription.secret,
      receiver.last.headers,
      receiver.last.body,
      Date.now() / 1000,
    );
    if (!verified.ok) throw new Error(`the sample delivery does not verify: ${verified.reason}`);

    // 1. Deliveries per second: a backlog delivered by Hanse against the bare loop of signed POSTs.
    const bareLoop = async (concurrency: number) => {
      const agent = new Agent({ connect: { secureContext }, keepAliveTimeout: 10_000 });
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < deliveries) {
            const sequence = ++next;
            const id = uuidv7();
            const timestamp = Math.floor(Date.now() / 1000);
            const body = JSON.stringify({
              eventId: uuidv7(),
              type: "entitlement.changed",
              tenantId,
              appId,
              sequence,
              actorId: `a${sequence % 1000}`,
              occurredAt: new Date().toISOString(),
            });
            const response = await request(receiver.url, {
              method: "POST",
              dispatcher: agent,
              headers: {
                "content-type": "application/json",
                "user-agent": "hanse-webhooks/1",
                "webhook-id": id,
                "webhook-timestamp": String(timestamp),
                "webhook-signature": signWebhook(subscription.secret, id, timestamp, body),
              },
              body,
            });
            await response.body.dump();
            if (response.statusCode !== 204) throw new Error(`bare POST: ${response.statusCode}`);
          }
        }),
      );
      await agent.close();
    };
    const backlog = async () => {
      const written: number[] = [];
      let left = deliveries;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (left-- > 0) written.push((await change()).sequence);
        }),
      );
      return written;
    };
    const bare: Round[] = [];
    const hanse: Round[] = [];
    for (let round = 0; round < rounds; round++) {
      await settle(database);
      bare.push(await measured(receiver.pid, () => bareLoop(webhookBatchSize)));
      await receiver.take();
      const written = await backlog();
      await settle(database);
      const worker = workerOf(`throughput-${round}`, deliveryJobs);
      const label = `${target.url ? "postgres" : "pglite"}-${round}`;
      hanse.push(
        await measured(receiver.pid, async () => {
          const ran = await profiled(label, () => worker.drain());
          if (ran === 0) throw new Error(`the worker ran no job for ${written.length} deliveries`);
        }),
      );
      arrivedAll(await receiver.take(), written, `round ${round}`);
    }
    const baseline = medianBy(bare, perSecond);
    const subject = medianBy(hanse, perSecond);

    // 2. Commit → delivery with 2 workers, changes written at a steady rate.
    await settle(database);
    const dataDir = await mkdtemp(join(tmpdir(), "hanse-bench-webhooks-"));
    const workerProcesses: HanseProcess[] = [];
    let inProcess: ReturnType<typeof createWorker> | undefined;
    let workersUsed: string;
    if (target.url) {
      for (const name of ["w1", "w2"]) {
        workerProcesses.push(
          await startWorkerProcess({
            ...webhookEnv,
            DATABASE_URL: target.url,
            HANSE_BOOTSTRAP_TOKEN: benchToken,
            HANSE_DATA_DIR: join(dataDir, name),
            HANSE_WORKER_CONCURRENCY: "1",
          }),
        );
      }
      workersUsed = "2 worker processes (HANSE_ROLES=worker, HANSE_WORKER_CONCURRENCY=1)";
    } else {
      inProcess = workerOf("latency", container.jobs, 2);
      await inProcess.start();
      workersUsed = "the API process's worker, concurrency 2";
    }
    const steady = async (seconds: number) => {
      const answered = new Map<number, number>();
      const start = performance.now();
      const total = Math.round(seconds * rate);
      for (let i = 0; i < total; i++) {
        const wait = start + (i * 1000) / rate - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const { sequence, answeredAt } = await change();
        answered.set(sequence, answeredAt);
      }
      const arrivals: Arrival[] = [];
      const deadline = performance.now() + 60_000;
      for (;;) {
        arrivals.push(...(await receiver.take()));
        const seen = new Set(arrivals.map(([s]) => s));
        if ([...answered.keys()].every((s) => seen.has(s))) break;
        if (performance.now() > deadline) arrivedAll(arrivals, [...answered.keys()], "latency");
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const first = new Map<number, number>();
      for (const [sequence, at] of arrivals) if (!first.has(sequence)) first.set(sequence, at);
      const lags = [...answered].map(([sequence, at]) => (first.get(sequence) ?? NaN) - at);
      return { lags: lags.sort((a, b) => a - b), duplicates: arrivals.length - first.size };
    };
    await steady(1); // warm-up: connections, compiled code
    const latency = await steady(latencySeconds);
    await inProcess?.stop(5000);
    await Promise.all(workerProcesses.map((w) => w.stop()));
    await rm(dataDir, { recursive: true, force: true });

    const ms = (value: number) => value.toFixed(1);
    const ratio = perSecond(subject) / perSecond(baseline);
    const rows = [
      [
        `bare loop of signed undici POSTs, ${webhookBatchSize} at once`,
        `${Math.round(perSecond(baseline))} /s`,
        perRequest(baseline.cpu, deliveries),
        "baseline",
        "",
      ],
      [
        `Hanse deliveries, batches of ${webhookBatchSize} at once`,
        `${Math.round(perSecond(subject))} /s`,
        perRequest(subject.cpu, deliveries),
        `${Math.round(ratio * 100)} %`,
        `≥ 50 % ${ratio >= 0.5 ? "met" : "MISSED"}`,
      ],
    ];
    process.stdout.write(
      `\n### ${target.label} (${deliveries} deliveries a round, median of ${rounds} interleaved rounds)\n\n`,
    );
    process.stdout.write(
      `${table([
        [
          "figure",
          "value",
          "CPU µs per delivery: this process (kernel) / database / receiver",
          "vs baseline",
          "goal",
        ],
        ...rows,
        [
          `commit → delivery, p50 / p99 / max (${latency.lags.length} changes at ${rate}/s)`,
          `${ms(percentile(latency.lags, 50))} / ${ms(percentile(latency.lags, 99))} / ${ms(latency.lags.at(-1) ?? NaN)} ms`,
          "",
          "",
          "",
        ],
      ])}\n\n2 workers: ${workersUsed}; ${latency.duplicates} duplicate deliveries.\n`,
    );

    await app.close();
    await container.close();
    await receiver.close();
    await target.cleanup();
  }
}
