import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// The operator's list of transition requests (issue 25 item 4) in creation order, all of the
// tenant's or one entity's: one index each, ending in the list's order (created_at, id). Neither
// holds a column a request's processing changes (status, updated_at), so those updates stay
// heap-only; the status filter reads the creation-order index.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE INDEX workflow_transition_requests_paging
      ON workflow_transition_requests (tenant_id, created_at, id);
    CREATE INDEX workflow_transition_requests_by_entity_paging
      ON workflow_transition_requests (tenant_id, entity_id, created_at, id);
  `,
  );
}
