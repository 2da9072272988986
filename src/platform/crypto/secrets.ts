import {
  createHmac,
  createSecretKey,
  hash,
  randomBytes,
  scrypt,
  timingSafeEqual,
  type KeyObject,
} from "node:crypto";

/** 256 bits from the CSPRNG, base64url (43 characters). */
export const randomSecret = (): string => randomBytes(32).toString("base64url");

/** One-shot SHA-256 (about half the cost of a Hash object per call, which adds up per request). */
export const sha256 = (value: string | Buffer): Buffer => hash("sha256", value, "buffer");

/** MAC keys as key objects, imported once per key buffer (never changed once made) rather than per call. */
const macKeys = new WeakMap<Buffer, KeyObject>();

export function hmacSha256(key: string | Buffer, value: string | Buffer): Buffer {
  if (typeof key === "string") return createHmac("sha256", key).update(value).digest();
  let macKey = macKeys.get(key);
  if (!macKey) {
    macKey = createSecretKey(key);
    macKeys.set(key, macKey);
  }
  return createHmac("sha256", macKey).update(value).digest();
}

/** Constant-time equality of two digests; unequal lengths are simply unequal. */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

// scrypt parameters: N=2^15, r=8, p=1 (OWASP's minimum recommendation), 64-byte key.
const SCRYPT = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;

function scryptAsync(
  password: string,
  salt: Buffer,
  keylen: number,
  params: { N: number; r: number; p: number; maxmem: number },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keylen, params, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

/** `scrypt$N$r$p$salt$hash`, self-describing so parameters can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, 64, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await scryptAsync(password, Buffer.from(salt, "base64url"), expected.length, {
    ...SCRYPT,
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return digestsEqual(key, expected);
}

/** A password hash that verifies nothing, used to spend the same time on unknown users. */
export const unusablePasswordHash = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${"A".repeat(22)}$${"A".repeat(86)}`;
