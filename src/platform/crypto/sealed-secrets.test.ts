import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openSealedSecret, sealingKeyId, sealSecret, UnknownSealingKeyError } from "./sealed-secrets.js";

const key = Buffer.alloc(32, 0x2a);
const plain = "whsec_c2VhbGVkIGJ5IHRoZSBwcmV2aW91cyBpbXBsZW1lbnRhdGlvbg==";

/** Flips one bit of the base64url part at `index` of a sealed value. */
function alter(sealed: string, index: number): string {
  const parts = sealed.split(".");
  const bytes = Buffer.from(parts[index] ?? "", "base64url");
  bytes[0] = (bytes[0] ?? 0) ^ 0x01;
  parts[index] = bytes.toString("base64url");
  return parts.join(".");
}

describe("sealed secrets (AES-256-GCM)", () => {
  it("round-trips, with a fresh IV per seal", () => {
    const a = sealSecret(key, plain);
    const b = sealSecret(key, plain);
    expect(a).not.toBe(b);
    expect(openSealedSecret(key, a)).toBe(plain);
    expect(openSealedSecret(key, b)).toBe(plain);
    expect(openSealedSecret(key, sealSecret(key, ""))).toBe("");
    expect(openSealedSecret(key, sealSecret(key, "ünïcödé ✓"))).toBe("ünïcödé ✓");
  });

  it("writes v2.<key id>.<iv>.<tag>.<ciphertext>: 8-character key id, 12-byte IV, 16-byte tag, base64url", () => {
    const [version, keyId, iv, tag, data, ...rest] = sealSecret(key, plain).split(".");
    expect(version).toBe("v2");
    expect(keyId).toBe(sealingKeyId(key));
    expect(keyId).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(rest).toEqual([]);
    expect(Buffer.from(iv ?? "", "base64url")).toHaveLength(12);
    expect(Buffer.from(tag ?? "", "base64url")).toHaveLength(16);
    expect(Buffer.from(data ?? "", "base64url")).toHaveLength(Buffer.byteLength(plain));
    for (const part of [iv, tag, data]) expect(part).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("opens a value sealed before the code moved here (rows already stored)", () => {
    const stored =
      "v1.cmBxf4zH9wZPxkQG.9UTSM450SCadTtXPC05C8g.W--bf77wUSJqNss1b6LXPPTFaulD_9W3RjLiTfapRGndUkIzXimDWE3ihhsKep47pt8uxjSxCN5A2A";
    expect(openSealedSecret(key, stored)).toBe(plain);
  });

  it("refuses an altered IV, tag or ciphertext", () => {
    const sealed = sealSecret(key, plain);
    for (const index of [2, 3, 4]) {
      expect(() => openSealedSecret(key, alter(sealed, index))).toThrow(/authenticate/);
    }
  });

  it("refuses the wrong key, naming the value's key id and HANSE_SECRET_KEY_PREVIOUS", () => {
    const sealed = sealSecret(key, plain);
    expect(() => openSealedSecret(randomBytes(32), sealed, "webhook secret")).toThrow(UnknownSealingKeyError);
    expect(() => openSealedSecret(randomBytes(32), sealed, "webhook secret")).toThrow(
      `webhook secret was sealed with a key this process does not have (key id ${sealingKeyId(key)}): set HANSE_SECRET_KEY_PREVIOUS`,
    );
    const v1 =
      "v1.cmBxf4zH9wZPxkQG.9UTSM450SCadTtXPC05C8g.W--bf77wUSJqNss1b6LXPPTFaulD_9W3RjLiTfapRGndUkIzXimDWE3ihhsKep47pt8uxjSxCN5A2A";
    expect(() => openSealedSecret(randomBytes(32), v1)).toThrow(UnknownSealingKeyError);
  });

  it("opens with any key of a ring, old v1 values included; seals under the current one", () => {
    const next = randomBytes(32);
    const ring = {
      current: { id: sealingKeyId(next), key: next },
      keys: [
        { id: sealingKeyId(next), key: next },
        { id: sealingKeyId(key), key },
      ],
    };
    const v1 =
      "v1.cmBxf4zH9wZPxkQG.9UTSM450SCadTtXPC05C8g.W--bf77wUSJqNss1b6LXPPTFaulD_9W3RjLiTfapRGndUkIzXimDWE3ihhsKep47pt8uxjSxCN5A2A";
    expect(openSealedSecret(ring, v1)).toBe(plain);
    expect(openSealedSecret(ring, sealSecret(key, plain))).toBe(plain);
    const resealed = sealSecret(ring, plain);
    expect(resealed.startsWith(`v2.${sealingKeyId(next)}.`)).toBe(true);
    expect(openSealedSecret(next, resealed)).toBe(plain);
  });

  it("names what it could not read when the value is not in the format", () => {
    for (const bad of ["", "v1", "v1.a.b", "v2.a.b.c", "v3.a.b.c.d", plain]) {
      expect(() => openSealedSecret(key, bad)).toThrow("unreadable sealed secret");
    }
    expect(() => openSealedSecret(key, "v1.a.b", "adapter secret")).toThrow("unreadable adapter secret");
  });
});
