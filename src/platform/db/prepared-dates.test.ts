import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/test-database.js";

/**
 * Date parameters of prepared statements travel as ISO 8601 text in UTC (on PGlite, and on
 * PostgreSQL when the suite runs against it): the instant must arrive exactly, before and after
 * PostgreSQL's epoch (2000-01-01), and compare as the same instant as any other text form.
 */
describe("prepared statements take Date parameters as instants", () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.drop();
  });

  const instants = [
    "2026-11-24T22:51:04.123Z",
    "2000-01-01T00:00:00.000Z",
    "1999-12-31T23:59:59.999Z",
    "1970-01-01T00:00:00.001Z",
    "2262-04-11T23:47:16.854Z",
  ];

  it("round-trips every instant to the millisecond, before and after the epoch", async () => {
    for (const iso of instants) {
      const at = new Date(iso);
      const [row] = await test.database.prepared<{ at: Date; text: string }>(
        "binary_timestamp_round_trip",
        "SELECT $1::timestamptz AS at, to_char($1::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') AS text",
        [at],
      );
      expect(row?.at.toISOString(), iso).toBe(iso);
      expect(row?.text, iso).toBe(iso);
    }
  });

  it("compares as the same instant as the text form", async () => {
    const at = new Date("2026-11-24T22:51:04.123Z");
    const [row] = await test.database.prepared<{ same: boolean }>(
      "binary_timestamp_compare",
      "SELECT $1::timestamptz = $2::timestamptz AS same",
      [at, "2026-11-24T23:51:04.123+01:00"],
    );
    expect(row?.same).toBe(true);
  });
});
