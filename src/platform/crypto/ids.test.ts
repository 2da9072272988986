import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { isUuid, uuidFromDigest, uuidv7 } from "./ids.js";

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
