import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "./database.js";

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ memory: true, maintenanceIntervalMs: 0 });
});
afterAll(async () => {
  await database.close();
});

/** Runs `statements` one after another; answers how many had completed when a timer due at once ran. */
async function doneWhenTimerRan(statements: number, run: () => Promise<unknown>): Promise<number> {
  let done = 0;
  let seen = -1;
  setTimeout(() => (seen = done), 0);
  for (; done < statements; done++) await run();
  return seen;
}

describe("embedded database statements and the event loop", () => {
  it("a chain of query-builder statements lets a timer run between them", async () => {
    const seen = await doneWhenTimerRan(200, () => sql`SELECT 1`.execute(database.db));
    expect(seen).toBeGreaterThanOrEqual(0);
    expect(seen).toBeLessThan(200);
  });

  it("so does a chain of prepared statements", async () => {
    const seen = await doneWhenTimerRan(200, () => database.prepared("turns_probe", "SELECT 1 AS one", []));
    expect(seen).toBeGreaterThanOrEqual(0);
    expect(seen).toBeLessThan(200);
  });

  it("and a transaction of many statements, which still commits all of them", async () => {
    await sql`CREATE TABLE turns (n integer PRIMARY KEY)`.execute(database.db);
    let n = 0;
    const seen = await database.transaction(async (trx) =>
      doneWhenTimerRan(200, () => sql`INSERT INTO turns VALUES (${n++})`.execute(trx)),
    );
    expect(seen).toBeGreaterThanOrEqual(0);
    expect(seen).toBeLessThan(200);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::integer AS n FROM turns`.execute(database.db);
    expect(rows[0]?.n).toBe(200);
  });
});
