import { sql, type Kysely } from "kysely";

// Operator views that explain (issue 24 item 2): an upload keeps the findings of its processing
// (interchange-, message- and application-level; `[]` for a valid one and for uploads from before
// this column), and an outbound delivery names the inbound message it answers (UNH 0062; NULL for
// a CONTRL, which answers the whole interchange, and for deliveries from before this column).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE exchange_uploads ADD COLUMN findings jsonb NOT NULL DEFAULT '[]'::jsonb`.execute(db);
  await sql`ALTER TABLE exchange_deliveries ADD COLUMN answers_message_reference text`.execute(db);
}
