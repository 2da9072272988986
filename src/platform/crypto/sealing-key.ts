import type { Kysely } from "kysely";
import { instanceSecret } from "../db/instance-settings.js";
import { sha256 } from "./secrets.js";

/**
 * The AES-256 key that seals one kind of secret at rest (sealed-secrets.ts), derived per
 * `purpose` from HANSE_SECRET_KEY, or — when that is not set — from a random instance secret
 * kept in the database (which then protects nothing against a reader of the database: say so
 * in production, see docs/operations.md). Made once, on first use.
 */
export function sealingKey(
  secretKey: string | undefined,
  db: Kysely<unknown>,
  purpose: string,
): () => Promise<Buffer> {
  let key: Promise<Buffer> | undefined;
  return () =>
    (key ??= secretKey
      ? Promise.resolve(sha256(`${purpose}\n${secretKey}`))
      : instanceSecret(db, purpose).then((k) => sha256(k)));
}
