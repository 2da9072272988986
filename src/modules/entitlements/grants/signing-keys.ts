import { createPrivateKey, type KeyObject } from "node:crypto";
import type { Database } from "../../../platform/db/database.js";
import { openSealedSecret } from "../../../platform/crypto/index.js";
import type { EntitlementTables } from "../entitlements.tables.js";
import { createKeyRotation } from "./signing-key-rotation.js";
import { keysOf, type Db, type KeyRingDeps, type PublicJwk, type SigningKey } from "./signing-key-state.js";

export {
  jwksMaxAgeSeconds,
  keyState,
  type KeyRingDeps,
  type KeyState,
  type PublicJwk,
  type SigningKey,
} from "./signing-key-state.js";

/**
 * Each tenant's Ed25519 signing keys (its signing material): one that signs and one published
 * ahead ("next"), so that a rotation never makes a verifier meet a key its cached JWKS lacks.
 * Private keys are sealed at rest; every key of every tenant is in the one JWKS while valid.
 * Provisioning, rotation and withdrawal are signing-key-rotation.ts; the reads are here.
 */
export function createKeyRing(deps: KeyRingDeps) {
  const opened = new Map<string, KeyObject>();

  return {
    ...createKeyRotation(deps, opened),

    /** The key that signs for the tenant now (a prepared statement: every grant asks). */
    async signingKey(
      database: Database<EntitlementTables>,
      tenantId: string,
    ): Promise<SigningKey | undefined> {
      const now = deps.clock.now();
      const [row] = await database.prepared<{ kid: string; private_key: string }>(
        "hanse_signing_key_current",
        `SELECT kid, private_key FROM entitlement_signing_keys
        WHERE tenant_id = $1 AND withdrawn_at IS NULL AND activates_at <= $2
          AND (retires_at IS NULL OR retires_at > $2)
        ORDER BY activates_at DESC LIMIT 1`,
        [tenantId, now],
      );
      if (!row) return undefined;
      let privateKey = opened.get(row.kid);
      if (!privateKey) {
        privateKey = createPrivateKey(
          openSealedSecret(await deps.sealingKey(), row.private_key, "signing key"),
        );
        opened.set(row.kid, privateKey);
      }
      return { kid: row.kid, privateKey };
    },

    /** Every key a verifier may meet: not withdrawn and not past its expiry (next keys included). */
    async publishedKeys(db: Db): Promise<PublicJwk[]> {
      const now = deps.clock.now();
      const rows = await db
        .selectFrom("entitlement_signing_keys")
        .select("public_jwk")
        .where("withdrawn_at", "is", null)
        .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
        .orderBy("tenant_id")
        .orderBy("created_at")
        .execute();
      return rows.map((r) => r.public_jwk as PublicJwk);
    },

    list: (db: Db, tenantId: string) => keysOf(db, tenantId).orderBy("created_at").execute(),

    /** Tenants whose signing key has signed for longer than `maxAgeMs` (scheduled rotation). */
    async dueForRotation(db: Db, maxAgeMs: number): Promise<string[]> {
      const now = deps.clock.now();
      const rows = await db
        .selectFrom("entitlement_signing_keys")
        .select("tenant_id")
        .distinct()
        .where("withdrawn_at", "is", null)
        .where("activates_at", "<=", new Date(now.getTime() - maxAgeMs))
        .where("retires_at", "is", null)
        .execute();
      return rows.map((r) => r.tenant_id);
    },
  };
}

export type KeyRing = ReturnType<typeof createKeyRing>;
