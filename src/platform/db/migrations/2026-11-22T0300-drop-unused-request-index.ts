import { sql, type Kysely } from "kysely";

// No statement reads transition requests by entity (the job locks a request by its key and the
// entity by its own), yet every accept paid an entry in this index.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS workflow_transition_requests_by_entity`.execute(db);
}
