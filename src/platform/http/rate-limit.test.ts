import { describe, expect, it } from "vitest";
import { createManualClock } from "../clock/clock.js";
import { KeyRateLimiter } from "./rate-limit.js";

describe("per-key rate limit", () => {
  it("allows the burst, then answers with the seconds to wait, and refills over time", () => {
    const clock = createManualClock();
    const limiter = new KeyRateLimiter(clock, 3, 1);
    expect([limiter.take("k"), limiter.take("k"), limiter.take("k")]).toEqual([0, 0, 0]);
    expect(limiter.take("k")).toBe(1);
    expect(limiter.take("other")).toBe(0);
    clock.advance(1000);
    expect(limiter.take("k")).toBe(0);
    expect(limiter.take("k")).toBe(1);
  });

  it("wait() tells the seconds until a token without taking one", () => {
    const clock = createManualClock();
    const limiter = new KeyRateLimiter(clock, 2, 1 / 30);
    expect(limiter.wait("k")).toBe(0);
    limiter.take("k");
    expect(limiter.wait("k")).toBe(0);
    limiter.take("k");
    expect(limiter.wait("k")).toBe(30);
    expect(limiter.wait("k")).toBe(30);
    clock.advance(30_000);
    expect(limiter.wait("k")).toBe(0);
  });
});
