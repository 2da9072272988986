import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startHttpsReceiver, type HttpsReceiver, webhookReceiverEnv } from "../support/https-receiver.js";
import { startWorkerProcess, type HanseProcess } from "../support/server-process.js";
import { createTestApp, workerProcessEnv, type TestApp } from "../support/test-app.js";
import { inProcessOnly } from "../support/remote-app.js";
import { onPostgres } from "../support/test-database.js";
import { waitUntil } from "../support/wait-until.js";
import { subscribeWebhook } from "../support/webhook-subscriptions.js";

const leaseSeconds = 2;

// Worker processes (`hanse serve` with HANSE_ROLES=worker) share the test's database, which only
// PostgreSQL allows: the in-process app writes the change, the processes deliver it.
describe.skipIf(
  inProcessOnly("starts and kills worker processes of its own on its own database; hung remotely") ||
    !onPostgres,
)(
  "issue 22: a process killed mid-delivery delivers after restart (PostgreSQL only; skipped on PGlite, whose database one process holds)",
  () => {
    let t: TestApp;
    let tenant: ProvisionedTenant;
    let receiver: HttpsReceiver;
    let dir: string;
    const workers: HanseProcess[] = [];

    beforeAll(async () => {
      receiver = await startHttpsReceiver();
      t = await createTestApp({
        env: webhookReceiverEnv(receiver),
      });
      tenant = await provisionTenant(t);
      dir = await mkdtemp(join(tmpdir(), "hanse-webhook-restart-"));
    }, 60_000);
    afterAll(async () => {
      await Promise.all(workers.map((worker) => worker.stop()));
      await t.close();
      await receiver.close();
      await rm(dir, { recursive: true, force: true });
    });

    async function startWorker(name: string): Promise<HanseProcess> {
      const worker = await startWorkerProcess({
        ...workerProcessEnv(t, join(dir, name), leaseSeconds),
        // The longest timeout allowed: the first request is still open when its process is killed.
        ...webhookReceiverEnv(receiver, { timeoutMs: 60_000 }),
      });
      workers.push(worker);
      return worker;
    }

    it("the receiver holds the request, its worker is killed (SIGKILL); after the lease another worker sends the same webhook-id and records one delivered attempt", async () => {
      const hook = await subscribeWebhook(t, tenant.token, "restart", receiver.url);
      let calls = 0;
      receiver.answer = () => (calls++ === 0 ? "hang" : { status: 204 });
      const a = await startWorker("a");
      const sequence = await hook.change("olga");
      await waitUntil(() => Promise.resolve(receiver.received.length === 1), {
        what: "worker a's request to reach the receiver",
        timeoutMs: 30_000,
      });
      await a.stop("SIGKILL");
      // Nothing was recorded: the delivery is pending, no attempt written.
      expect(await hook.attempts()).toEqual([]);

      await startWorker("b");
      await waitUntil(async () => (await hook.attempts()).length > 0, {
        what: "worker b to deliver after the lease",
        timeoutMs: 60_000,
      });
      const [first, second] = receiver.received;
      expect(receiver.received).toHaveLength(2);
      expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
      expect(JSON.parse(second?.body ?? "{}")).toMatchObject({ sequence, actorId: "olga" });
      expect((await hook.attempts()).map((a) => [a.attempt, a.status, a.errorClass])).toEqual([
        [1, 204, null],
      ]);
      const delivery = await sql<{ state: string; attempts: number }>`
        SELECT state, attempts FROM webhook_deliveries WHERE subscription_id = ${hook.subscription.id}::uuid`.execute(
        t.container.database.db,
      );
      expect(delivery.rows).toEqual([{ state: "delivered", attempts: 1 }]);
    }, 120_000);
  },
);
