import { sql, type Kysely } from "kysely";
import { sealedColumnsOf, type SealedColumn, type SealingKeys } from "../../platform/crypto/index.js";
import type { HanseTables } from "../../platform/db/tables.js";

/** The lifecycle adapters' signing secrets, for the key rotation and the start-up check. */
export const adapterSealedColumns = (
  db: Kysely<HanseTables>,
  keys: () => Promise<SealingKeys>,
): SealedColumn[] =>
  sealedColumnsOf(db, keys, [
    [
      "adapter secret",
      "workflow_lifecycle_adapters",
      "id",
      "secret",
      (row, to) =>
        sql`UPDATE workflow_lifecycle_adapters SET secret = ${to}
        WHERE tenant_id = ${row.tenantId} AND id = ${row.id} AND secret = ${row.sealed}`,
    ],
  ]);
