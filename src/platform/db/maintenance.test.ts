import { PGlite } from "@electric-sql/pglite";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, onPostgres } from "../../../test/support/test-database.js";
import { waitUntil } from "../../../test/support/wait-until.js";
import { openDatabase, pgliteWalSettings, type Database } from "./database.js";
import {
  walPastLimitSql,
  choreFor,
  choreStatement,
  maintainPglite,
  maintainPostgres,
  maintainPostgresWithoutSession,
  maintenanceLock,
  type MaintenanceReport,
  type TableActivity,
} from "./maintenance.js";

const idle: TableActivity = {
  table: "public.t",
  reltuples: 1000,
  deadTuples: 0,
  modifiedSinceAnalyze: 0,
  insertedSinceVacuum: 0,
};

describe("embedded database maintenance: autovacuum's rules", () => {
  it("does nothing for a table without activity", () => {
    expect(choreFor(idle)).toBeUndefined();
  });

  it("analyzes once more than 50 rows plus 10 % of the table changed", () => {
    expect(choreFor({ ...idle, modifiedSinceAnalyze: 150 })).toBeUndefined();
    expect(choreFor({ ...idle, modifiedSinceAnalyze: 151 })).toEqual({
      table: "public.t",
      vacuum: false,
      analyze: true,
    });
  });

  it("vacuums once more than 50 rows plus 20 % of the table are dead", () => {
    expect(choreFor({ ...idle, deadTuples: 250 })).toBeUndefined();
    expect(choreFor({ ...idle, deadTuples: 251 })).toMatchObject({ vacuum: true, analyze: false });
  });

  it("vacuums an insert-only table after 1,000 rows plus 20 % were inserted", () => {
    expect(choreFor({ ...idle, insertedSinceVacuum: 1200 })).toBeUndefined();
    expect(choreFor({ ...idle, insertedSinceVacuum: 1201 })).toMatchObject({ vacuum: true });
  });

  it("counts a table never vacuumed nor analyzed (reltuples -1) as empty", () => {
    expect(choreFor({ ...idle, reltuples: -1, modifiedSinceAnalyze: 51 })).toMatchObject({ analyze: true });
  });

  it("vacuums and analyzes in one statement when both are due", () => {
    expect(choreStatement({ table: "public.t", vacuum: true, analyze: true })).toBe(
      "VACUUM (ANALYZE) public.t",
    );
    expect(choreStatement({ table: "public.t", vacuum: true, analyze: false })).toBe("VACUUM public.t");
    expect(choreStatement({ table: "public.t", vacuum: false, analyze: true })).toBe("ANALYZE public.t");
  });

  it("behind a transaction pooler, leaves a table another process is maintaining (SKIP_LOCKED)", () => {
    expect(choreStatement({ table: "public.t", vacuum: true, analyze: true }, true)).toBe(
      "VACUUM (SKIP_LOCKED, ANALYZE) public.t",
    );
    expect(choreStatement({ table: "public.t", vacuum: false, analyze: true }, true)).toBe(
      "ANALYZE (SKIP_LOCKED) public.t",
    );
  });
});

/** 2,000 rows, 500 of them changed once: VACUUM and ANALYZE are both due. */
const busyTable = `
  CREATE TABLE busy (id integer PRIMARY KEY, v text NOT NULL);
  INSERT INTO busy SELECT g, 'new' FROM generate_series(1, 2000) AS g;
  UPDATE busy SET v = 'changed' WHERE id <= 500;`;

/** PostgreSQL publishes a backend's activity counters at most once a second. */
const countersPublished = (query: (text: string) => Promise<number>, table: string) =>
  waitUntil(
    async () =>
      (await query(`SELECT n_tup_ins::integer AS n FROM pg_stat_user_tables WHERE relname = '${table}'`)) > 0,
    { what: "activity counters published", intervalMs: 200 },
  );

/** An embedded database handle whose maintenance rounds are collected in `reports`. */
async function reportingDatabase(maintenanceIntervalMs: number) {
  const reports: MaintenanceReport[] = [];
  const database = await openDatabase({
    memory: true,
    maintenanceIntervalMs,
    onMaintenance: (report) => reports.push(report),
  });
  return { database, reports };
}

describe("embedded database maintenance on PGlite", () => {
  let pglite: PGlite | undefined;
  let database: Database | undefined;
  afterEach(async () => {
    await pglite?.close();
    await database?.close();
    pglite = undefined;
    database = undefined;
  });

  it("vacuums and analyzes a table that changed, and then leaves it alone", async () => {
    pglite = await PGlite.create();
    const db = pglite;
    const one = async (text: string) => (await db.query<{ n: number }>(text)).rows[0]?.n ?? 0;
    await db.exec(busyTable);
    await countersPublished(one, "busy");

    expect(await maintainPglite(db)).toEqual([{ table: "public.busy", vacuum: true, analyze: true }]);
    expect(await one("SELECT reltuples::integer AS n FROM pg_class WHERE relname = 'busy'")).toBe(2000);
    expect(await one("SELECT n_dead_tup::integer AS n FROM pg_stat_user_tables WHERE relname = 'busy'")).toBe(
      0,
    );
    expect(
      await one(
        "SELECT count(*)::integer AS n FROM pg_stat_user_tables WHERE relname = 'busy' AND last_vacuum IS NOT NULL AND last_analyze IS NOT NULL",
      ),
    ).toBe(1);
    expect(await maintainPglite(db)).toEqual([]);
  });

  it(
    "keeps the WAL at max_wal_size: a round checkpoints, which single-user PostgreSQL never does by itself",
    {
      timeout: 300_000,
    },
    async () => {
      // The round itself (its schedule is the next test's): the WAL is past its bound after the
      // writes, and one round brings it back.
      // The WAL bounds embedded databases open with.
      pglite = await PGlite.create({ startParams: [...PGlite.defaultStartParams, ...pgliteWalSettings] });
      const db = pglite;
      const walPastLimit = async () =>
        (await db.query<{ due: boolean }>(walPastLimitSql)).rows[0]?.due === true;
      await db.exec("CREATE TABLE wide (id integer PRIMARY KEY, v text)");
      for (let i = 0; i < 3; i++) {
        await db.exec("INSERT INTO wide SELECT g, repeat('x', 1000) FROM generate_series(1, 30000) AS g");
        await db.exec("DELETE FROM wide");
      }
      expect(await walPastLimit()).toBe(true);
      await maintainPglite(db);
      expect(await walPastLimit()).toBe(false);
    },
  );

  it("runs by itself on an embedded database handle, reports each round and stops at close", async () => {
    const opened = await reportingDatabase(100);
    const { reports } = opened;
    database = opened.database;
    const handle = database;
    const one = async (text: string) =>
      (await sql.raw<{ n: number }>(text).execute(handle.db)).rows[0]?.n ?? 0;
    await sql`CREATE TABLE grows (id integer PRIMARY KEY)`.execute(handle.db);
    await sql`INSERT INTO grows SELECT g FROM generate_series(1, 3000) AS g`.execute(handle.db);
    await countersPublished(one, "grows");

    await waitUntil(
      async () =>
        (await one("SELECT reltuples::integer AS n FROM pg_class WHERE relname = 'grows'")) === 3000,
      { what: "a maintenance round analyzed the table", intervalMs: 100 },
    );
    expect(await one("SELECT reltuples::integer AS n FROM pg_class WHERE relname = 'grows'")).toBe(3000);
    expect(reports).toContainEqual({
      chores: [{ table: "public.grows", vacuum: true, analyze: true }],
      ms: expect.any(Number) as number,
    });

    await handle.close();
    database = undefined;
    const after = reports.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reports).toHaveLength(after);
  });

  it("is off with an interval of 0", async () => {
    const opened = await reportingDatabase(0);
    const { reports } = opened;
    database = opened.database;
    await sql`CREATE TABLE quiet (id integer PRIMARY KEY)`.execute(database.db);
    await sql`INSERT INTO quiet SELECT g FROM generate_series(1, 3000) AS g`.execute(database.db);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(reports).toEqual([]);
  });
});

describe.runIf(onPostgres)("database maintenance on PostgreSQL", () => {
  it("stands in for autovacuum only while the server's is off, one process at a time", async () => {
    const t = await createTestDatabase();
    // Session advisory locks: directly, also when the suite runs through a pooler.
    const pool = new pg.Pool({ connectionString: t.directUrl, max: 2 });
    const other = new pg.Client({ connectionString: t.directUrl });
    // The database is dropped WITH (FORCE) at the end: a connection it ends must not be uncaught.
    pool.on("error", () => undefined);
    other.on("error", () => undefined);
    try {
      await other.connect();
      const one = async (text: string) => (await pool.query<{ n: number }>(text)).rows[0]?.n ?? 0;
      await pool.query(busyTable);
      await countersPublished(one, "busy");
      const autovacuumOn = (
        await pool.query<{ on: boolean }>("SELECT current_setting('autovacuum') = 'on' AS on")
      ).rows[0]?.on;

      // Another process holds the maintenance lock: this one leaves the round to it.
      await other.query("SELECT pg_advisory_lock($1)", [maintenanceLock]);
      expect(await maintainPostgres(pool)).toEqual([]);
      await other.query("SELECT pg_advisory_unlock($1)", [maintenanceLock]);

      const chores = await maintainPostgres(pool);
      if (autovacuumOn) {
        expect(chores).toEqual([]);
      } else {
        expect(chores).toContainEqual({ table: "public.busy", vacuum: true, analyze: true });
        expect(await one("SELECT reltuples::integer AS n FROM pg_class WHERE relname = 'busy'")).toBe(2000);
        expect(
          await one("SELECT n_dead_tup::integer AS n FROM pg_stat_user_tables WHERE relname = 'busy'"),
        ).toBe(0);
      }
      // The lock was given back: another process can take it at once.
      expect(
        (
          await other.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [
            maintenanceLock,
          ])
        ).rows[0]?.locked,
      ).toBe(true);
    } finally {
      await other.end();
      await pool.end();
      await t.drop();
    }
  });

  it("without a session (behind a transaction pooler) leaves a table another process maintains", async () => {
    const t = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: t.url, max: 2 });
    const other = new pg.Client({ connectionString: t.directUrl });
    // The database is dropped WITH (FORCE) at the end: a connection it ends must not be uncaught.
    pool.on("error", () => undefined);
    other.on("error", () => undefined);
    try {
      await other.connect();
      await pool.query(busyTable);
      await countersPublished(
        async (text) => (await pool.query<{ n: number }>(text)).rows[0]?.n ?? 0,
        "busy",
      );
      // What a VACUUM of another process holds; without SKIP_LOCKED this round would wait for it.
      await other.query("BEGIN");
      await other.query("LOCK TABLE busy IN SHARE UPDATE EXCLUSIVE MODE");
      // Without SKIP_LOCKED this round would wait for that lock until the test times out.
      const chores = await maintainPostgresWithoutSession(pool);
      await other.query("ROLLBACK");
      const autovacuumOn = (
        await pool.query<{ on: boolean }>("SELECT current_setting('autovacuum') = 'on' AS on")
      ).rows[0]?.on;
      if (!autovacuumOn) expect(chores).toContainEqual({ table: "public.busy", vacuum: true, analyze: true });
    } finally {
      await other.end();
      await pool.end();
      await t.drop();
    }
  });
});
