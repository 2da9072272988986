import { sql, type Kysely } from "kysely";
import { sealedColumnsOf, type SealedColumn, type SealingKeys } from "../../platform/crypto/index.js";

/**
 * The entitlements' sealed values, for the key rotation (`hanse secret-key reseal`) and the
 * start-up check: service credentials' secrets, webhook subscriptions' secrets (current and
 * previous) and the grant signing keys' private keys. Each UPDATE is a compare and set: a value
 * changed meanwhile (a rotated secret) stays as its writer left it.
 */
export const entitlementSealedColumns = (
  db: Kysely<unknown>,
  keys: () => Promise<SealingKeys>,
): SealedColumn[] =>
  sealedColumnsOf(db, keys, [
    [
      "service secret",
      "service_credentials",
      "id",
      "secret",
      (row, to) =>
        sql`UPDATE service_credentials SET secret = ${to}
        WHERE tenant_id = ${row.tenantId} AND id = ${row.id} AND secret = ${row.sealed}`,
    ],
    [
      "webhook secret",
      "webhook_subscriptions",
      "id",
      "secret",
      (row, to) =>
        sql`UPDATE webhook_subscriptions SET secret = ${to}
        WHERE tenant_id = ${row.tenantId} AND id = ${row.id} AND secret = ${row.sealed}`,
    ],
    [
      "previous webhook secret",
      "webhook_subscriptions",
      "id",
      "previous_secret",
      (row, to) =>
        sql`UPDATE webhook_subscriptions SET previous_secret = ${to}
        WHERE tenant_id = ${row.tenantId} AND id = ${row.id} AND previous_secret = ${row.sealed}`,
    ],
    [
      "signing key",
      "entitlement_signing_keys",
      "kid",
      "private_key",
      (row, to) =>
        sql`UPDATE entitlement_signing_keys SET private_key = ${to}
        WHERE tenant_id = ${row.tenantId} AND kid = ${row.id} AND private_key = ${row.sealed}`,
    ],
  ]);
