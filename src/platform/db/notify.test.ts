import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/test-database.js";
import { waitUntil } from "../../../test/support/wait-until.js";

/** `Database.notify` and `listen`, on the database the suite runs against (PGlite or PostgreSQL). */
describe("Database.notify reaches the channel's listeners", () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.drop();
  });

  const nextOn = (channel: string) => {
    const received: string[] = [];
    let resolve: (() => void) | undefined;
    const arrived = new Promise<void>((r) => (resolve = r));
    return {
      received,
      arrived,
      onNotify: (payload: string) => {
        received.push(payload);
        resolve?.();
      },
      channel,
    };
  };

  it("delivers the payload to every listener of the channel, none of another channel, and after the call", async () => {
    const a = nextOn("hanse_test_a");
    const b = nextOn("hanse_test_a");
    const other = nextOn("hanse_test_other");
    const stops = await Promise.all([a, b, other].map((l) => test.database.listen(l.channel, l.onNotify)));
    const call = test.database.notify("hanse_test_a", "wake");
    // Delivered later, as NOTIFY is: never inside the caller's own call.
    expect(a.received).toEqual([]);
    await call;
    await Promise.all([a.arrived, b.arrived]);
    expect(a.received).toEqual(["wake"]);
    expect(b.received).toEqual(["wake"]);
    // A marker sent afterwards on the other channel arrives alone: "wake" never reached it.
    await test.database.notify("hanse_test_other", "marker");
    await other.arrived;
    expect(other.received).toEqual(["marker"]);
    for (const stop of stops) await stop();
  });

  it("a listener that unsubscribed hears nothing more; NOTIFY written in SQL still arrives", async () => {
    const gone = nextOn("hanse_test_b");
    const stop = await test.database.listen(gone.channel, gone.onNotify);
    await stop();
    const staying = nextOn("hanse_test_b");
    const stopStaying = await test.database.listen(staying.channel, staying.onNotify);
    await test.database.notify("hanse_test_b", "first");
    await staying.arrived;
    await sql`SELECT pg_notify('hanse_test_b', 'from sql')`.execute(test.database.db);
    await waitUntil(async () => staying.received.length === 2, { what: "the NOTIFY written in SQL" });
    expect(staying.received).toEqual(["first", "from sql"]);
    expect(gone.received).toEqual([]);
    await stopStaying();
  });
});
