import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { openDatabase, type Database } from "./database.js";

/** Database.prepared on the embedded database: named statements through the PGlite protocol. */
describe("Database.prepared on PGlite", () => {
  let database: Database;

  beforeAll(async () => {
    database = await openDatabase({ memory: true });
    await sql`CREATE TABLE things (id uuid PRIMARY KEY, n bigint, at timestamptz, body jsonb, raw bytea, tag text)`.execute(
      database.db,
    );
  });
  afterAll(async () => {
    await database.close();
  });

  const insert = "INSERT INTO things (id, n, at, body, raw, tag) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *";
  const id = "0190f2a0-0000-7000-8000-000000000001";

  it("binds parameters in the text format and parses results by type, on every call", async () => {
    const at = new Date("2026-11-22T01:02:03.456Z");
    const [row] = await database.prepared<Record<string, unknown>>("things_insert", insert, [
      id,
      42,
      at,
      JSON.stringify({ a: [1, "x"] }),
      Buffer.from([0, 255, 16]),
      "it's ?:+'",
    ]);
    expect(row).toEqual({
      id,
      n: 42,
      at,
      body: { a: [1, "x"] },
      raw: new Uint8Array([0, 255, 16]),
      tag: "it's ?:+'",
    });
    const again = await database.prepared<{ id: string; tag: string | null }>("things_insert", insert, [
      "0190f2a0-0000-7000-8000-000000000002",
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(again).toMatchObject([{ id: "0190f2a0-0000-7000-8000-000000000002", tag: null }]);
  });

  it("throws the database error (with its SQLSTATE) and stays usable afterwards", async () => {
    await expect(
      database.prepared("things_insert", insert, [id, 1, null, null, null, null]),
    ).rejects.toMatchObject({ code: "23505" });
    await expect(database.prepared("broken", "SELECT FROM nowhere_at_all", [])).rejects.toMatchObject({
      code: "42P01",
    });
    const rows = await database.prepared<{ count: number }>(
      "things_count",
      "SELECT count(*) AS count FROM things",
      [],
    );
    expect(rows).toEqual([{ count: 2 }]);
  });

  it("waits for another caller's transaction instead of running inside it", async () => {
    let release: () => void = () => undefined;
    let inserted: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const insertedRow = new Promise<void>((resolve) => (inserted = resolve));
    const transaction = database.transaction(async (trx) => {
      await sql`INSERT INTO things (id) VALUES ('0190f2a0-0000-7000-8000-000000000003')`.execute(trx);
      inserted();
      await held;
      throw new Error("roll back");
    });
    await insertedRow;
    const count = database.prepared<{ count: number }>(
      "things_count",
      "SELECT count(*) AS count FROM things",
      [],
    );
    release();
    await expect(transaction).rejects.toThrow("roll back");
    // Had it run inside the transaction, it would have seen the third row.
    expect(await count).toEqual([{ count: 2 }]);
  });
});
