import { sql, type Kysely } from "kysely";
import {
  replaced,
  sealedValuesOf,
  type SealedColumn,
  type SealingKeys,
} from "../../platform/crypto/index.js";

/**
 * The entitlements' sealed values, for the key rotation (`hanse secret-key reseal`) and the
 * start-up check: service credentials' secrets, webhook subscriptions' secrets (current and
 * previous) and the grant signing keys' private keys. Each `replace` is a compare and set: a
 * value changed meanwhile (a rotated secret) stays as its writer left it.
 */
export function entitlementSealedColumns(
  db: Kysely<unknown>,
  keys: () => Promise<SealingKeys>,
): SealedColumn[] {
  return [
    {
      what: "service secret",
      keys,
      notUnder: sealedValuesOf(db, "service_credentials", "id", "secret"),
      replace: (row, to) =>
        replaced(
          sql`UPDATE service_credentials SET secret = ${to}
          WHERE tenant_id = ${row.tenantId} AND id = ${row.id} AND secret = ${row.sealed}`.execute(db),
        ),
    },
    {
      what: "webhook secret",
      keys,
      notUnder: sealedValuesOf(db, "webhook_subscriptions", "id", "secret"),
      replace: (row, to) =>
        replaced(
          sql`UPDATE webhook_subscriptions SET secret = ${to}
          WHERE tenant_id = ${row.tenantId} AND id = ${row.id} AND secret = ${row.sealed}`.execute(db),
        ),
    },
    {
      what: "previous webhook secret",
      keys,
      notUnder: sealedValuesOf(db, "webhook_subscriptions", "id", "previous_secret"),
      replace: (row, to) =>
        replaced(
          sql`UPDATE webhook_subscriptions SET previous_secret = ${to}
          WHERE tenant_id = ${row.tenantId} AND id = ${row.id} AND previous_secret = ${row.sealed}`.execute(
            db,
          ),
        ),
    },
    {
      what: "signing key",
      keys,
      notUnder: sealedValuesOf(db, "entitlement_signing_keys", "kid", "private_key"),
      replace: (row, to) =>
        replaced(
          sql`UPDATE entitlement_signing_keys SET private_key = ${to}
          WHERE tenant_id = ${row.tenantId} AND kid = ${row.id} AND private_key = ${row.sealed}`.execute(db),
        ),
    },
  ];
}
