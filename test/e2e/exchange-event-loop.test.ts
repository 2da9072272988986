// remote mode: in-process only: measures the event loop of its own in-process worker
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startServerProcess } from "../support/server-process.js";
import { bootstrapToken, createTestApp, startWorker, type TestApp } from "../support/test-app.js";
import { waitUntil } from "../support/wait-until.js";
import {
  ordersMessage,
  setupPartner,
  streamUpload,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";

const MiB = 1024 * 1024;
let t: TestApp;
let tenant: ProvisionedTenant;
let p: PartnerSetup;
let base: string;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await provisionTenant(t);
  p = await setupPartner(t, tenant.token);
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await t.close();
});

/** Valid ORDERS of about `size` bytes: messages of 2,000 lines each (few, large outbound ORDRSPs). */
function largeOrders(size: number, ref: string): Buffer {
  const head = `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}'`;
  const lines = Array.from({ length: 2000 }, () => "4000862141404");
  const messages: string[] = [];
  let length = head.length;
  while (length < size) {
    const message = ordersMessage(String(messages.length + 1), `PO${messages.length + 1}`, lines);
    messages.push(message);
    length += message.length;
  }
  return Buffer.from(`${head}${messages.join("")}UNZ+${messages.length}+${ref}'`);
}

/** Issue 20 defect 1's input: one segment of `?x$` repeated, which the synchronous check accepts. */
const pathological = (size: number): Buffer =>
  Buffer.from(`UNB+UNOA:3+A+B+991231:2359+X'${"?x$".repeat(Math.floor(size / 3))}'UNZ+0+X'`);

const statusOf = async (uploadId: string) =>
  (
    await sql<{ status: string }>`SELECT status FROM exchange_uploads WHERE id = ${uploadId}`.execute(
      t.container.database.db,
    )
  ).rows[0]?.status;

/**
 * Wall time over CPU time of a 100 ms busy loop in this process now (1 on
 * an idle machine): the share of a core the machine leaves it.
 */
function cpuStarvation(): number {
  const started = performance.now();
  const cpu = process.cpuUsage();
  while (performance.now() - started < 100) Math.sqrt(Math.random());
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  return Math.max(1, (performance.now() - started) / Math.max(cpuMs, 1));
}

describe("issue 20 defect 1: processing a large interchange does not hold the event loop", () => {
  it("while 8 MiB of ORDERS and 512 KiB of the pathological input are processed, the event loop is never held for a second and /healthz answers", async () => {
    const uploads: string[] = [];
    for (const [key, body] of [
      ["large-orders", largeOrders(8 * MiB, "LARGE")],
      ["pathological", pathological(512 * 1024)],
    ] as const) {
      const response = await streamUpload(base, p, body, key);
      expect(response.statusCode).toBe(202);
      uploads.push(((await response.body.json()) as { uploadId: string }).uploadId);
    }

    const starvedBefore = cpuStarvation();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let probes = 0;
    let answered = 0;
    const probing = setInterval(() => {
      probes++;
      void fetch(`${base}/healthz`).then((r) => {
        if (r.status === 200) answered++;
      });
    }, 50);
    const worker = await startWorker(t, "event-loop");
    try {
      await waitUntil(
        async () => {
          const statuses = await Promise.all(uploads.map(statusOf));
          return statuses.every((s) => s === "processed" || s === "rejected" || s === "failed");
        },
        { what: "both uploads processed", timeoutMs: 120_000, intervalMs: 100 },
      );
    } finally {
      clearInterval(probing);
      delay.disable();
      await worker.stop(10_000);
    }
    await waitUntil(async () => answered === probes, { what: "every /healthz probe answered" });

    expect(await statusOf(uploads[0] ?? "")).toBe("processed");
    expect(await statusOf(uploads[1] ?? "")).not.toBe("failed");
    const outbound = await sql<{ n: number }>`SELECT count(*)::int AS n FROM exchange_deliveries
      WHERE upload_id = ${uploads[0] ?? ""} AND message_type = 'ORDRSP'`.execute(t.container.database.db);
    expect(outbound.rows[0]?.n).toBeGreaterThan(10);
    // A behavioural bound (the server was unresponsive for 12 s), not a performance figure:
    // alone this run holds the loop 50–130 ms at most, inline processing held it 1,835 ms. On a
    // machine busy with the rest of the suite the process gets a fraction of a core and every
    // block stretches (1,867 ms at load 9 on 2 cores): the second is scaled by how much longer
    // than its CPU time a fixed piece of work took, measured before and after.
    const starved = Math.max(starvedBefore, cpuStarvation());
    expect(delay.max / 1e6).toBeLessThan(1000 * starved);
  }, 180_000);
});

/** `inject` over a real port, for the fixtures that take an app. */
const overHttp = (url: string) => ({
  inject: async (options: InjectOptions): Promise<LightMyRequestResponse> => {
    const payload = options.payload;
    const response = await fetch(`${url}${options.url as string}`, {
      method: options.method ?? "GET",
      headers: {
        ...(payload === undefined ? {} : { "content-type": "application/json" }),
        ...(options.headers as Record<string, string>),
      },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    const body = await response.text();
    return {
      statusCode: response.status,
      body,
      json: () => JSON.parse(body) as unknown,
    } as unknown as LightMyRequestResponse;
  },
});

describe("issue 20 defect 1: the EDIFACT threads of a server process (npm start)", () => {
  it("a large upload is processed on a worker thread of `hanse serve`, and SIGTERM then exits 0", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "hanse-threads-"));
    const server = await startServerProcess({
      HANSE_DATA_DIR: dataDir,
      DATABASE_URL: undefined,
      HANSE_BOOTSTRAP_TOKEN: bootstrapToken,
      HANSE_JOB_POLL_MS: "50",
    });
    try {
      const http = overHttp(server.url);
      const slug = `threads-${Date.now().toString(36)}`;
      const created = await http.inject({
        method: "POST",
        url: "/api/v1/system/tenants",
        headers: { authorization: `Bearer ${bootstrapToken}`, "idempotency-key": `create-${slug}` },
        payload: {
          name: "Threads",
          slug,
          admin: { email: `admin@${slug}.test`, password: "correct horse battery staple" },
        },
      });
      expect(created.statusCode).toBe(202);
      let session: LightMyRequestResponse | undefined;
      await waitUntil(
        async () => {
          session = await http.inject({
            method: "POST",
            url: "/api/v1/auth/sessions",
            payload: { tenant: slug, email: `admin@${slug}.test`, password: "correct horse battery staple" },
          });
          return session.statusCode === 201;
        },
        { what: "the tenant to be provisioned", timeoutMs: 30_000, intervalMs: 200 },
      );
      const admin = session?.json<{ token: string }>().token ?? "";
      const partner = await setupPartner(http, admin);
      const response = await streamUpload(server.url, partner, largeOrders(2 * MiB, "PROC"), "proc-1");
      expect(response.statusCode).toBe(202);
      const { uploadId } = (await response.body.json()) as { uploadId: string };
      let status = "";
      await waitUntil(
        async () => {
          const read = await http.inject({
            method: "GET",
            url: `/api/v1/admin/exchange-uploads/${uploadId}`,
            headers: { authorization: `Bearer ${admin}` },
          });
          status = read.json<{ status: string }>().status;
          return status === "processed" || status === "failed";
        },
        { what: "the upload to be processed", timeoutMs: 60_000, intervalMs: 200 },
      );
      expect(status).toBe("processed");
      expect(await server.stop("SIGTERM")).toBe(0);
      expect(server.output()).not.toMatch(/"level":(50|60)/);
    } finally {
      await server.stop("SIGKILL");
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
