import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint, type JWK } from "jose";
import { sql, type Selectable } from "kysely";
import { sealSecret, type sealedColumnsOf } from "../../../platform/crypto/index.js";
import type { EntitlementSigningKeysTable } from "../entitlements.tables.js";
import {
  jwksMaxAgeSeconds,
  keysOf,
  keyState,
  type KeyRingDeps,
  type PublicJwk,
  type Trx,
} from "./signing-key-state.js";

/**
 * The writes of the key ring: provisioning, rotation and withdrawal of a tenant's keys, each in
 * the caller's transaction. `opened` is the ring's cache of opened private keys (a withdrawn key
 * leaves it).
 */
export function createKeyRotation(deps: KeyRingDeps, opened: Map<string, KeyObject>) {
  async function newKeyRow(tenantId: string, activatesAt: Date | null) {
    const { publicKey, privateKey } = generateKeyPairSync("ed25519");
    const jwk = publicKey.export({ format: "jwk" }) as JWK;
    const kid = await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: jwk.x as string });
    const publicJwk: PublicJwk = {
      kty: "OKP",
      crv: "Ed25519",
      x: jwk.x as string,
      kid,
      alg: "EdDSA",
      use: "sig",
    };
    const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    return {
      tenant_id: tenantId,
      kid,
      public_jwk: JSON.stringify(publicJwk),
      private_key: sealSecret(await deps.sealingKey(), pem),
      created_at: deps.clock.now(),
      activates_at: activatesAt,
      retires_at: null,
      expires_at: null,
      withdrawn_at: null,
    };
  }

  /** Retires every key that signs or is scheduled at `at`, and publishes a new next key. */
  async function handOver(
    trx: Trx,
    tenantId: string,
    next: Selectable<EntitlementSigningKeysTable>,
    at: Date,
  ) {
    const expires = new Date(at.getTime() + (deps.grantTtlSeconds + 60) * 1000);
    await trx
      .updateTable("entitlement_signing_keys")
      .set({ retires_at: at, expires_at: expires })
      .where("tenant_id", "=", tenantId)
      .where("kid", "<>", next.kid)
      .where("activates_at", "is not", null)
      .where("withdrawn_at", "is", null)
      .where((eb) => eb.or([eb("retires_at", "is", null), eb("retires_at", ">", at)]))
      .execute();
    await trx
      .updateTable("entitlement_signing_keys")
      .set({ activates_at: at })
      .where("tenant_id", "=", tenantId)
      .where("kid", "=", next.kid)
      .execute();
    const published = await keysOf(trx, tenantId)
      .select("kid")
      .where("activates_at", "is", null)
      .where("withdrawn_at", "is", null)
      .executeTakeFirst();
    if (!published) {
      await trx
        .insertInto("entitlement_signing_keys")
        .values(await newKeyRow(tenantId, null))
        .execute();
    }
  }

  return {
    /** Provisioning: a signing key and a next key, unless the tenant has keys already. */
    async provision(trx: Trx, tenantId: string): Promise<void> {
      const existing = await keysOf(trx, tenantId).select("kid").limit(1).executeTakeFirst();
      if (existing) return;
      await trx
        .insertInto("entitlement_signing_keys")
        .values(await newKeyRow(tenantId, deps.clock.now()))
        .execute();
      await trx
        .insertInto("entitlement_signing_keys")
        .values(await newKeyRow(tenantId, null))
        .execute();
    },

    /**
     * Rotation: the next key signs from the moment it has been published for the JWKS max-age
     * (at once if it has been); the current one retires then and leaves the JWKS when its last
     * grant has expired. Returns when the new key signs.
     */
    async rotate(trx: Trx, tenantId: string): Promise<{ kid: string; activatesAt: Date }> {
      await sql`SELECT 1 FROM entitlement_tenants WHERE tenant_id = ${tenantId} FOR UPDATE`.execute(trx);
      const now = deps.clock.now();
      let next = await keysOf(trx, tenantId)
        .where("activates_at", "is", null)
        .where("withdrawn_at", "is", null)
        .orderBy("created_at")
        .executeTakeFirst();
      if (!next) {
        const row = await newKeyRow(tenantId, null);
        await trx.insertInto("entitlement_signing_keys").values(row).execute();
        next = row;
      }
      const published = next.created_at.getTime() + jwksMaxAgeSeconds * 1000;
      const at = new Date(Math.max(now.getTime(), published));
      await handOver(trx, tenantId, next, at);
      return { kid: next.kid, activatesAt: at };
    },

    /**
     * Withdraws a key at once (a compromise): it leaves the JWKS and signs no more. When it was
     * the signing key, the next key signs from now on, published or not for long.
     */
    async withdraw(trx: Trx, tenantId: string, kid: string): Promise<boolean> {
      await sql`SELECT 1 FROM entitlement_tenants WHERE tenant_id = ${tenantId} FOR UPDATE`.execute(trx);
      const now = deps.clock.now();
      const row = await keysOf(trx, tenantId).where("kid", "=", kid).executeTakeFirst();
      if (!row || row.withdrawn_at) return false;
      const state = keyState(row, now);
      await trx
        .updateTable("entitlement_signing_keys")
        .set({ withdrawn_at: now })
        .where("tenant_id", "=", tenantId)
        .where("kid", "=", kid)
        .execute();
      opened.delete(kid);
      if (state === "scheduled") {
        // A rotation was pending: the key it would have retired keeps signing.
        await trx
          .updateTable("entitlement_signing_keys")
          .set({ retires_at: null, expires_at: null })
          .where("tenant_id", "=", tenantId)
          .where("withdrawn_at", "is", null)
          .where("retires_at", "=", row.activates_at)
          .execute();
      }
      if (state === "scheduled" || state === "next") {
        await trx
          .insertInto("entitlement_signing_keys")
          .values(await newKeyRow(tenantId, null))
          .execute();
      }
      if (state === "signing") {
        // The key a pending rotation scheduled, else the published next key, else a fresh one.
        let successor = await keysOf(trx, tenantId)
          .where("withdrawn_at", "is", null)
          .where((eb) => eb.or([eb("activates_at", "is", null), eb("activates_at", ">", now)]))
          .orderBy(sql`activates_at IS NULL`)
          .orderBy("created_at")
          .executeTakeFirst();
        if (!successor) {
          const fresh = await newKeyRow(tenantId, null);
          await trx.insertInto("entitlement_signing_keys").values(fresh).execute();
          successor = fresh;
        }
        await handOver(trx, tenantId, successor, now);
      }
      return true;
    },
  };
}

/** The signing keys' sealed private keys, for the key rotation (sealed-columns.ts). */
export const signingKeySealedColumns: Parameters<typeof sealedColumnsOf>[2] = [
  [
    "signing key",
    "entitlement_signing_keys",
    "kid",
    "private_key",
    (row, to) =>
      sql`UPDATE entitlement_signing_keys SET private_key = ${to}
      WHERE tenant_id = ${row.tenantId} AND kid = ${row.id} AND private_key = ${row.sealed}`,
  ],
];
