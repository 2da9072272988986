import { randomBytes } from "node:crypto";

/** Identifier generator, injected so tests can make ids predictable where they need to. */
export type IdGenerator = () => string;

// Entropy for identifiers is drawn from the CSPRNG in blocks: one system call per 256 identifiers
// instead of one each. Each identifier takes bytes no other one takes. Identifiers only: secrets
// (tokens, keys, nonces) take their own `randomBytes`.
const block = 16 * 256;
let entropy = randomBytes(block);
let offset = 0;

/** `count` (at most 16) random bytes of the block, a view that the next block never reuses. */
function identifierEntropy(count: number): Buffer {
  if (offset + count > block) {
    entropy = randomBytes(block);
    offset = 0;
  }
  const bytes = entropy.subarray(offset, offset + count);
  offset += count;
  return bytes;
}

/** `count` (at most 16) random bytes as hex, for identifiers such as trace and span ids. */
export const randomIdentifierHex = (count: number): string => identifierEntropy(count).toString("hex");

/** UUID version 7 (RFC 9562): 48-bit millisecond time, then random bits; sorts by creation. */
export function uuidv7(now: number = Date.now()): string {
  const bytes = Buffer.from(identifierEntropy(16));
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => uuidPattern.test(value);

/**
 * An id derived from a digest (credentials of foreign format, looked up by their hash), shaped as
 * a version 7 UUID like every other id of the service: the digest's first 16 bytes with the
 * version and variant bits set. `versioned: false` gives the unversioned form of earlier releases.
 */
export function uuidFromDigest(digest: Buffer, options: { versioned?: boolean } = {}): string {
  const bytes = Buffer.from(digest.subarray(0, 16));
  if (options.versioned !== false) {
    bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
    bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  }
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
