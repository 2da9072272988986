import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  setupPartner,
  streamUpload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { overHttp } from "../support/http-injector.js";
import { createTenantAcross } from "../support/multiprocess-tenant.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { createTestDatabase, onPostgres, type TestDatabase } from "../support/test-database.js";
import { waitUntil } from "../support/wait-until.js";

/*
 * Issue 35 item 3: on PostgreSQL `hanse serve` with both roles runs its jobs in a worker process
 * of its own (HANSE_WORKER_PROCESSES), supervised: one that dies is started again, and SIGTERM
 * stops both.
 */
const token = "worker-processes-bootstrap-token-0123456789abcdef";
const password = "correct horse battery staple";

/** The pids of the worker processes the server's log says it started, in order. */
const startedPids = (server: ServerProcess) =>
  server
    .output()
    .split("\n")
    .filter((line) => line.includes('"worker process started"'))
    .map((line) => (JSON.parse(line) as { pid: number }).pid);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!onPostgres)("worker processes of `serve` (HANSE_WORKER_PROCESSES, PostgreSQL)", () => {
  let server: ServerProcess;
  let db: TestDatabase;
  let dir: string;
  let adminToken: string;
  let partner: PartnerSetup;

  beforeAll(async () => {
    db = await createTestDatabase();
    dir = await mkdtemp(join(tmpdir(), "hanse-worker-processes-"));
    server = await startServerProcess({
      DATABASE_URL: db.url,
      HOST: "127.0.0.1",
      HANSE_BOOTSTRAP_TOKEN: token,
      HANSE_DATA_DIR: dir,
      HANSE_JOB_POLL_MS: "50",
      HANSE_WORKER_PROCESSES: "1",
    });
    // Provisioning is a job: the tenant exists only because the worker process runs.
    adminToken = (
      await createTenantAcross(server, server, token, { name: "Workers", prefix: "wp", password })
    ).token;
    partner = await setupPartner(
      overHttp(() => server.url),
      adminToken,
    );
  }, 240_000);

  afterAll(async () => {
    await server.stop("SIGKILL");
    for (const pid of startedPids(server)) if (alive(pid)) process.kill(pid, "SIGKILL");
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const processedUpload = async (ref: string) => {
    const answer = await streamUpload(server.url, partner, Buffer.from(validOrders(ref)), `wp-${ref}`);
    const text = await answer.body.text();
    expect(answer.statusCode, text).toBe(202);
    const { uploadId } = JSON.parse(text) as { uploadId: string };
    await waitUntil(
      async () => {
        const view = await fetch(`${server.url}/api/v1/admin/exchange-uploads/${uploadId}`, {
          headers: { authorization: `Bearer ${adminToken}` },
        });
        return ((await view.json()) as { status: string }).status === "processed";
      },
      { what: `upload ${ref} processed`, timeoutMs: 60_000 },
    );
  };

  it("uploads are processed by the worker process; one that is killed is started again and work still completes; SIGTERM stops both", async () => {
    const [first] = startedPids(server);
    expect(first).toBeDefined();
    expect(first).not.toBe(server.child.pid);
    expect(server.output()).toContain('"hanse worker is running"');
    await processedUpload("WP1");

    process.kill(first ?? 0, "SIGKILL");
    await waitUntil(async () => Promise.resolve(startedPids(server).length === 2), {
      what: "the worker process started again",
      timeoutMs: 30_000,
    });
    expect(server.output()).toContain('"worker process exited"');
    const second = startedPids(server)[1] ?? 0;
    expect(second).not.toBe(first);
    await processedUpload("WP2");

    expect(await server.stop("SIGTERM")).toBe(0);
    await waitUntil(async () => Promise.resolve(!alive(second)), {
      what: "the worker process stopped",
      timeoutMs: 30_000,
    });
  }, 240_000);

  it("a worker process whose API process is killed (SIGKILL) stops itself", async () => {
    const orphaned = await startServerProcess({
      DATABASE_URL: db.url,
      HOST: "127.0.0.1",
      HANSE_BOOTSTRAP_TOKEN: token,
      HANSE_DATA_DIR: dir,
      HANSE_WORKER_PROCESSES: "1",
    });
    await waitUntil(async () => Promise.resolve(orphaned.output().includes('"hanse worker is running"')), {
      what: "the worker process runs",
      timeoutMs: 60_000,
    });
    const [child] = startedPids(orphaned);
    expect(child).toBeDefined();
    await orphaned.stop("SIGKILL");
    await waitUntil(async () => Promise.resolve(!alive(child ?? 0)), {
      what: "the orphaned worker process stopped",
      timeoutMs: 30_000,
    });
  }, 240_000);
});
