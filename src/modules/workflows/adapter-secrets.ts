import { createHmac, randomBytes } from "node:crypto";
import { openSealedSecret, sealSecret } from "../../platform/crypto/index.js";

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

/**
 * Standard Webhooks signature: base64 HMAC-SHA256 over `id.timestamp.body`, keyed with the
 * base64-decoded part of the secret after `whsec_`.
 */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/** A signing secret as stored in `workflow_lifecycle_adapters.secret` (sealed, see sealed-secrets.ts). */
export const encryptSecret = (key: Buffer, plain: string): string => sealSecret(key, plain);

export const decryptSecret = (key: Buffer, stored: string): string =>
  openSealedSecret(key, stored, "adapter secret");
