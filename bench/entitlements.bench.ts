/**
 * Issue 21 figures (`npm run bench -- entitlements`), on PGlite and on PostgreSQL when one answers,
 * each database in a fresh process (the RSS figure), against baselines of the same run:
 * - introspection requests per second and p99 at 32 connections, every request signed with a
 *   fresh nonce (so every one writes one), against a bare Fastify route doing what it minimally
 *   needs of the database: one nonce INSERT and one primary-key SELECT of an entitlement (goal ≥ 50 %);
 * - grants per second at 32 connections against the same bare route (goal ≥ 40 %);
 * - feed catch-up: changes per second read by change iteration from sequence 0 over 100,000
 *   changes at 1,000 per page, against a bare keyset-paged SELECT loop over the same table in
 *   this process, without HTTP (goal ≥ 50 %);
 * - a snapshot of 100,000 entitlements at 1,000 per page: pages per second (a bare keyset SELECT
 *   loop over the entitlements for comparison, no goal) and the server's peak RSS growth (≤ 64 MiB).
 * The feed and snapshot readers run in a process of their own (bench/support/entitlement-client.ts),
 * so the RSS sampled here is the server's (with PGlite, its database's too). The 100,000
 * entitlements and changes are one real PUT (sequence 1) and a generate_series INSERT of the same
 * row shape (sequences 2…100,000); the bench checks that both kinds read back alike.
 * BENCH_SECONDS (default 5) and BENCH_ROUNDS (default 3) as in the other benches; the median round
 * counts. VACUUM ANALYZE runs before every measured window (`settle`).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import Fastify from "fastify";
import { sql } from "kysely";
import { createWorker } from "../src/platform/jobs/index.js";
import { changeFeedJsonFromColumns } from "../src/platform/db/migrations/2026-11-29T1200-entitlement-change-feed-json.js";
import { serviceCredentialUuid } from "@hanse/client/protocol";
import type { ServiceCredential } from "../test/support/service-signer.js";
import { databasesInOwnProcesses, settle } from "./support/databases.js";
import { cpuSince, cpuSnapshot, perRequest, type CpuSpent } from "./support/cpu.js";
import {
  benchActorId,
  serviceBase,
  signedGet,
  signedRequests,
  type ReadFigures,
  type Service,
} from "./support/entitlement-client.js";
import { customerTenant, requestJson, startServer } from "./support/server.js";
import { load, loadTableHeading, medianBy, table, type LoadResult } from "./support/load.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/** `BENCH_ENTITLEMENTS_ONLY=feed`: the feed and snapshot figures only, without the request loads. */
const feedOnly = process.env.BENCH_ENTITLEMENTS_ONLY === "feed";
const entitlementCount = 100_000;
const pageSize = 1000;
const MiB = 1024 * 1024;
/** The CPU of several runs together. */
const sumCpu = (spent: readonly CpuSpent[]): CpuSpent => ({
  serverMs: spent.reduce((n, c) => n + c.serverMs, 0),
  serverSystemMs: spent.reduce((n, c) => n + c.serverSystemMs, 0),
  databaseMs: spent.reduce((n, c) => n + c.databaseMs, 0),
  loadMs: spent.reduce((n, c) => n + c.loadMs, 0),
});
const clientModule = new URL("./support/entitlement-client.ts", import.meta.url).href;

/** A whole feed or snapshot read by the reader process (`readAll` of entitlement-client.ts). */
async function readInChild(service: Service, what: "changes" | "snapshot"): Promise<ReadFigures> {
  const script = `import { readAll } from ${JSON.stringify(clientModule)};
    process.stdout.write(JSON.stringify(await readAll(JSON.parse(process.env.BENCH_READ))));`;
  const child = spawn(process.execPath, [...process.execArgv, "--input-type=module", "-e", script], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    env: { ...process.env, BENCH_READ: JSON.stringify({ service, what, limit: pageSize }) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`the ${what} reader exited with ${String(code)}`);
  const figures = JSON.parse(out) as ReadFigures;
  if (figures.items !== entitlementCount) throw new Error(`the ${what} reader saw ${figures.items} items`);
  return figures;
}

export async function run(): Promise<void> {
  for (const target of await databasesInOwnProcesses(import.meta.url)) {
    const database = await target.open({ settled: true });
    const { logger, container, app, appUrl } = await startServer(database);
    const db = database.db;

    // A customer tenant, its administrator, an app, a binding requiring the app's capability.
    const { tenantId, auth } = await customerTenant(appUrl, () =>
      createWorker({
        database,
        jobs: container.jobs,
        clock: container.clock,
        logger,
        workerId: "provisioning",
        concurrency: 1,
        pollMs: 20,
      }).drain(),
    );
    const appId = "bench";
    await requestJson(`${appUrl}/api/v1/admin/apps`, {
      method: "POST",
      headers: auth,
      body: { id: appId, name: "Bench", capabilities: ["use"] },
    });
    const credential = await requestJson<ServiceCredential>(`${appUrl}/api/v1/admin/service-bindings`, {
      method: "POST",
      headers: auth,
      body: { appId, audience: "bench-service", requiredCapabilities: ["use"] },
    });
    const service: Service = {
      baseUrl: appUrl,
      credential: { credentialId: credential.credentialId, secret: credential.secret },
    };

    // 100,000 entitlements and changes: the first through the API, the rest in the same shape.
    const first = await requestJson<{ updatedAt: string; validFrom: string }>(
      `${appUrl}/api/v1/admin/apps/${appId}/entitlements/${benchActorId(0)}`,
      { method: "PUT", headers: auth, body: { status: "active", plan: "bench", capabilities: ["use"] } },
    );
    const at = new Date(first.updatedAt);
    await sql`
      INSERT INTO entitlements (tenant_id, app_id, actor_id, status, plan, capabilities, valid_from,
        valid_until, sequence, created_at, updated_at)
      SELECT ${tenantId}::uuid, ${appId}::text, 'a' || lpad((g - 1)::text, 6, '0'), 'active', 'bench',
        ARRAY['use'], ${at}::timestamptz, NULL, g, ${at}::timestamptz, ${at}::timestamptz
      FROM generate_series(2, ${entitlementCount}::integer) AS g`.execute(db);
    await sql`
      INSERT INTO entitlement_changes (tenant_id, app_id, sequence, event_id, type, actor_id,
        entitlement, previous, occurred_at, feed_json)
      SELECT tenant_id, app_id, sequence, gen_random_uuid(), 'entitlement.changed', actor_id,
        jsonb_build_object('appId', app_id, 'actorId', actor_id, 'status', status, 'plan', plan,
          'capabilities', to_jsonb(capabilities), 'validFrom', ${first.validFrom}::text,
          'validUntil', NULL, 'sequence', sequence, 'updatedAt', ${first.updatedAt}::text),
        NULL, ${at}::timestamptz, ''
      FROM entitlements WHERE tenant_id = ${tenantId}::uuid AND app_id = ${appId}::text AND sequence >= 2`.execute(
      db,
    );
    // Their feed text as the migration writes it for changes recorded before it (checked below).
    await sql`${sql.raw(changeFeedJsonFromColumns)}
      WHERE c.tenant_id = ${tenantId}::uuid AND c.app_id = ${appId}::text AND c.sequence >= 2`.execute(db);
    await sql`UPDATE entitlement_streams SET last_sequence = ${entitlementCount}::bigint
      WHERE tenant_id = ${tenantId}::uuid AND app_id = ${appId}::text`.execute(db);
    const head = await signedGet<{ items: { entitlement: Record<string, unknown> }[] }>(
      service,
      `${serviceBase}/service/changes?afterSequence=0&limit=2`,
    );
    const [written, seeded] = head.body.items.map((c) => c.entitlement);
    const shape = (e: Record<string, unknown> | undefined) =>
      JSON.stringify(Object.entries(e ?? {}).map(([k, v]) => [k, typeof v, Array.isArray(v)]));
    if (head.status !== 200 || shape(written) !== shape(seeded)) {
      throw new Error(`seeded changes differ from written ones: ${JSON.stringify(head.body)}`);
    }
    await settle(database);

    // 1. The snapshot first, while the server's RSS has not yet grown by other work.
    global.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 5);
    const snapshots = [await readInChild(service, "snapshot")];
    clearInterval(sampler);

    // 2. Feed catch-up and snapshot pages against bare keyset-paged SELECT loops (no HTTP).
    const bareLoop = async <K>(read: (after: K) => Promise<K[]>, from: K): Promise<ReadFigures> => {
      const start = performance.now();
      let after = from;
      let rows = 0;
      let pages = 0;
      for (;;) {
        const keys = await read(after);
        pages++;
        rows += keys.length;
        if (keys.length < pageSize) break;
        after = keys.at(-1) ?? after;
      }
      if (rows !== entitlementCount) throw new Error(`bare loop read ${rows} rows`);
      return { pages, items: rows, seconds: (performance.now() - start) / 1000 };
    };
    const bareChanges = async (after: number) =>
      (
        await sql<{ sequence: number }>`
          SELECT sequence, event_id, type, actor_id, entitlement, occurred_at FROM entitlement_changes
          WHERE tenant_id = ${tenantId} AND app_id = ${appId} AND sequence > ${after}
          ORDER BY sequence LIMIT ${pageSize}`.execute(db)
      ).rows.map((r) => r.sequence);
    const bareEntitlements = async (after: string) =>
      (
        await sql<{ actor_id: string }>`
          SELECT * FROM entitlements WHERE tenant_id = ${tenantId} AND app_id = ${appId} AND actor_id > ${after}
          ORDER BY actor_id LIMIT ${pageSize}`.execute(db)
      ).rows.map((r) => r.actor_id);
    const feed = { bare: [] as ReadFigures[], hanse: [] as ReadFigures[] };
    // The CPU of each part over every round's feed read: this process (the server; the bare
    // loop's reader), PostgreSQL, and the reader process (Hanse's only).
    const feedCpu = { bare: [] as CpuSpent[], hanse: [] as CpuSpent[] };
    const measured = async (into: CpuSpent[], read: () => Promise<ReadFigures>) => {
      const before = cpuSnapshot();
      const figures = await read();
      into.push(cpuSince(before));
      return figures;
    };
    const snapshotBare: ReadFigures[] = [];
    for (let round = 0; round < rounds; round++) {
      await settle(database);
      feed.bare.push(await measured(feedCpu.bare, () => bareLoop(bareChanges, 0)));
      feed.hanse.push(await measured(feedCpu.hanse, () => readInChild(service, "changes")));
      snapshotBare.push(await bareLoop(bareEntitlements, ""));
      if (round > 0) snapshots.push(await readInChild(service, "snapshot"));
    }

    const pct = (a: number, b: number) => a / b;
    const verdict = (ratio: number, goal: number) => [
      `${Math.round(ratio * 100)} %`,
      `≥ ${goal * 100} % ${ratio >= goal ? "met" : "MISSED"}`,
    ];
    // 3. Introspection and grants at 32 connections against the bare INSERT + PK SELECT route.
    const measureRequests = async () => {
      await sql`CREATE TABLE bench_nonces (credential_id uuid NOT NULL, nonce text NOT NULL,
        expires_at timestamptz NOT NULL, PRIMARY KEY (credential_id, nonce))`.execute(db);
      const credentialUuid = serviceCredentialUuid(credential.credentialId) ?? "";
      const bare = Fastify();
      bare.get<{ Params: { actorId: string } }>("/bare/:actorId", async (request) => {
        await sql`INSERT INTO bench_nonces (credential_id, nonce, expires_at)
          VALUES (${credentialUuid}, ${randomBytes(18).toString("base64url")}, ${new Date(Date.now() + 660_000)})`.execute(
          db,
        );
        const row = await sql`SELECT * FROM entitlements
          WHERE tenant_id = ${tenantId} AND app_id = ${appId} AND actor_id = ${request.params.actorId}`.execute(
          db,
        );
        return row.rows[0];
      });
      const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });
      const signed = (method: string, pathPrefix: string) => ({
        module: clientModule,
        name: "signedRequests",
        argument: { credential: service.credential, method, pathPrefix, actors: entitlementCount },
      });
      const targets = {
        bare: { url: bareUrl, method: "GET", setup: signed("GET", "/bare/") },
        introspection: {
          url: appUrl,
          method: "GET",
          setup: signed("GET", `${serviceBase}/service/introspect/`),
        },
        grants: { url: appUrl, method: "POST", setup: signed("POST", `${serviceBase}/service/grants/`) },
      };
      // A sample of each, made by the same hook the load generator uses, must answer 200.
      for (const [name, { url, method, setup }] of Object.entries(targets)) {
        const make = signedRequests(setup.argument);
        for (let i = 0; i < 3; i++) {
          const request = make({});
          const response = await fetch(`${url}${request.path}`, { method, headers: request.headers });
          if (response.status !== 200)
            throw new Error(`${name} sample: ${response.status} ${await response.text()}`);
        }
      }
      const samples = {
        bare: [] as LoadResult[],
        introspection: [] as LoadResult[],
        grants: [] as LoadResult[],
      };
      for (let round = 0; round < rounds; round++) {
        for (const [name, { url, method, setup }] of Object.entries(targets)) {
          await settle(database);
          samples[name as keyof typeof samples].push(await load(url, { seconds, method, setup }));
        }
      }
      const byRate = (r: LoadResult) => r.requestsPerSecond;
      const [baseline, introspection, grants] = [samples.bare, samples.introspection, samples.grants].map(
        (s) => medianBy(s, byRate),
      ) as [LoadResult, LoadResult, LoadResult];

      const loadRow = (name: string, r: LoadResult, goal?: number) => [
        name,
        Math.round(r.requestsPerSecond),
        r.p99Ms,
        r.non2xx + r.errors,
        perRequest(r.cpu, r.requests),
        ...(goal === undefined
          ? ["baseline", ""]
          : verdict(pct(r.requestsPerSecond, baseline.requestsPerSecond), goal)),
      ];
      process.stdout.write(
        `\n### ${target.label} (32 connections, median of ${rounds} interleaved ${seconds} s rounds)\n\n`,
      );
      process.stdout.write(
        `${table([
          loadTableHeading,
          loadRow("bare GET: nonce INSERT + PK SELECT", baseline),
          loadRow("GET introspect (signed, fresh nonce)", introspection, 0.5),
          loadRow("POST grants (signed, fresh nonce)", grants, 0.4),
        ])}\n\n`,
      );
      await bare.close();
    };
    if (!feedOnly) await measureRequests();
    const rate = (f: ReadFigures, of: "items" | "pages") => f[of] / f.seconds;
    const feedBare = medianBy(feed.bare, (f) => rate(f, "items"));
    const feedHanse = medianBy(feed.hanse, (f) => rate(f, "items"));
    const snapshotHanse = medianBy(snapshots, (f) => rate(f, "pages"));
    const snapshotBaseline = medianBy(snapshotBare, (f) => rate(f, "pages"));
    process.stdout.write(
      `${table([
        ["figure", "Hanse", "baseline", "ratio", "goal"],
        [
          "feed catch-up, changes/s (100,000 from 0, 1,000 per page)",
          Math.round(rate(feedHanse, "items")),
          Math.round(rate(feedBare, "items")),
          ...verdict(pct(rate(feedHanse, "items"), rate(feedBare, "items")), 0.5),
        ],
        [
          "feed: CPU per page, server (kernel) / database / reader µs",
          perRequest(
            sumCpu(feedCpu.hanse),
            feed.hanse.reduce((n, f) => n + f.pages, 0),
          ),
          perRequest(
            sumCpu(feedCpu.bare),
            feed.bare.reduce((n, f) => n + f.pages, 0),
          ),
          "",
          "",
        ],
        [
          "snapshot of 100,000, pages/s (1,000 per page)",
          rate(snapshotHanse, "pages").toFixed(1),
          rate(snapshotBaseline, "pages").toFixed(1),
          `${Math.round(pct(rate(snapshotHanse, "pages"), rate(snapshotBaseline, "pages")) * 100)} %`,
          "",
        ],
        [
          "snapshot: server peak RSS growth (MiB)",
          ((rssPeak - rssBefore) / MiB).toFixed(1),
          "",
          "",
          `≤ 64 ${(rssPeak - rssBefore) / MiB <= 64 ? "met" : "MISSED"}`,
        ],
      ])}\n`,
    );
    await app.close();
    await container.close();
    await target.cleanup();
  }
}
