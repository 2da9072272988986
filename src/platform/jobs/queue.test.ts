import { sql } from "kysely";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/test-database.js";
import { waitUntil } from "../../../test/support/wait-until.js";
import { createManualClock } from "../clock/clock.js";
import { uuidv7 } from "../crypto/ids.js";
import { createLogger } from "../logging/logger.js";
import { defineJob, type JobDefinition } from "./define-job.js";
import { createJobQueue, defaultMaxAttempts, insertJobsSql, jobSpecSql } from "./queue.js";
import { createWorker } from "./worker.js";

let t: TestDatabase;
const clock = createManualClock(new Date("2026-11-21T12:00:00.000Z"));
const queue = createJobQueue({ clock, newId: () => uuidv7() });
const logger = createLogger("silent");
const runs: string[] = [];

const record = defineJob<{ label: string }>({
  name: "test.record",
  run: async ({ label }) => {
    runs.push(label);
  },
});
let failuresLeft = 0;
const flaky = defineJob<{ label: string }>({
  name: "test.flaky",
  maxAttempts: 3,
  backoffMs: (attempts) => 1000 * 2 ** (attempts - 1),
  run: async ({ label }) => {
    if (failuresLeft-- > 0) throw new Error("transient");
    runs.push(label);
  },
});
const deadLetters: string[] = [];
const doomed = defineJob<{ label: string }>({
  name: "test.doomed",
  maxAttempts: 2,
  backoffMs: () => 1000,
  run: async () => {
    throw new Error("always fails");
  },
  onDead: async ({ label }) => {
    deadLetters.push(label);
  },
});

/** Records its label; its first run enqueues the same coalesce key, as work committed meanwhile. */
const wakes = defineJob<{ label: string }>({
  name: "test.wakes",
  run: async ({ label }) => {
    runs.push(label);
    if (runs.length === 1) {
      await t.database.transaction((trx) =>
        queue.enqueue(trx, wakes, { label: "meanwhile" }, { coalesceKey: "c-1" }),
      );
    }
  },
});

/** Runs in batches of up to 3; a label starting with "bad" fails, alone. */
const batches: string[][] = [];
const batched = defineJob<{ label: string }>({
  name: "test.batched",
  maxAttempts: 2,
  backoffMs: () => 1000,
  run: async ({ label }) => {
    batches.push([label]);
    if (label.startsWith("bad")) throw new Error("bad label");
    runs.push(label);
  },
  batch: {
    max: 3,
    run: async (items) => {
      batches.push(items.map((item) => item.payload.label));
      return items.map(({ payload }) => {
        if (payload.label.startsWith("bad")) return new Error("bad label");
        runs.push(payload.label);
        return undefined;
      });
    },
  },
});

const worker = () =>
  createWorker({
    database: t.database,
    jobs: [record, flaky, doomed, wakes, batched] as JobDefinition<never>[],
    clock,
    logger,
    workerId: "w1",
    concurrency: 2,
    pollMs: 20,
  });
const jobs = () => t.database.db.selectFrom("jobs").selectAll().orderBy("created_at").execute();

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});
beforeEach(async () => {
  runs.length = 0;
  batches.length = 0;
  deadLetters.length = 0;
  await sql`DELETE FROM jobs`.execute(t.database.db);
});

describe("job queue", () => {
  it("enqueues inside the caller's transaction: a rollback leaves no job", async () => {
    await t.database
      .transaction(async (trx) => {
        await queue.enqueue(trx, record, { label: "rolled back" });
        throw new Error("abort");
      })
      .catch(() => undefined);
    expect(await jobs()).toHaveLength(0);
    await t.database.transaction((trx) => queue.enqueue(trx, record, { label: "committed" }));
    expect(await worker().drain()).toBe(1);
    expect(runs).toEqual(["committed"]);
  });

  it("rules/contract §7 (a suspended tenant's work waits): a paused tenant's jobs stay queued, other jobs run; resuming runs them", async () => {
    const paused = uuidv7();
    const other = uuidv7();
    await t.database.transaction(async (trx) => {
      await queue.enqueue(trx, record, { label: "paused tenant" }, { tenantId: paused });
      await queue.enqueue(trx, record, { label: "other tenant" }, { tenantId: other });
      await queue.enqueue(trx, record, { label: "no tenant" });
      await queue.pauseTenant(trx, paused);
    });
    await t.database.transaction((trx) => queue.pauseTenant(trx, paused));
    expect(await worker().drain()).toBe(2);
    expect(runs.sort()).toEqual(["no tenant", "other tenant"]);
    expect((await jobs()).filter((job) => job.state === "queued").map((job) => job.tenant_id)).toEqual([
      paused,
    ]);
    await t.database.transaction((trx) => queue.resumeTenant(trx, paused));
    expect(await worker().drain()).toBe(1);
    expect(runs).toContain("paused tenant");
  });

  it("a job key is unique: enqueueing it again returns the same job and runs once", async () => {
    const first = await t.database.transaction((trx) =>
      queue.enqueue(trx, record, { label: "a" }, { key: "k-1" }),
    );
    const second = await t.database.transaction((trx) =>
      queue.enqueue(trx, record, { label: "b" }, { key: "k-1" }),
    );
    expect(second).toBe(first);
    await worker().drain();
    expect(runs).toEqual(["a"]);
  });

  it("a coalesce key merges enqueues into the queued job, which runs once at the earliest time asked", async () => {
    const later = new Date(clock.now().getTime() + 60_000);
    const first = await t.database.transaction((trx) =>
      queue.enqueue(trx, record, { label: "first" }, { coalesceKey: "c-1", runAt: later }),
    );
    const second = await t.database.transaction((trx) =>
      queue.enqueue(trx, record, { label: "second" }, { coalesceKey: "c-1" }),
    );
    const third = await t.database.transaction((trx) =>
      queue.enqueue(trx, record, { label: "third" }, { coalesceKey: "c-1", runAt: later }),
    );
    expect([second, third]).toEqual([first, first]);
    expect((await jobs()).map((job) => job.run_at.getTime())).toEqual([clock.now().getTime()]);
    expect(await worker().drain()).toBe(1);
    expect(runs).toEqual(["first"]);
  });

  it("a running job does not coalesce: an enqueue with its key while it runs gets a run of its own", async () => {
    await t.database.transaction((trx) =>
      queue.enqueue(trx, wakes, { label: "first" }, { coalesceKey: "c-1" }),
    );
    expect(await worker().drain()).toBe(2);
    expect(runs).toEqual(["first", "meanwhile"]);
    expect((await jobs()).map((job) => [job.state, job.coalesce_key])).toEqual([
      ["succeeded", null],
      ["succeeded", null],
    ]);
  });

  it("insertJobsSql with a coalesce key merges each row into the queued job of its key", async () => {
    await t.database.transaction((trx) =>
      queue.enqueue(trx, record, { label: "queued" }, { coalesceKey: "c-1" }),
    );
    const now = clock.now();
    const inserted = await sql<{ id: string }>`${sql.raw(
      insertJobsSql(
        "(VALUES ('c-1', 'merged'), ('c-2', 'new')) AS input (coalesce_key, label)",
        {
          id: "gen_random_uuid()",
          tenantId: "NULL::uuid",
          name: "'test.record'",
          key: "NULL",
          coalesceKey: "input.coalesce_key",
          payload: "jsonb_build_object('label', input.label)",
          maxAttempts: "3",
          runAt: `'${now.toISOString()}'::timestamptz`,
          createdAt: `'${now.toISOString()}'::timestamptz`,
        },
        "id",
      ),
    )}`.execute(t.database.db);
    expect(inserted.rows).toHaveLength(2);
    expect(await jobs()).toHaveLength(2);
    await worker().drain();
    expect(runs.sort()).toEqual(["new", "queued"]);
  });

  it("insertJobsSql with jobSpecSql enqueues under the definition's name and attempt budget", async () => {
    const now = clock.now();
    for (const job of [flaky, record]) {
      await sql`${sql.raw(
        insertJobsSql("(VALUES ('spec')) AS input (label)", {
          id: "gen_random_uuid()",
          tenantId: "NULL::uuid",
          ...jobSpecSql(job),
          key: "NULL",
          payload: "jsonb_build_object('label', input.label)",
          runAt: `'${now.toISOString()}'::timestamptz`,
          createdAt: `'${now.toISOString()}'::timestamptz`,
        }),
      )}`.execute(t.database.db);
    }
    const rows = (await jobs()).map((job) => [job.name, job.max_attempts]);
    expect(rows.sort()).toEqual([
      ["test.flaky", 3],
      ["test.record", defaultMaxAttempts],
    ]);
  });

  it("retries with exponential backoff, then succeeds", async () => {
    failuresLeft = 2;
    await t.database.transaction((trx) => queue.enqueue(trx, flaky, { label: "eventually" }));
    const w = worker();
    await w.drain();
    let [job] = await jobs();
    expect(job?.state).toBe("queued");
    expect(job?.attempts).toBe(1);
    expect(job?.run_at.getTime()).toBe(clock.now().getTime() + 1000);
    expect(await w.drain()).toBe(0); // not due yet
    clock.advance(1000);
    await w.drain();
    [job] = await jobs();
    expect(job?.run_at.getTime()).toBe(clock.now().getTime() + 2000);
    clock.advance(2000);
    await w.drain();
    [job] = await jobs();
    expect(job?.state).toBe("succeeded");
    expect(job?.attempts).toBe(3);
    expect(runs).toEqual(["eventually"]);
  });

  it("a backlog of a job with a batch run is handed over in batches; a failing job retries alone with its own budget", async () => {
    const labels = ["a", "b", "bad", "c", "d", "e", "f"];
    await t.database.transaction(async (trx) => {
      for (const label of labels) await queue.enqueue(trx, batched, { label });
    });
    const w = worker();
    expect(await w.drain()).toBe(labels.length);
    // Concurrency 2: each slot took a batch of up to 3.
    expect(batches.flat().sort()).toEqual([...labels].sort());
    expect(batches.every((batch) => batch.length <= 3)).toBe(true);
    expect(batches.length).toBeLessThan(labels.length);
    expect(runs.sort()).toEqual(["a", "b", "c", "d", "e", "f"]);
    const rows = await jobs();
    const bad = rows.find((row) => (row.payload as { label: string }).label === "bad");
    expect(bad).toMatchObject({ state: "queued", attempts: 1 });
    expect(bad?.last_error).toContain("bad label");
    expect(rows.filter((row) => row.state === "succeeded")).toHaveLength(6);
    // Alone now (no backlog): the single run, then dead after its budget.
    clock.advance(1000);
    batches.length = 0;
    await w.drain();
    expect(batches).toEqual([["bad"]]);
    expect((await jobs()).find((row) => row.id === bad?.id)).toMatchObject({ state: "dead", attempts: 2 });
  });

  it("ends dead after the attempt budget and calls onDead once", async () => {
    await t.database.transaction((trx) => queue.enqueue(trx, doomed, { label: "lost cause" }));
    const w = worker();
    await w.drain();
    clock.advance(1000);
    await w.drain();
    clock.advance(60_000);
    await w.drain();
    const [job] = await jobs();
    expect(job?.state).toBe("dead");
    expect(job?.attempts).toBe(2);
    expect(job?.last_error).toContain("always fails");
    expect(deadLetters).toEqual(["lost cause"]);
  });

  it("a job whose lease expired (crashed worker) is claimed and run again", async () => {
    await t.database.transaction((trx) => queue.enqueue(trx, record, { label: "orphaned" }));
    // Simulate a worker that claimed the job and died: running, lease in the future.
    await t.database.db
      .updateTable("jobs")
      .set({
        state: "running",
        attempts: 1,
        locked_by: "dead-worker",
        locked_until: new Date(clock.now().getTime() + 60_000),
      })
      .execute();
    const w = worker();
    expect(await w.drain()).toBe(0);
    clock.advance(60_001);
    expect(await w.drain()).toBe(1);
    const [job] = await jobs();
    expect(job?.state).toBe("succeeded");
    expect(job?.attempts).toBe(2);
    expect(runs).toEqual(["orphaned"]);
  });

  it("jobs finishing at once are all recorded succeeded, each only while its worker holds the attempt it claimed", async () => {
    let open = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let started = 0;
    const gated = defineJob<{ label: string }>({
      name: "test.gated",
      run: async ({ label }) => {
        started += 1;
        await gate;
        runs.push(label);
      },
    });
    await t.database.transaction(async (trx) => {
      for (const label of ["a", "b", "c", "d", "e", "f"]) await queue.enqueue(trx, gated, { label });
    });
    const w = createWorker({
      database: t.database,
      jobs: [gated] as JobDefinition<never>[],
      clock,
      logger,
      workerId: "batch",
      concurrency: 6,
      pollMs: 20,
    });
    await w.start();
    await waitUntil(async () => started === 6, { what: "six jobs running at once" });
    // Another worker took over job "f" meanwhile (its lease passed): its completion must not count.
    const db = t.database.db;
    const taken = await db
      .updateTable("jobs")
      .set({ locked_by: "other", attempts: 2 })
      .where(sql<boolean>`payload::jsonb->>'label' = 'f'`)
      .returning("id")
      .executeTakeFirstOrThrow();
    open();
    await waitUntil(async () => runs.length === 6, { what: "the six jobs ran" });
    await w.stop(1000);
    const rows = await jobs();
    expect(rows.filter((job) => job.state === "succeeded")).toHaveLength(5);
    const other = rows.find((job) => job.id === taken.id);
    expect(other).toMatchObject({ state: "running", locked_by: "other", attempts: 2 });
  });

  it("start() wakes up for new jobs and stop() drains what is running", async () => {
    const w = worker();
    await w.start();
    await t.database.transaction((trx) => queue.enqueue(trx, record, { label: "woken" }));
    await waitUntil(async () => runs.length > 0, { what: "the woken job ran" });
    await w.stop(1000);
    expect(runs).toEqual(["woken"]);
  });
});
