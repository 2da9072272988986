import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startWorkerProcess, type HanseProcess } from "../support/server-process.js";
import { createTestApp, workerProcessEnv, type TestApp } from "../support/test-app.js";
import { onPostgres } from "../support/test-database.js";
import { waitUntil } from "../support/wait-until.js";
import { setupPartner, upload, validOrders } from "../../src/modules/exchange/testing/exchange.fixtures.js";

const leaseSeconds = 2;

// Worker processes on one PostgreSQL: the in-process app only accepts uploads (its worker is not
// started), `hanse serve` with HANSE_ROLES=worker processes them.
describe.skipIf(!onPostgres)("issue 20 defect 9: the job lease follows the job (PostgreSQL)", () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;
  let dir: string;
  const workers: HanseProcess[] = [];

  async function startWorker(name: string): Promise<ChildProcess> {
    const worker = await startWorkerProcess(workerProcessEnv(t, join(dir, name), leaseSeconds));
    workers.push(worker);
    return worker.child;
  }

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await provisionTenant(t);
    dir = await mkdtemp(join(tmpdir(), "hanse-lease-"));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  const job = async (uploadId: string) =>
    (
      await sql<{
        state: string;
        attempts: number;
        locked_by: string | null;
        lease_left_ms: number | null;
      }>`SELECT state, attempts, locked_by,
          (extract(epoch FROM locked_until - now()) * 1000)::float8 AS lease_left_ms
        FROM jobs WHERE name = 'exchange.process-upload' AND payload->>'uploadId' = ${uploadId}`.execute(
        t.container.database.db,
      )
    ).rows[0];

  it("a running upload job holds a short lease renewed while its worker lives; after kill -9 another worker takes it one lease later", async () => {
    const p = await setupPartner(t, tenant.token);
    // A lock on the upload row holds the job in its first statement, as a long job would run.
    const blocker = new pg.Client({ connectionString: t.testDatabase.url });
    await blocker.connect();
    try {
      const accepted = await upload(t, p, validOrders("LEASE"), "lease-1");
      expect(accepted.statusCode).toBe(202);
      const { uploadId } = accepted.json<{ uploadId: string }>();
      await blocker.query("BEGIN");
      await blocker.query("SELECT id FROM exchange_uploads WHERE id = $1 FOR UPDATE", [uploadId]);

      const a = await startWorker("a");
      await waitUntil(async () => (await job(uploadId))?.state === "running", {
        what: "worker a to claim the upload job",
        timeoutMs: 30_000,
      });
      // The lease is the configured one, not minutes.
      expect((await job(uploadId))?.lease_left_ms).toBeLessThanOrEqual(leaseSeconds * 1000);

      // A second worker does not take the job while its worker lives: the heartbeat renews it.
      await startWorker("b");
      await new Promise((resolve) => setTimeout(resolve, leaseSeconds * 2000));
      const held = await job(uploadId);
      expect(held).toMatchObject({ state: "running", attempts: 1 });
      const holder = held?.locked_by;

      a.kill("SIGKILL");
      await once(a, "exit");
      await blocker.query("ROLLBACK");
      await waitUntil(
        async () =>
          (
            await sql<{ status: string }>`SELECT status FROM exchange_uploads WHERE id = ${uploadId}`.execute(
              t.container.database.db,
            )
          ).rows[0]?.status === "processed" && (await job(uploadId))?.state === "succeeded",
        // The upload is processed in the job's transaction; the job is marked succeeded just after.
        { what: "worker b to process the upload after the lease and finish its job", timeoutMs: 30_000 },
      );
      const done = await job(uploadId);
      expect(done).toMatchObject({ state: "succeeded", attempts: 2 });
      expect(done?.locked_by).not.toBe(holder);
      const outbound = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM exchange_deliveries WHERE upload_id = ${uploadId}`.execute(
        t.container.database.db,
      );
      expect(outbound.rows[0]?.n).toBe(1);
    } finally {
      await blocker.end();
    }
  }, 120_000);

  it("a batch of uploads whose worker is killed (kill -9) before its commit: another worker processes each upload once", async () => {
    // No worker of the test before takes part.
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    const p = await setupPartner(t, tenant.token);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const accepted = await upload(t, p, validOrders(`LEASEB${String(i)}`), `lease-batch-${String(i)}`);
      expect(accepted.statusCode).toBe(202);
      ids.push(accepted.json<{ uploadId: string }>().uploadId);
    }
    const blocker = new pg.Client({ connectionString: t.testDatabase.url });
    await blocker.connect();
    try {
      // The batch's first statement waits for this lock, as a long batch would run.
      await blocker.query("BEGIN");
      await blocker.query("SELECT id FROM exchange_uploads WHERE id = $1 FOR UPDATE", [ids[0]]);
      const a = await startWorker("batch-a");
      await waitUntil(
        async () => {
          const jobs = await Promise.all(ids.map(job));
          return (
            jobs.every((j) => j?.state === "running") && new Set(jobs.map((j) => j?.locked_by)).size === 1
          );
        },
        { what: "worker a to claim every upload job as one batch", timeoutMs: 30_000 },
      );
      a.kill("SIGKILL");
      await once(a, "exit");
      await blocker.query("ROLLBACK");
      await startWorker("batch-b");
      await waitUntil(async () => (await Promise.all(ids.map(job))).every((j) => j?.state === "succeeded"), {
        what: "worker b to process the batch after the lease",
        timeoutMs: 30_000,
      });
      const rows = await sql<{ status: string; n: number }>`
        SELECT u.status, (SELECT count(*)::int FROM exchange_deliveries d WHERE d.upload_id = u.id) AS n
        FROM exchange_uploads u WHERE u.connection_id = ${p.connectionId}`.execute(t.container.database.db);
      expect(rows.rows).toHaveLength(ids.length);
      for (const row of rows.rows) expect(row).toEqual({ status: "processed", n: 1 });
    } finally {
      await blocker.end();
    }
  }, 120_000);
});
