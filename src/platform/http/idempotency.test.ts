import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../db/migrate.js";
import { openDatabase, type Database } from "../db/database.js";
import { createManualClock } from "../clock/clock.js";
import { AppError } from "../errors/app-error.js";
import { createIdempotency, type CompletedRecord, type Idempotency } from "./idempotency.js";

/** The completed-record memory behind `recentReplay`: what a retry within the minute sees. */
describe("idempotency: recent completed records", () => {
  let database: Database;
  const clock = createManualClock();
  let idempotency: Idempotency;
  const tenantId = "0190f2a0-0000-7000-8000-0000000000aa";

  beforeAll(async () => {
    database = await openDatabase({ memory: true });
    await migrateToLatest(database.db);
    idempotency = createIdempotency({ database, clock, macKey: Buffer.alloc(32, 7) });
  });
  afterAll(async () => {
    await database.close();
  });

  const record = (key: string, fingerprint: string): CompletedRecord =>
    idempotency.completedRecord(
      { tenantId, endpoint: "POST /things", key, fingerprint },
      { status: 202, body: '{"id":"first"}', headers: { location: "/things/first" } },
    );

  it("answers a remembered record byte for byte, and only for its minute", () => {
    expect(idempotency.recentReplay(record("k1", "a"))).toBeUndefined();
    idempotency.remember(record("k1", "a"));
    expect(idempotency.recentReplay(record("k1", "a"))).toEqual({
      status: 202,
      body: '{"id":"first"}',
      headers: { location: "/things/first" },
      replay: true,
    });
    clock.advance(60_001);
    expect(idempotency.recentReplay(record("k1", "a"))).toBeUndefined();
  });

  it("a remembered key with another request is a mismatch, never a replay", () => {
    idempotency.remember(record("k2", "a"));
    let error: unknown;
    try {
      idempotency.recentReplay(record("k2", "b"));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("ERR_IDEMPOTENCY_MISMATCH");
  });

  it("holds at most 10,000 records: the latest 5,000 always, none beyond the latest 10,000", () => {
    idempotency.remember(record("oldest", "a"));
    for (let i = 0; i < 4_999; i++) idempotency.remember(record(`filler-${i}`, "a"));
    // 5,000 remembered: "oldest" is among the latest 5,000 still.
    expect(idempotency.recentReplay(record("oldest", "a"))?.replay).toBe(true);
    for (let i = 4_999; i < 10_000; i++) idempotency.remember(record(`filler-${i}`, "a"));
    expect(idempotency.recentReplay(record("oldest", "a"))).toBeUndefined();
    expect(idempotency.recentReplay(record("filler-9999", "a"))?.replay).toBe(true);
  });

  it("keys are scoped by tenant and endpoint", () => {
    idempotency.remember(record("k3", "a"));
    const other = idempotency.completedRecord(
      { tenantId, endpoint: "POST /other", key: "k3", fingerprint: "a" },
      { status: 202, body: "{}", headers: {} },
    );
    expect(idempotency.recentReplay(other)).toBeUndefined();
  });
});
