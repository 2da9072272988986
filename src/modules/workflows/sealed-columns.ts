import { sql, type Kysely } from "kysely";
import {
  replaced,
  sealedValuesOf,
  type SealedColumn,
  type SealingKeys,
} from "../../platform/crypto/index.js";

/** The lifecycle adapters' signing secrets, for the key rotation and the start-up check. */
export const adapterSealedColumn = (db: Kysely<unknown>, keys: () => Promise<SealingKeys>): SealedColumn => ({
  what: "adapter secret",
  keys,
  notUnder: sealedValuesOf(db, "workflow_lifecycle_adapters", "id", "secret"),
  replace: (row, to) =>
    replaced(
      sql`UPDATE workflow_lifecycle_adapters SET secret = ${to}
      WHERE tenant_id = ${row.tenantId} AND id = ${row.id} AND secret = ${row.sealed}`.execute(db),
    ),
});
