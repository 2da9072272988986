import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { sha256 } from "./secrets.js";

/**
 * A secret sealed at rest with AES-256-GCM under a 32-byte key that never leaves the process:
 * `v2.<key id>.<iv>.<tag>.<ciphertext>`, each part base64url, a fresh 96-bit IV per seal. The key
 * id names the key it was sealed under (`sealingKeyId`), so that a value opens with the right key
 * of several during a rotation (HANSE_SECRET_KEY_PREVIOUS). Values sealed before key ids,
 * `v1.<iv>.<tag>.<ciphertext>`, still open: every configured key is tried. The format is stored in
 * database rows, so it changes only with a new version prefix. Deriving the keys is the caller's
 * business (sealing-key.ts).
 */
export interface SealingKey {
  /** `sealingKeyId(key)`. */
  id: string;
  key: Buffer;
}

/** The keys of one purpose: `current` seals; every key of `keys` (current first) opens. */
export interface SealingKeys {
  current: SealingKey;
  keys: readonly SealingKey[];
}

/**
 * A key's id: 48 bits of a hash of the key under a label of its own, 8 base64url characters. It
 * tells keys apart and says nothing about them.
 */
export const sealingKeyId = (key: Buffer): string =>
  sha256(Buffer.concat([Buffer.from("hanse-sealing-key-id\n"), key]))
    .subarray(0, 6)
    .toString("base64url");

/** One key as a key ring (tests, callers with a single key). */
export const singleSealingKey = (key: Buffer): SealingKeys => {
  const current = { id: sealingKeyId(key), key };
  return { current, keys: [current] };
};

const ringOf = (keys: Buffer | SealingKeys): SealingKeys =>
  Buffer.isBuffer(keys) ? singleSealingKey(keys) : keys;

/** A value sealed under a key none of the configured ones is (a missing HANSE_SECRET_KEY_PREVIOUS). */
export class UnknownSealingKeyError extends Error {
  constructor(
    readonly what: string,
    /** The value's key id; undefined for a value sealed before key ids. */
    readonly keyId: string | undefined,
  ) {
    super(
      `${what} was sealed with a key this process does not have (${
        keyId === undefined ? "a value from before key ids" : `key id ${keyId}`
      }): set HANSE_SECRET_KEY_PREVIOUS to the key it was sealed with (see docs/operations.md, "Key management")`,
    );
    this.name = "UnknownSealingKeyError";
  }
}

/** Seals `plain` under the current key. */
export function sealSecret(keys: Buffer | SealingKeys, plain: string): string {
  const { current } = ringOf(keys);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", current.key, iv);
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [
    "v2",
    current.id,
    iv.toString("base64url"),
    cipher.getAuthTag().toString("base64url"),
    data.toString("base64url"),
  ].join(".");
}

const open = (key: Buffer, iv: string, tag: string, data: string): string => {
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
};

/** The key id of a sealed value (undefined: a `v1` value, or not a sealed value). */
export function sealedKeyId(sealed: string): string | undefined {
  const parts = sealed.split(".");
  return parts[0] === "v2" && parts.length === 5 ? parts[1] : undefined;
}

/**
 * The plain text of a sealed secret. A value that is not in the format throws `unreadable <what>`;
 * a value under a key that is not among `keys` throws `UnknownSealingKeyError`; an altered value
 * fails GCM authentication and throws node:crypto's error.
 */
export function openSealedSecret(keys: Buffer | SealingKeys, sealed: string, what = "sealed secret"): string {
  const ring = ringOf(keys);
  const parts = sealed.split(".");
  if (parts[0] === "v2" && parts.length === 5) {
    const [, id, iv, tag, data] = parts as [string, string, string, string, string];
    const key = ring.keys.find((k) => k.id === id);
    if (!key) throw new UnknownSealingKeyError(what, id);
    return open(key.key, iv, tag, data);
  }
  const [version, iv, tag, data] = parts;
  if (version !== "v1" || parts.length !== 4 || iv === undefined || tag === undefined || data === undefined) {
    throw new Error(`unreadable ${what}`);
  }
  // Sealed before key ids: the key that authenticates it is the one (GCM's tag tells).
  for (const key of ring.keys) {
    try {
      return open(key.key, iv, tag, data);
    } catch {
      // Not this key.
    }
  }
  // No key authenticates it: sealed under another key (or altered, which GCM cannot tell apart).
  throw new UnknownSealingKeyError(what, undefined);
}
