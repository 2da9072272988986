import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/test-database.js";
import { sqlUuidv7 } from "./sql-uuid.js";

describe("sqlUuidv7 (ids of rows an INSERT … SELECT makes)", () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.drop();
  });

  it("rules/contract §1: a version 7 UUID carrying the given millisecond, random below it", async () => {
    const at = new Date("2026-11-27T10:11:12.345Z");
    const { rows } = await sql<{ id: string }>`
      SELECT ${sqlUuidv7(at)}::text AS id FROM generate_series(1, 200)`.execute(test.database.db);
    for (const { id } of rows) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(at.getTime());
    }
    expect(new Set(rows.map((r) => r.id)).size).toBe(200);
  });
});
