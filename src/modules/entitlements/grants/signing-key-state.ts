import type { KeyObject } from "node:crypto";
import type { Kysely, Selectable, Transaction } from "kysely";
import type { Clock } from "../../../platform/clock/clock.js";
import type { SealingKeys } from "../../../platform/crypto/index.js";
import type { EntitlementSigningKeysTable, EntitlementTables } from "../entitlements.tables.js";

export type Db = Kysely<EntitlementTables>;
export type Trx = Transaction<EntitlementTables>;

/** The JWKS `Cache-Control: max-age`: a new key is published at least this long before it signs. */
export const jwksMaxAgeSeconds = 300;

export interface PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  alg: "EdDSA";
  use: "sig";
}

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

export interface KeyRingDeps {
  clock: Clock;
  sealingKey: () => Promise<SealingKeys>;
  /** How long a grant lives: a retired key stays in the JWKS this long (plus a minute of skew). */
  grantTtlSeconds: number;
}

export type KeyState = "next" | "scheduled" | "signing" | "retired" | "expired" | "withdrawn";

export function keyState(row: Selectable<EntitlementSigningKeysTable>, now: Date): KeyState {
  if (row.withdrawn_at) return "withdrawn";
  if (row.expires_at && row.expires_at <= now) return "expired";
  if (row.retires_at && row.retires_at <= now) return "retired";
  if (!row.activates_at) return "next";
  return row.activates_at <= now ? "signing" : "scheduled";
}

/** A tenant's signing keys, as a query to narrow. */
export const keysOf = (db: Db | Trx, tenantId: string) =>
  db.selectFrom("entitlement_signing_keys").selectAll().where("tenant_id", "=", tenantId);
