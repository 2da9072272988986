import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/test-database.js";
import { createLookupById } from "./statement-batcher.js";

const a = "00000000-0000-4000-8000-00000000000a";
const b = "00000000-0000-4000-8000-00000000000b";
const unknown = "00000000-0000-4000-8000-00000000000c";

/** `createLookupById`, on the database the suite runs against (PGlite or PostgreSQL). */
describe("createLookupById answers each caller its own row", () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.drop();
  });

  it("lookups together: each id its row (by id, not by position), an unknown id undefined", async () => {
    const lookup = createLookupById(
      test.database,
      {
        name: "hanse_test_lookup_by_id",
        relation: `SELECT v.id::uuid AS id, v.name FROM (VALUES ('${a}', 'first'), ('${b}', 'second')) AS v (id, name)`,
        alias: "found",
        maxItems: 8,
      },
      (value) => {
        const row = (typeof value === "string" ? JSON.parse(value) : value) as { name: string } | null;
        return row?.name;
      },
    );
    const ids = [b, unknown, a, b, a, unknown, b, a, b, a];
    const names = await Promise.all(ids.map((id) => lookup(id)));
    expect(names).toEqual(ids.map((id) => (id === a ? "first" : id === b ? "second" : undefined)));
  });
});
