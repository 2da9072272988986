import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, onPostgres, type TestDatabase } from "../support/test-database.js";

const token = "multiprocess-bootstrap-token-0123456789abcdefghij";

// Two real server processes (API + worker each) on one PostgreSQL.
describe.skipIf(!onPostgres)("workflow transition requests across two server processes (PostgreSQL)", () => {
  let db: TestDatabase;
  let dir: string;
  const children: ChildProcess[] = [];
  const urls: string[] = [];

  async function startServer(name: string): Promise<string> {
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "serve"], {
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        PORT: "0",
        HOST: "127.0.0.1",
        HANSE_BOOTSTRAP_TOKEN: token,
        HANSE_DATA_DIR: join(dir, name),
        HANSE_JOB_POLL_MS: "50",
        HANSE_WORKER_PROCESSES: "0",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      let buffered = "";
      child.stdout.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        const match = /"url":"(http:\/\/[^"]+)"/.exec(buffered);
        if (match?.[1]) resolve(match[1]);
      });
      child.once("exit", (code) => {
        reject(new Error(`server ${name} exited with ${String(code)}`));
      });
    });
  }

  const call = async (
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: unknown },
  ) => {
    const response = await fetch(url, {
      method: init.method ?? "GET",
      headers: {
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    return { status: response.status, text: await response.text(), headers: response.headers };
  };

  async function waitFor<T>(read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error("timed out");
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    dir = await mkdtemp(join(tmpdir(), "hanse-wf-mp-"));
    // One after the other: the first start creates the system tenant.
    urls.push(await startServer("a"));
    urls.push(await startServer("b"));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        await once(child, "exit");
      }),
    );
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it("50 concurrent identical requests spread over both processes → one request, one queue event, identical 202 bodies", async () => {
    const [a, b] = urls as [string, string];
    const slug = `mp-${Date.now().toString(36)}`;
    const created = await call(`${a}/api/v1/system/tenants`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "idempotency-key": `create-${slug}` },
      body: {
        name: "Multi",
        slug,
        admin: { email: `admin@${slug}.test`, password: "correct horse battery staple" },
      },
    });
    expect(created.status).toBe(202);
    const { tenantId } = JSON.parse(created.text) as { tenantId: string };
    await waitFor(async () => {
      const status = await call(`${b}/api/v1/system/tenants/${tenantId}/provisioning`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return (JSON.parse(status.text) as { state: string }).state === "succeeded" ? true : undefined;
    });
    const session = await call(`${b}/api/v1/auth/sessions`, {
      method: "POST",
      body: { tenant: slug, email: `admin@${slug}.test`, password: "correct horse battery staple" },
    });
    const auth = { authorization: `Bearer ${(JSON.parse(session.text) as { token: string }).token}` };
    const entity = await call(`${a}/api/v1/admin/entities`, {
      method: "POST",
      headers: auth,
      body: { kind: "product", attributes: { name: "Shared" } },
    });
    const entityId = (JSON.parse(entity.text) as { id: string }).id;

    const headers = { ...auth, "x-tenant-id": tenantId, "x-idempotency-key": `mp-${entityId}` };
    const body = { entity: "product", entityId, transition: "submit" };
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(`${i % 2 === 0 ? a : b}/api/v1/workflows/transition-requests`, {
          method: "POST",
          headers,
          body,
        }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(202));
    expect(new Set(answers.map((r) => r.text)).size).toBe(1);
    const { requestId, statusUrl } = JSON.parse(answers[0]?.text ?? "{}") as {
      requestId: string;
      statusUrl: string;
    };
    const counts = await sql<{ requests: number; jobs: number }>`
      SELECT (SELECT count(*)::int FROM workflow_transition_requests WHERE tenant_id = ${tenantId}) AS requests,
             (SELECT count(*)::int FROM jobs WHERE name = 'workflows.transition' AND tenant_id = ${tenantId}) AS jobs`.execute(
      db.database.db,
    );
    expect(counts.rows[0]).toEqual({ requests: 1, jobs: 1 });

    // Either process's worker finishes it; the entity moves exactly once.
    const final = await waitFor(async () => {
      const status = await call(`${b}${statusUrl}`, { headers: auth });
      const document = JSON.parse(status.text) as { status: string; requestId: string };
      return document.status === "succeeded" || document.status === "failed" ? document : undefined;
    });
    expect(final).toMatchObject({ requestId, status: "succeeded" });
    const after = await call(`${a}/api/v1/admin/entities/${entityId}`, { headers: auth });
    expect(JSON.parse(after.text)).toMatchObject({ state: "in_review", version: 2 });
  }, 120_000);
});
