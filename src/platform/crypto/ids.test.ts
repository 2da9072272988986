import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { isUuid, randomIdentifierHex, uuidFromDigest, uuidv7 } from "./ids.js";

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

describe("randomIdentifierHex", () => {
  it("gives the asked number of random bytes as hex, never the same bytes twice, across blocks and beside uuidv7", () => {
    const drawn = Array.from({ length: 3000 }, (_, i) =>
      i % 3 === 0 ? randomIdentifierHex(16) : i % 3 === 1 ? randomIdentifierHex(8) : uuidv7(),
    );
    const hex = drawn.filter((_, i) => i % 3 !== 2);
    expect(hex.every((h, i) => new RegExp(`^[0-9a-f]{${i % 2 === 0 ? 32 : 16}}$`).test(h))).toBe(true);
    expect(new Set(hex).size).toBe(hex.length);
    // Random bytes, not a counter: about half the bits of the 16-byte draws are set.
    const ones = hex
      .filter((_, i) => i % 2 === 0)
      .join("")
      .split("")
      .reduce((n, digit) => n + (parseInt(digit, 16).toString(2).match(/1/g)?.length ?? 0), 0);
    const bits = hex.filter((_, i) => i % 2 === 0).length * 128;
    expect(ones / bits).toBeGreaterThan(0.45);
    expect(ones / bits).toBeLessThan(0.55);
  });
});

describe("uuidFromDigest", () => {
  // Credential ids are looked up by this form: it must never change for a digest.
  const digest = createHash("sha256").update("hanse-credential-id\nexample").digest();
  const hex = digest.subarray(0, 16).toString("hex");
  const dashed = (h: string) =>
    `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;

  it("unversioned: the digest's first 16 bytes as they are", () => {
    expect(uuidFromDigest(digest, { versioned: false })).toBe(dashed(hex));
  });

  it("versioned: the same bytes with version 7 and variant 10 set", () => {
    const bytes = Buffer.from(digest.subarray(0, 16));
    bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
    bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
    expect(uuidFromDigest(digest)).toBe(dashed(bytes.toString("hex")));
  });
});
