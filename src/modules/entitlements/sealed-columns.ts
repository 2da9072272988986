import type { Kysely } from "kysely";
import { sealedColumnsOf, type SealedColumn, type SealingKeys } from "../../platform/crypto/index.js";
import { signingKeySealedColumns } from "./grants/index.js";
import { credentialSealedColumns } from "./service-auth/index.js";
import { webhookSealedColumns } from "./webhooks/index.js";
import type { HanseTables } from "../../platform/db/tables.js";

/**
 * The entitlements' sealed values, for the key rotation (`hanse secret-key reseal`) and the
 * start-up check: service credentials' secrets, webhook subscriptions' secrets (current and
 * previous) and the grant signing keys' private keys. Each part states (and writes) its own; each
 * UPDATE is a compare and set: a value changed meanwhile (a rotated secret) stays as its writer
 * left it.
 */
export const entitlementSealedColumns = (
  db: Kysely<HanseTables>,
  keys: () => Promise<SealingKeys>,
): SealedColumn[] =>
  sealedColumnsOf(db, keys, [
    ...credentialSealedColumns,
    ...webhookSealedColumns,
    ...signingKeySealedColumns,
  ]);
