import type { Kysely } from "kysely";
import { instanceSecret, storedInstanceSecret } from "../db/instance-settings.js";
import { sealingKeyId, type SealingKey, type SealingKeys } from "./sealed-secrets.js";
import { sha256 } from "./secrets.js";
import type { HanseTables } from "../db/tables.js";

/** HANSE_SECRET_KEY and the keys it replaced (HANSE_SECRET_KEY_PREVIOUS), as configured. */
export interface SecretKeys {
  current: string | undefined;
  previous: readonly string[];
}

/** The configured keys: HANSE_SECRET_KEY_PREVIOUS is a comma-separated list. */
export const secretKeysOf = (config: {
  HANSE_SECRET_KEY?: string | undefined;
  HANSE_SECRET_KEY_PREVIOUS?: string | undefined;
}): SecretKeys => ({
  current: config.HANSE_SECRET_KEY,
  previous: (config.HANSE_SECRET_KEY_PREVIOUS ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key !== ""),
});

const keyOf = (key: Buffer): SealingKey => ({ id: sealingKeyId(key), key });

/**
 * The AES-256 keys that seal one kind of secret at rest (sealed-secrets.ts), derived per `purpose`:
 * the current one from HANSE_SECRET_KEY — or, when that is not set, from a random instance secret
 * kept in the database (which then protects nothing against a reader of the database: say so in
 * production, see docs/operations.md) — seals; it and the keys derived from
 * HANSE_SECRET_KEY_PREVIOUS open. With HANSE_SECRET_KEY set, an instance secret made before it was
 * set opens too: the values sealed under it re-seal like any others (`hanse secret-key reseal`).
 * Made once, on first use.
 */
export function sealingKey(
  secretKeys: SecretKeys,
  db: Kysely<HanseTables>,
  purpose: string,
): () => Promise<SealingKeys> {
  let keys: Promise<SealingKeys> | undefined;
  const derive = (secret: string) => keyOf(sha256(`${purpose}\n${secret}`));
  const make = async (): Promise<SealingKeys> => {
    if (!secretKeys.current) {
      const current = keyOf(sha256(await instanceSecret(db, purpose)));
      return { current, keys: [current, ...secretKeys.previous.map(derive)] };
    }
    const current = derive(secretKeys.current);
    const stored = await storedInstanceSecret(db, purpose);
    const older = [...secretKeys.previous.map(derive), ...(stored ? [keyOf(sha256(stored))] : [])];
    return { current, keys: [current, ...older.filter((k) => k.id !== current.id)] };
  };
  return () => (keys ??= make());
}
