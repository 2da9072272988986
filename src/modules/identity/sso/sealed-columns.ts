import { sql, type Kysely } from "kysely";
import { sealedColumnsOf, type SealedColumn, type SealingKeys } from "../../../platform/crypto/index.js";
import type { HanseTables } from "../../../platform/db/tables.js";

/** The single sign-on client secrets, for the key rotation (`hanse secret-key reseal`) and the start-up check. */
export const ssoSealedColumns = (db: Kysely<HanseTables>, keys: () => Promise<SealingKeys>): SealedColumn[] =>
  sealedColumnsOf(db, keys, [
    [
      "SSO client secret",
      "sso_settings",
      "tenant_id",
      "client_secret",
      (row, to) =>
        sql`UPDATE sso_settings SET client_secret = ${to}
        WHERE tenant_id = ${row.tenantId} AND client_secret = ${row.sealed}`,
    ],
  ]);
