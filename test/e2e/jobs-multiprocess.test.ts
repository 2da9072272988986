import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "../../src/platform/crypto/ids.js";
import { systemClock } from "../../src/platform/clock/clock.js";
import { createJobQueue } from "../../src/platform/jobs/index.js";
import { createTestDatabase, onPostgres, type TestDatabase } from "../support/test-database.js";
import { waitUntil } from "../support/wait-until.js";

// Race tests need real PostgreSQL (several connections, several processes).
describe.skipIf(!onPostgres)("job queue across processes (PostgreSQL)", () => {
  let t: TestDatabase;
  const children: ChildProcess[] = [];
  const queue = createJobQueue({ clock: systemClock, newId: () => uuidv7() });

  function startWorker(id: string, env: Record<string, string> = {}): Promise<ChildProcess> {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "test/support/job-worker-process.ts", t.url ?? "", id],
      {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    children.push(child);
    return new Promise((resolve, reject) => {
      child.stdout.once("data", () => {
        resolve(child);
      });
      child.once("exit", (code) => {
        reject(new Error(`worker ${id} exited with ${String(code)}`));
      });
    });
  }

  async function stopWorker(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await once(child, "exit");
  }

  const runs = () =>
    sql<{ label: string; worker: string; phase: string }>`SELECT label, worker, phase FROM mp_runs`
      .execute(t.database.db)
      .then((r) => r.rows);

  const waitFor = (predicate: () => Promise<boolean>) =>
    waitUntil(predicate, { what: "the workers' runs", timeoutMs: 60_000 });

  beforeAll(async () => {
    t = await createTestDatabase();
    await sql`CREATE TABLE mp_runs (label text NOT NULL, worker text NOT NULL, phase text NOT NULL)`.execute(
      t.database.db,
    );
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map(stopWorker));
    await sql`DELETE FROM mp_runs`.execute(t.database.db);
    await sql`DELETE FROM jobs`.execute(t.database.db);
  });
  afterAll(async () => {
    await t.drop();
  });

  it("1,000 jobs across 2 processes each run exactly once, and both processes take part", async () => {
    const [a, b] = await Promise.all([startWorker("A"), startWorker("B")]);
    for (let batch = 0; batch < 10; batch++) {
      await t.database.transaction(async (trx) => {
        for (let i = 0; i < 100; i++)
          await queue.enqueue(trx, { name: "test.mp" }, { label: `job-${batch * 100 + i}` });
      });
    }
    await waitFor(async () => (await runs()).filter((r) => r.phase === "finished").length >= 1000);
    await Promise.all([stopWorker(a), stopWorker(b)]);
    const finished = (await runs()).filter((r) => r.phase === "finished");
    expect(finished).toHaveLength(1000);
    expect(new Set(finished.map((r) => r.label)).size).toBe(1000);
    expect(new Set(finished.map((r) => r.worker))).toEqual(new Set(["A", "B"]));
    const states = await t.database.db.selectFrom("jobs").select("state").execute();
    expect(states.every((s) => s.state === "succeeded")).toBe(true);
  });

  it("two worker processes never run the same job at the same time (slow jobs, high concurrency)", async () => {
    await Promise.all([startWorker("A"), startWorker("B")]);
    await t.database.transaction(async (trx) => {
      for (let i = 0; i < 40; i++)
        await queue.enqueue(trx, { name: "test.mp" }, { label: `slow-${i}`, sleepMs: 100 });
    });
    await waitFor(async () => (await runs()).filter((r) => r.phase === "finished").length >= 40);
    const started = (await runs()).filter((r) => r.phase === "started");
    expect(started).toHaveLength(40);
    expect(new Set(started.map((r) => r.label)).size).toBe(40);
  });

  it("a worker killed mid-job (SIGKILL) leaves the job to run again after its lease", async () => {
    const env = { TEST_LEASE_MS: "1000" };
    const a = await startWorker("A", env);
    await t.database.transaction((trx) =>
      queue.enqueue(trx, { name: "test.mp" }, { label: "victim", sleepMs: 60_000 }),
    );
    await waitFor(async () => (await runs()).some((r) => r.worker === "A" && r.phase === "started"));
    a.kill("SIGKILL");
    await once(a, "exit");
    // The job is still `running` under A's lease; B must take it over only after the lease ends.
    const job = await t.database.db.selectFrom("jobs").selectAll().executeTakeFirstOrThrow();
    expect(job.state).toBe("running");
    expect(job.locked_by).toBe("A");
    await sql`UPDATE jobs SET payload = jsonb_set(payload, '{sleepMs}', '0')`.execute(t.database.db);
    await startWorker("B", env);
    const finalJob = () => t.database.db.selectFrom("jobs").selectAll().executeTakeFirstOrThrow();
    // The run's own record comes first, the worker marks the job done after it: wait for both.
    await waitFor(async () => (await runs()).some((r) => r.worker === "B" && r.phase === "finished"));
    await waitFor(async () => (await finalJob()).state !== "running");
    const done = await finalJob();
    expect(done.state).toBe("succeeded");
    expect(done.attempts).toBe(2);
    expect((await runs()).filter((r) => r.phase === "finished").map((r) => r.worker)).toEqual(["B"]);
  });
});
