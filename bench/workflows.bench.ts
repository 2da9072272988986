/**
 * Issue 5 figures (`npm run bench -- workflows`), on PGlite and on PostgreSQL when one answers:
 * - accepted transition requests per second and p99 at 32 connections (a fresh key per request),
 *   against a bare Fastify route inserting one row into the same database (goal ≥ 45 %);
 * - replays per second (one key, the same body) against a bare primary-key SELECT route (goal ≥ 60 %);
 * - time from 202 to a terminal status (p50, p99) with 2 workers, at a steady arrival rate.
 * BENCH_SECONDS (default 5) sets the length of each load run, BENCH_ROUNDS (default 3) the number
 * of interleaved rounds; the median round of each route counts. The database runs no maintenance
 * schedule here: before each load window the bench runs VACUUM ANALYZE itself, so that no window
 * pays for the housekeeping of rows an earlier window wrote (the accept windows write ~75,000
 * rows each, whose VACUUM and ANALYZE otherwise landed in the replay windows that follow them).
 */
import Fastify from "fastify";
import { sql } from "kysely";
import { uuidv7 } from "../src/platform/crypto/index.js";
import { createWorker } from "../src/platform/jobs/index.js";
import { benchDatabases, settle } from "./support/databases.js";
import { perRequest } from "./support/cpu.js";
import { customerTenant, requestJson, startServer } from "./support/server.js";
import { load, loadTableHeading, table, type LoadResult } from "./support/load.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

export async function run(): Promise<void> {
  for (const target of await benchDatabases()) {
    const database = await target.open({ settled: true });
    const { logger, container, app, appUrl } = await startServer(database);
    const worker = (id: string) =>
      createWorker({
        database,
        jobs: container.jobs,
        clock: container.clock,
        logger,
        workerId: id,
        concurrency: 4,
        pollMs: 20,
      });

    // A customer tenant, its administrator's session and a few product entities.
    const { tenantId, auth } = await customerTenant(appUrl, () => worker("provisioning").drain());
    const newEntity = async () =>
      (
        await requestJson<{ id: string }>(`${appUrl}/api/v1/admin/entities`, {
          method: "POST",
          headers: auth,
          body: { kind: "product", attributes: { name: "Bench" } },
        })
      ).id;
    const href = `${appUrl}/api/v1/workflows/transition-requests`;
    const headers = { ...auth, "x-tenant-id": tenantId, "content-type": "application/json" };

    // 1. Time from 202 to terminal with 2 workers: 200 requests arriving at ~100/s.
    const workers = [worker("w1"), worker("w2")];
    await Promise.all(workers.map((w) => w.start()));
    const accepted: { requestId: string; at: number }[] = [];
    for (let i = 0; i < 200; i++) {
      const entityId = await newEntity();
      const answer = await requestJson<{ requestId: string }>(href, {
        method: "POST",
        headers: { ...headers, "x-idempotency-key": `latency-${i}` },
        body: { entity: "product", entityId, transition: "submit" },
      });
      accepted.push({ requestId: answer.requestId, at: performance.now() });
      await new Promise((r) => setTimeout(r, 10));
    }
    const completedAt = new Map<string, number>();
    const deadline = performance.now() + 60_000;
    while (completedAt.size < accepted.length && performance.now() < deadline) {
      const rows = await sql<{ id: string; created_at: Date; completed_at: Date | null }>`
        SELECT id, created_at, completed_at FROM workflow_transition_requests
        WHERE tenant_id = ${tenantId} AND completed_at IS NOT NULL`.execute(database.db);
      for (const row of rows.rows) {
        if (row.completed_at) completedAt.set(row.id, row.completed_at.getTime() - row.created_at.getTime());
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    await Promise.all(workers.map((w) => w.stop(5000)));
    const latencies = accepted.map((a) => completedAt.get(a.requestId) ?? Number.NaN).filter(Number.isFinite);

    // 2. Throughput (no workers: only acceptance is measured).
    await sql`CREATE TABLE IF NOT EXISTS bench_rows (id uuid PRIMARY KEY, body jsonb NOT NULL)`.execute(
      database.db,
    );
    const probe = uuidv7();
    await sql`INSERT INTO bench_rows (id, body) VALUES (${probe}, '{}')`.execute(database.db);
    const bare = Fastify();
    bare.post("/insert", async (request) => {
      await sql`INSERT INTO bench_rows (id, body) VALUES (${uuidv7()}, ${JSON.stringify(request.body)})`.execute(
        database.db,
      );
      return { ok: true };
    });
    bare.get("/select", async () => {
      const row = await sql<{ id: string }>`SELECT id, body FROM bench_rows WHERE id = ${probe}`.execute(
        database.db,
      );
      return row.rows[0];
    });
    const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });

    const entityId = await newEntity();
    const body = JSON.stringify({ entity: "product", entityId, transition: "submit" });
    await requestJson(href, {
      method: "POST",
      headers: { ...headers, "x-idempotency-key": "replayed" },
      body: JSON.parse(body),
    });
    // Rounds interleave baselines and subjects, and the median round counts: a burst of load from
    // elsewhere on the machine (2 shared cores) then hits baseline and subject alike.
    const targets: [string, () => Promise<LoadResult>][] = [
      [
        "bare POST inserting one row",
        () =>
          load(`${bareUrl}/insert`, {
            seconds,
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          }),
      ],
      [
        "POST transition-requests (new key)",
        () =>
          load(href, {
            seconds,
            method: "POST",
            headers: { ...headers, "x-idempotency-key": "bench-[<id>]" },
            body,
          }),
      ],
      ["bare GET one PK SELECT", () => load(`${bareUrl}/select`, { seconds })],
      [
        "POST transition-requests (replay)",
        () =>
          load(href, {
            seconds,
            method: "POST",
            headers: { ...headers, "x-idempotency-key": "replayed" },
            body,
          }),
      ],
    ];
    const samples = new Map<string, LoadResult[]>(targets.map(([name]) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const [name, measure] of targets) {
        await settle(database);
        samples.get(name)?.push(await measure());
      }
    }
    const median = (name: string): LoadResult => {
      const sorted = [...(samples.get(name) ?? [])].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
      const middle = sorted[Math.floor(sorted.length / 2)];
      if (!middle) throw new Error(`no samples for ${name}`);
      return middle;
    };
    const [insert, acceptedLoad, select, replay] = targets.map(([name]) => median(name)) as [
      LoadResult,
      LoadResult,
      LoadResult,
      LoadResult,
    ];

    const ratio = (a: LoadResult, b: LoadResult, goal: number) => {
      const value = a.requestsPerSecond / b.requestsPerSecond;
      return [`${Math.round(value * 100)} %`, `≥ ${goal * 100} % ${value >= goal ? "met" : "MISSED"}`];
    };
    process.stdout.write(
      `\n### ${target.label} (32 connections, median of ${rounds} interleaved ${seconds} s rounds)\n\n`,
    );
    process.stdout.write(
      `${table([
        loadTableHeading,
        [
          "bare POST inserting one row",
          Math.round(insert.requestsPerSecond),
          insert.p99Ms,
          insert.non2xx,
          perRequest(insert.cpu, insert.requests),
          "baseline",
          "",
        ],
        [
          "POST transition-requests (new key)",
          Math.round(acceptedLoad.requestsPerSecond),
          acceptedLoad.p99Ms,
          acceptedLoad.non2xx,
          perRequest(acceptedLoad.cpu, acceptedLoad.requests),
          ...ratio(acceptedLoad, insert, 0.45),
        ],
        [
          "bare GET one PK SELECT",
          Math.round(select.requestsPerSecond),
          select.p99Ms,
          select.non2xx,
          perRequest(select.cpu, select.requests),
          "baseline",
          "",
        ],
        [
          "POST transition-requests (replay)",
          Math.round(replay.requestsPerSecond),
          replay.p99Ms,
          replay.non2xx,
          perRequest(replay.cpu, replay.requests),
          ...ratio(replay, select, 0.6),
        ],
      ])}\n\n`,
    );
    process.stdout.write(
      `202 → terminal with 2 workers (${latencies.length}/${accepted.length} finished): ` +
        `p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms\n`,
    );

    await bare.close();
    await app.close();
    await container.close();
    await target.cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) await run();
