import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 24 item 2. The operator's lists of uploads and deliveries filter by connection and status
// (and deliveries by message type) in creation order: each filter has an index that ends in the
// list's order (created_at, id), so a filtered page, with its time range, is one index range
// (by upload: the existing exchange_deliveries_by_upload). A delivery re-sent by an operator
// names the delivery it repeats (`resent_from`); both share the payload's blob.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE INDEX exchange_uploads_by_connection ON exchange_uploads (tenant_id, connection_id, created_at, id);
    CREATE INDEX exchange_uploads_by_status ON exchange_uploads (tenant_id, status, created_at, id);
    CREATE INDEX exchange_deliveries_by_connection
      ON exchange_deliveries (tenant_id, connection_id, created_at, id);
    CREATE INDEX exchange_deliveries_by_status ON exchange_deliveries (tenant_id, status, created_at, id);
    CREATE INDEX exchange_deliveries_by_type ON exchange_deliveries (tenant_id, message_type, created_at, id);
    ALTER TABLE exchange_deliveries ADD COLUMN resent_from uuid;
  `,
  );
}
