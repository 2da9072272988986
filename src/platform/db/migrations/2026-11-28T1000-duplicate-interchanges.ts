import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 34 item 1 (rules/contract §8): duplicate interchanges. Processing stores an upload's
// interchange key (SHA-256 of the UNB sender identification, recipient identification and
// control reference) and, for a duplicate, the earlier upload it repeats. The duplicate check is
// one range of the partial index over processed uploads (by connection, key and completion time);
// rejected and failed uploads are not in it. Every existing profile revision gets the default
// window of 30 days.
export const defaultDuplicateWindow = `
    UPDATE exchange_profile_revisions
      SET profile = profile || '{"duplicateWindowDays": 30}'::jsonb
      WHERE profile -> 'duplicateWindowDays' IS NULL;`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE exchange_uploads ADD COLUMN interchange_key bytea;
    ALTER TABLE exchange_uploads ADD COLUMN duplicate_of uuid;
    CREATE INDEX exchange_uploads_processed_interchanges
      ON exchange_uploads (tenant_id, connection_id, interchange_key, completed_at)
      WHERE status = 'processed';
    ${defaultDuplicateWindow}
  `,
  );
}
