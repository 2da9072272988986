import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 34 item 3 (rules/contract §8): collection deadlines. A connection has a collection deadline in
// seconds (NULL: none; existing connections get the default, 86400). A delivery that is still
// ready or claimed that long after it was made becomes overdue: the exchange's sweep sets
// `overdue_since` once. The sweep reads one range per connection of the partial index below:
// only deliveries that are waiting and not yet overdue are in it, so neither collected deliveries
// nor those already marked cost the sweep anything.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE exchange_connections ADD COLUMN collection_deadline_seconds integer DEFAULT 86400;
    ALTER TABLE exchange_deliveries ADD COLUMN overdue_since timestamptz;
    CREATE INDEX exchange_deliveries_collection_due
      ON exchange_deliveries (tenant_id, connection_id, created_at)
      WHERE status IN ('ready', 'claimed') AND overdue_since IS NULL;
    CREATE INDEX exchange_deliveries_overdue
      ON exchange_deliveries (tenant_id, created_at, id)
      WHERE status IN ('ready', 'claimed') AND overdue_since IS NOT NULL;
  `,
  );
}
