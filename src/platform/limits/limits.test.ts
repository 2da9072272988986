import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/test-database.js";
import { createManualClock } from "../clock/clock.js";
import { createLeases, leaseMs } from "./leases.js";
import { createRateLimits, rateLimitKey } from "./rate-limits.js";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

describe("shared rate limits (rate_limits: one row per key, one statement per take)", () => {
  it("allows the burst, then answers with the seconds to wait, and refills over time", async () => {
    const clock = createManualClock();
    const limits = createRateLimits({ database: t.database, clock });
    const limit = { burst: 3, perSecond: 1 };
    const k = rateLimitKey("test", "k");
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push(await limits.take(k, limit));
    expect(taken).toEqual([0, 0, 0, 1]);
    expect(await limits.take(rateLimitKey("test", "other"), limit)).toBe(0);
    clock.advance(1000);
    expect(await limits.take(k, limit)).toBe(0);
    expect(await limits.take(k, limit)).toBe(1);
  });

  it("a limit lifted far out (100,000,000 per second) allows takes whose times arrive out of order", async () => {
    // The exchange bench lifts the partner limit this way; its interval once rounded to 0 ms,
    // the tolerance with it, and a take read a moment before the previous one was refused.
    const lifted = { burst: 100_000_000, perSecond: 100_000_000 };
    const k = rateLimitKey("test", "lifted");
    const start = Date.parse("2026-11-28T10:00:00Z");
    const later = createRateLimits({ database: t.database, clock: createManualClock(new Date(start + 5)) });
    const earlier = createRateLimits({ database: t.database, clock: createManualClock(new Date(start)) });
    expect(await later.take(k, lifted)).toBe(0);
    expect(await earlier.take(k, lifted)).toBe(0);
  });

  it("wait() tells the seconds until a request is allowed without taking one; takeEach counts several keys at once", async () => {
    const clock = createManualClock();
    const limits = createRateLimits({ database: t.database, clock });
    const slow = { key: rateLimitKey("test", "slow"), limit: { burst: 2, perSecond: 1 / 30 } };
    const fast = { key: rateLimitKey("test", "fast"), limit: { burst: 100, perSecond: 1 } };
    expect(await limits.wait([slow, fast])).toEqual([0, 0]);
    expect(await limits.takeEach([slow, fast])).toEqual([0, 0]);
    expect(await limits.takeEach([slow, fast])).toEqual([0, 0]);
    expect(await limits.wait([slow, fast])).toEqual([30, 0]);
    expect(await limits.takeEach([slow, fast])).toEqual([30, 0]);
    clock.advance(30_000);
    expect(await limits.wait([slow, fast])).toEqual([0, 0]);
  });

  it("a refund gives a request back; a bucket it leaves full has no row any more", async () => {
    const clock = createManualClock();
    const limits = createRateLimits({ database: t.database, clock });
    const limit = { burst: 1, perSecond: 1 };
    const k = rateLimitKey("test", "refund");
    expect(await limits.take(k, limit)).toBe(0);
    expect(await limits.take(k, limit)).toBe(1);
    await limits.refund(k, limit);
    const rows = await t.database.prepared("test_rows", "SELECT 1 FROM rate_limits WHERE key = $1", [k]);
    expect(rows).toHaveLength(0);
    expect(await limits.take(k, limit)).toBe(0);
  });

  it("concurrent takes of one key allow exactly the burst (the row lock orders them)", async () => {
    const clock = createManualClock();
    const limits = createRateLimits({ database: t.database, clock });
    const k = rateLimitKey("test", "concurrent");
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => limits.take(k, { burst: 10, perSecond: 1 })),
    );
    expect(answers.filter((wait) => wait === 0)).toHaveLength(10);
  });

  it("turns are spaced and at most maxAhead are reserved beyond now", async () => {
    const clock = createManualClock();
    const limits = createRateLimits({ database: t.database, clock });
    const k = rateLimitKey("test", "turns");
    const turns = [];
    for (let i = 0; i < 4; i++) turns.push(await limits.reserveTurn(k, 1000, 3));
    expect(turns).toEqual([{ waitMs: 0 }, { waitMs: 1000 }, { waitMs: 2000 }, { retryAfterSeconds: 3 }]);
  });
});

describe("shared leases (limit_leases)", () => {
  it("at most max holders of a name; a released or expired lease frees its slot", async () => {
    const clock = createManualClock();
    const leases = createLeases({ database: t.database, clock });
    const [one, two, three] = [leases.newHolder(), leases.newHolder(), leases.newHolder()];
    expect(await leases.acquire("test-name", 2, one)).toBe(true);
    expect(await leases.acquire("test-name", 2, two)).toBe(true);
    expect(await leases.acquire("test-name", 2, three)).toBe(false);
    await leases.release(one);
    expect(await leases.acquire("test-name", 2, three)).toBe(true);
    clock.advance(leaseMs / 2);
    await leases.renew(three);
    clock.advance(leaseMs / 2);
    // `two` was not renewed: its lease has expired; `three` renewed and still holds its slot.
    const four = leases.newHolder();
    expect(await leases.acquire("test-name", 2, four)).toBe(true);
    expect(await leases.acquire("test-name", 2, leases.newHolder())).toBe(false);
  });
});
