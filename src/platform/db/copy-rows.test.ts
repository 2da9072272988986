import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCuttableProxy } from "../../../test/support/cuttable-proxy.js";
import { createTestDatabase, onPostgres, type TestDatabase } from "../../../test/support/test-database.js";
import { waitUntil } from "../../../test/support/wait-until.js";
import { sqlLiteral } from "./sql-literal.js";

/** `Database.copyRows` (binary COPY), on the database the suite runs against. */
describe("Database.copyRows reads raw tuples through binary COPY", () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
    await sql`CREATE TABLE copy_rows_test (id integer PRIMARY KEY, data bytea)`.execute(test.database.db);
  });
  afterAll(async () => {
    await test.drop();
  });

  const collect = async (select: string) => {
    const rows: (Buffer | null)[][] = [];
    for await (const row of test.database.copyRows(select)) rows.push(row);
    return rows;
  };
  /** A value no text form would carry unchanged: every byte value, quotes and backslashes. */
  const everyByte = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));

  it("answers every field as its bytes: integers big-endian, bytea as itself, NULL as null", async () => {
    await sql`INSERT INTO copy_rows_test VALUES (1, ${everyByte}), (2, NULL), (3, ''::bytea)`.execute(
      test.database.db,
    );
    const rows = await collect("SELECT id, data FROM copy_rows_test WHERE id <= 3 ORDER BY id");
    expect(rows.map(([id]) => id?.readInt32BE(0))).toEqual([1, 2, 3]);
    expect(rows[0]?.[1]?.equals(everyByte)).toBe(true);
    expect(rows[1]?.[1]).toBeNull();
    expect(rows[2]?.[1]?.length).toBe(0);
    expect(await collect("SELECT id FROM copy_rows_test WHERE id < 0")).toEqual([]);
  });

  it("streams values larger than its buffering bound intact to a slow reader", async () => {
    const repeats = 6 * 1024;
    const big = Buffer.concat(Array.from({ length: repeats }, () => everyByte));
    // Made by the database: PGlite's bytea parameters are slow to send at this size.
    await sql`INSERT INTO copy_rows_test SELECT id, decode(repeat(${everyByte.toString("hex")}, ${repeats}), 'hex')
      FROM generate_series(10, 13) AS id`.execute(test.database.db);
    let count = 0;
    for await (const [id, data] of test.database.copyRows(
      "SELECT id, data FROM copy_rows_test WHERE id >= 10 ORDER BY id",
    )) {
      // The reader lags: on PostgreSQL the connection pauses instead of buffering everything.
      await new Promise((r) => setTimeout(r, 20));
      expect(id?.readInt32BE(0)).toBe(10 + count);
      expect(data?.equals(big)).toBe(true);
      count++;
    }
    expect(count).toBe(4);
  });

  it("rejects with the database's error for a bad statement, and the database keeps answering", async () => {
    await expect(collect("SELECT no_such_column FROM copy_rows_test")).rejects.toThrow(/no_such_column/);
    await expect(test.database.ping()).resolves.toBeUndefined();
  });

  it("gives its connection up when the reader stops early (more times than the pool has connections)", async () => {
    for (let i = 0; i < 25; i++) {
      for await (const row of test.database.copyRows("SELECT id, data FROM copy_rows_test ORDER BY id")) {
        expect(row).toHaveLength(2);
        break;
      }
    }
    expect(await collect("SELECT id FROM copy_rows_test WHERE id = 1")).toHaveLength(1);
    if (onPostgres) {
      // No COPY is left running on the server.
      const running = async () =>
        (
          await sql<{ n: number }>`SELECT count(*)::integer AS n FROM pg_stat_activity
          WHERE query LIKE 'COPY (SELECT id, data FROM copy_rows_test%' AND pid <> pg_backend_pid()`.execute(
            test.database.db,
          )
        ).rows[0]?.n;
      await waitUntil(async () => (await running()) === 0, {
        what: "no COPY left running",
        timeoutMs: 20_000,
      });
    }
  });
});

describe("sqlLiteral", () => {
  it("writes UUIDs and integers, and refuses anything else", () => {
    expect(sqlLiteral.uuid("0190b3a2-0000-7000-8000-00000000000A")).toBe(
      "'0190b3a2-0000-7000-8000-00000000000A'::uuid",
    );
    expect(sqlLiteral.integer(-12)).toBe("-12");
    for (const bad of [
      "",
      "x' OR '1'='1",
      "0190b3a2-0000-7000-8000-00000000000a'",
      "0190b3a20000700080000000000000a0",
    ])
      expect(() => sqlLiteral.uuid(bad)).toThrow(TypeError);
    for (const bad of [1.5, Number.NaN, 2 ** 53]) expect(() => sqlLiteral.integer(bad)).toThrow(TypeError);
  });
});

describe.skipIf(!onPostgres)("Database.copyRows when the connection is lost mid-COPY (PostgreSQL)", () => {
  let test: TestDatabase;
  let proxy: Awaited<ReturnType<typeof startCuttableProxy>>;
  beforeAll(async () => {
    proxy = await startCuttableProxy();
    test = await createTestDatabase({ connectVia: proxy.connectVia });
  });
  afterAll(async () => {
    await proxy.close();
    await test.drop().catch(() => undefined);
  });

  it("rejects the reader instead of hanging or ending the process, and the pool recovers", async () => {
    // 32 rows of 1 MiB, made by the database; the reader takes one and then the network fails.
    const select = `SELECT id, decode(repeat('ab', 1024 * 1024), 'hex') FROM generate_series(1, 32) AS id`;
    const reading = (async () => {
      let rows = 0;
      for await (const row of test.database.copyRows(select)) {
        expect(row[1]?.length).toBe(1024 * 1024);
        if (++rows === 1) proxy.cutConnections();
        await new Promise((r) => setTimeout(r, 5));
      }
      return rows;
    })();
    await expect(reading).rejects.toThrow();
    // New connections go through the proxy again: the pool replaced the lost ones.
    expect(await collectIds(test, "SELECT 7")).toEqual([7]);
  });
});

async function collectIds(test: TestDatabase, select: string): Promise<number[]> {
  const ids: number[] = [];
  for await (const [id] of test.database.copyRows(select)) if (id) ids.push(id.readInt32BE(0));
  return ids;
}
