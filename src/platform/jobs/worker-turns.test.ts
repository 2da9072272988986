import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/test-database.js";
import { waitUntil } from "../../../test/support/wait-until.js";
import { systemClock } from "../clock/clock.js";
import { uuidv7 } from "../crypto/ids.js";
import { createLogger } from "../logging/logger.js";
import { defineJob, type JobDefinition } from "./define-job.js";
import { createJobQueue } from "./queue.js";
import { createWorker } from "./worker.js";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

describe("job worker and the event loop", () => {
  it("a worker draining a backlog leaves the process's requests and timers their turn", async () => {
    const db = t.database.db;
    // A job that only talks to the database: on PGlite that completes without any I/O.
    const touch = defineJob<{ n: number }>({
      name: "test.touch",
      run: async () => {
        for (let i = 0; i < 3; i++) await sql`SELECT 1`.execute(db);
      },
    });
    const queue = createJobQueue({ clock: systemClock, newId: () => uuidv7() });
    const backlog = 400;
    await t.database.transaction(async (trx) => {
      for (let n = 0; n < backlog; n++) await queue.enqueue(trx, touch, { n });
    });
    const unfinished = async () =>
      (
        await db
          .selectFrom("jobs")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("name", "=", "test.touch")
          .where("state", "in", ["queued", "running"])
          .executeTakeFirstOrThrow()
      ).n;

    const worker = createWorker({
      database: t.database,
      jobs: [touch] as JobDefinition<never>[],
      clock: systemClock,
      logger: createLogger("silent"),
      workerId: "turns",
      concurrency: 4,
      pollMs: 20,
    });
    await worker.start();
    // A timer due at once stands for any request or timer of the process: it must run while the
    // backlog is being worked off, not after it.
    await new Promise((resolve) => setTimeout(resolve, 1));
    const leftWhenTimerRan = await unfinished();
    await waitUntil(async () => (await unfinished()) === 0, {
      what: "the backlog worked off",
      timeoutMs: 20_000,
      intervalMs: 20,
    }).finally(() => worker.stop(2000));

    expect(leftWhenTimerRan).toBeGreaterThan(0);
    expect(await unfinished()).toBe(0);
  });
});
