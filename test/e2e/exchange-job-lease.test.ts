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
});
