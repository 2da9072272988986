import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * A secret sealed at rest with AES-256-GCM under a 32-byte key that never leaves the process:
 * `v1.<iv>.<tag>.<ciphertext>`, each part base64url, a fresh 96-bit IV per seal. The format is
 * stored in database rows, so it changes only with a new version prefix. Deriving the key is the
 * caller's business.
 */
export function sealSecret(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

/**
 * The plain text of a sealed secret. A value that is not in the format throws `unreadable <what>`;
 * a wrong key or an altered value fails GCM authentication and throws node:crypto's error.
 */
export function openSealedSecret(key: Buffer, sealed: string, what = "sealed secret"): string {
  const [version, iv, tag, data] = sealed.split(".");
  if (version !== "v1" || iv === undefined || tag === undefined || data === undefined) {
    throw new Error(`unreadable ${what}`);
  }
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
}
