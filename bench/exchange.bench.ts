/**
 * Issue 4 figures (`npm run bench -- exchange`), each against a baseline of the same run, on the
 * embedded database and on PostgreSQL when one answers:
 * - 10 KiB ORDERS uploads at 32 connections vs a bare Fastify route inserting one row (goal ≥ 40 %);
 * - 16 MiB uploads and payload downloads vs streaming the same bytes through a bare route with
 *   SHA-256 (goal ≥ 50 %); server RSS growth during 8 concurrent 16 MiB uploads (goal ≤ 64 MiB);
 * - end to end: 202 → every outbound entry listed (p50, p99) for BENCH_E2E_UPLOADS uploads;
 * - mailbox cycles (list → claim → payload → acknowledge) per second with 4 workers.
 * The load generator is in-process (undici), since every request needs its own Idempotency-Key.
 */
import { createHash, randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import Fastify from "fastify";
import { sql } from "kysely";
import { Agent, request } from "undici";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config/index.js";
import { createContainer } from "../src/container.js";
import { createWorker } from "../src/platform/jobs/index.js";
import { createLogger } from "../src/platform/logging/logger.js";
import { ordersMessage } from "../src/modules/exchange/testing/exchange.fixtures.js";
import { createPartnerClient } from "../src/sdk/partner.js";
import { benchDatabases } from "./support/databases.js";
import { table } from "./support/load.js";

const token = "bench-bootstrap-token-0123456789abcdefghijkl";
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const e2eUploads = Number(process.env.BENCH_E2E_UPLOADS ?? 1000);
const MiB = 1024 * 1024;
const dispatcher = new Agent({ connections: 64, pipelining: 1 });

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
};

/** `connections` loops sending for `seconds`; returns requests/s and p99 latency. */
async function drive(connections: number, send: () => Promise<number>) {
  const latencies: number[] = [];
  let failures = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const start = performance.now();
        const status = await send();
        latencies.push(performance.now() - start);
        if (status >= 300) failures++;
      }
    }),
  );
  return { rps: latencies.length / seconds, p99: percentile(latencies, 99), failures };
}

function orders(bytes: number, ref: string): Buffer {
  const lines: string[] = [];
  let body = "";
  for (let i = 0; body.length < bytes - 200; i++) {
    lines.push(`40008621${String(i).padStart(5, "0")}`);
    body = ordersMessage("1", `PO-${ref}`, lines);
  }
  return Buffer.from(`UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}'${body}UNZ+1+${ref}'`);
}

function sized(size: number): Buffer {
  const head = orders(2000, "BIG").toString("latin1");
  const unz = head.lastIndexOf("UNZ");
  return Buffer.concat([
    Buffer.from(head.slice(0, unz)),
    Buffer.alloc(size - head.length, "\n"),
    Buffer.from(head.slice(unz)),
  ]);
}

async function json<T>(
  url: string,
  method: "GET" | "POST",
  headers: Record<string, string>,
  body?: unknown,
): Promise<T> {
  const r = await request(url, {
    method,
    headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
    dispatcher,
  });
  const text = await r.body.text();
  if (r.statusCode >= 300) throw new Error(`${method} ${url} → ${r.statusCode} ${text}`);
  return JSON.parse(text) as T;
}

export async function run(): Promise<void> {
  for (const target of await benchDatabases()) {
    const database = await target.open();
    const config = loadConfig({
      HANSE_BOOTSTRAP_TOKEN: token,
      LOG_LEVEL: "silent",
      HANSE_ROLES: "api,worker",
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
      concurrency: 4,
      pollMs: 20,
    });

    // Setup through the API: a tenant, a partner, a connection with ORDRSP only, a key.
    const admin = { authorization: `Bearer ${token}` };
    const slug = `bench-${Date.now()}`;
    await json<{ tenantId: string }>(
      `${appUrl}/api/v1/system/tenants`,
      "POST",
      { ...admin, "idempotency-key": slug },
      { name: slug, slug, admin: { email: `a@${slug}.test`, password: "correct horse battery staple" } },
    );
    await worker.drain();
    const session = await json<{ token: string }>(
      `${appUrl}/api/v1/auth/sessions`,
      "POST",
      {},
      { tenant: slug, email: `a@${slug}.test`, password: "correct horse battery staple" },
    );
    const tadmin = { authorization: `Bearer ${session.token}` };
    const partner = await json<{ id: string }>(`${appUrl}/api/v1/admin/partners`, "POST", tadmin, {
      name: "bench",
    });
    const profile = {
      directory: "D96A",
      syntaxVersion: 3,
      syntaxIdentifier: "UNOC",
      partnerIdentification: { id: "5412345000013", qualifier: "14" },
      ownIdentification: { id: "4012345500004", qualifier: "14" },
    };
    const connection = await json<{ id: string }>(`${appUrl}/api/v1/admin/connections`, "POST", tadmin, {
      partnerId: partner.id,
      profile,
    });
    const scopes = [
      "b2b_exchange_partner_inbox:create",
      "b2b_exchange_partner_mailbox:list",
      "b2b_exchange_partner_mailbox:claim",
      "b2b_exchange_partner_mailbox:payload_read",
      "b2b_exchange_partner_mailbox:acknowledge",
    ];
    const key = await json<{ token: string }>(`${appUrl}/api/v1/admin/api-keys`, "POST", tadmin, {
      partnerId: partner.id,
      scopes,
    });
    const inbox = `${appUrl}/api/v1/b2b-exchange/partner/connections/${connection.id}/inbox`;
    const partnerHeaders = { authorization: `Bearer ${key.token}`, "content-type": "application/edifact" };

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

    const small = orders(10 * 1024, "S");
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
    const baseline = await drive(32, () => post(`${bareUrl}/insert`, small));
    const uploads = await drive(32, () => post(inbox, small, { "idempotency-key": randomUUID() }));
    await sql`DELETE FROM jobs WHERE name = 'exchange.process-upload' AND state = 'queued'`.execute(
      database.db,
    );

    // 16 MiB: MB/s of sequential uploads, and RSS growth during 8 concurrent ones.
    const mbps = async (fn: () => Promise<unknown>, n: number) => {
      const start = performance.now();
      for (let i = 0; i < n; i++) await fn();
      return (n * 16) / ((performance.now() - start) / 1000);
    };
    const bareUpload = await mbps(() => post(`${bareUrl}/hash`, big), 3);
    const bigUpload = await mbps(() => post(inbox, big, { "idempotency-key": randomUUID() }), 3);
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
    await Promise.all(Array.from({ length: 8 }, () => post(inbox, big, { "idempotency-key": randomUUID() })));
    clearInterval(sampler);
    await sql`DELETE FROM jobs WHERE name = 'exchange.process-upload' AND state = 'queued'`.execute(
      database.db,
    );

    // Download: the mailbox payload of a 16 MiB delivery vs the bare route.
    const client = createPartnerClient({ baseUrl: appUrl, apiKey: key.token, connectionId: connection.id });
    for (let i = 0; i < 3; i++)
      await post(inbox, orders(600, `D${i}`), { "idempotency-key": `download-${i}` });
    await worker.drain();
    const bareDownload = await mbps(async () => {
      const r = await request(`${bareUrl}/download`, { dispatcher });
      const hash = createHash("sha256");
      for await (const chunk of r.body) hash.update(chunk as Buffer);
    }, 3);
    const bigBlob = await sql<{
      id: string;
    }>`SELECT id FROM blobs WHERE byte_count = ${big.length} LIMIT 1`.execute(database.db);
    await sql`UPDATE exchange_deliveries SET blob_id = ${bigBlob.rows[0]?.id}, payload_size = ${big.length}, payload_sha256 = ${createHash("sha256").update(big).digest()}
      WHERE id IN (SELECT id FROM exchange_deliveries WHERE status = 'ready' ORDER BY position LIMIT 3)`.execute(
      database.db,
    );
    const downloadTargets = (await client.list({ limit: 3 })).items;
    const start = performance.now();
    for (const item of downloadTargets) {
      const c = await client.claim(item.deliveryAttemptId);
      await client.readPayload(item.deliveryAttemptId, c.claimToken, async () => undefined);
      await client.acknowledge(item.deliveryAttemptId, c.claimToken);
    }
    const download = (downloadTargets.length * 16) / ((performance.now() - start) / 1000);

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

    // Mailbox cycles with 4 workers, each its own slice of the listed entries.
    let cycles = 0;
    const listed = (await client.list({ limit: 100 })).items;
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
    const cyclesPerSecond = cycles / ((performance.now() - cycleStart) / 1000);
    await worker.stop(2000);

    const pct = (a: number, b: number) => `${Math.round((a / b) * 100)} %`;
    process.stdout.write(`\n### ${target.label}\n\n`);
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
    if (uploads.failures > 0) process.stdout.write(`(${uploads.failures} upload requests were not 2xx)\n`);
    await bare.close();
    await app.close();
    await container.close();
    await target.cleanup();
  }
  await dispatcher.close();
}
