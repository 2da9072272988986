import { describe, expect, it } from "vitest";
import { isUuid, uuidv7 } from "./ids.js";

describe("uuidv7", () => {
  it("is a version 7, variant 10 UUID carrying the millisecond time", () => {
    const at = Date.UTC(2026, 10, 21, 12, 0, 0, 123);
    const id = uuidv7(at);
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe("7");
    expect(["8", "9", "a", "b"]).toContain(id[19]);
    expect(parseInt(id.replaceAll("-", "").slice(0, 12), 16)).toBe(at);
  });

  it("never repeats across many entropy blocks and sorts by time", () => {
    const ids = Array.from({ length: 5000 }, (_, i) => uuidv7(1_800_000_000_000 + i));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
