import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// The operator's lists of connections and partner API keys filter by partner (`partnerId`), in
// creation order: each filter has an index that ends in the list's order (created_at, id), so a
// partner's page is one index range. The connections' index also serves the uploads' and
// deliveries' `partnerId` filter, which reads the partner's connection ids.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE INDEX exchange_connections_by_partner
      ON exchange_connections (tenant_id, partner_id, created_at, id);
    CREATE INDEX credentials_api_keys_by_partner ON credentials (tenant_id, principal_id, created_at, id)
      WHERE kind = 'api_key';
  `,
  );
}
