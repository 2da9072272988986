import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directUrlFor } from "../../../test/support/postgres-url.js";
import { createTestDatabase, throughPooler, type TestDatabase } from "../../../test/support/test-database.js";
import { openDatabase, type Database } from "./database.js";
import { migrateToLatest } from "./migrate.js";

/**
 * Behind a transaction-mode pooler (the suite run with DATABASE_URL naming PgBouncer and
 * HANSE_DATABASE_POOLER=transaction; docs/operations.md "Connection poolers"): no statement,
 * lock or LISTEN relies on a session.
 */
describe.runIf(throughPooler)("a database handle behind a transaction pooler", () => {
  let test: TestDatabase;
  let bare: Database;
  let direct: pg.Client;
  beforeAll(async () => {
    test = await createTestDatabase();
    const url = test.url ?? "";
    // The same database through the pooler with no direct URL: polling only.
    bare = await openDatabase({ url, poolSize: 8, pooler: "transaction", maintenanceIntervalMs: 0 });
    direct = new pg.Client({ connectionString: directUrlFor(url, new URL(url).pathname.slice(1)) });
    await direct.connect();
  });
  afterAll(async () => {
    await direct.end();
    await bare.close();
    await test.drop();
  });

  it("runs a hot statement from many callers at once on shared server connections", async () => {
    const runs = Array.from({ length: 64 }, (_, i) =>
      bare.prepared<{ n: number }>("hanse_pooler_probe", "SELECT $1::int AS n", [i]),
    );
    const rows = await Promise.all(runs);
    expect(rows.map(([row]) => row?.n)).toEqual(Array.from({ length: 64 }, (_, i) => i));
  });

  it("migrates from several handles at once and leaves no advisory lock behind", async () => {
    await Promise.all([
      migrateToLatest(bare.db),
      migrateToLatest(test.database.db),
      migrateToLatest(bare.db),
    ]);
    const { rows } = await direct.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    );
    expect(rows[0]?.n).toBe(0);
  });

  it("refuses LISTEN without a direct URL (workers then poll); notifies through the pooler", async () => {
    await expect(bare.listen("hanse_pooler_probe", () => undefined)).rejects.toThrow(/direct URL/);
    const received: string[] = [];
    let arrived: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (arrived = resolve));
    const stop = await test.database.listen("hanse_pooler_probe", (payload) => {
      received.push(payload);
      arrived();
    });
    await bare.notify("hanse_pooler_probe", "wake");
    await done;
    await stop();
    expect(received).toEqual(["wake"]);
  });

  it("keeps no session setting: a statement sees the server's defaults", async () => {
    await bare.transaction(async (trx) => {
      await sql`SET LOCAL statement_timeout = '1234ms'`.execute(trx);
    });
    const [row] = await bare.prepared<{ timeout: string }>(
      "hanse_pooler_timeout",
      "SHOW statement_timeout",
      [],
    );
    expect(row?.timeout).not.toBe("1234ms");
  });
});
