import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 34 item 2 (rules/contract §8): names and finding things. A connection has a name (existing
// connections get their partner's). The operator finds uploads by interchange reference (UNB
// 0020, read at upload) and by document number (BGM 1004 of any message, extracted at
// processing into exchange_upload_documents, one row per upload and number; uploads processed
// before this migration have none). Both indexes end in the list's order (created_at, id) or
// lead to the upload by its key, and a btree serves `order=desc` by a backward scan.
/** Every connection is named after its partner (what the migration gives existing connections). */
export const connectionNamesFromPartners = `
    UPDATE exchange_connections c SET name = p.name
      FROM exchange_partners p WHERE p.tenant_id = c.tenant_id AND p.id = c.partner_id;`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE exchange_connections ADD COLUMN name text;
    ${connectionNamesFromPartners}
    UPDATE exchange_connections SET name = 'connection' WHERE name IS NULL;
    ALTER TABLE exchange_connections ALTER COLUMN name SET NOT NULL;
    CREATE INDEX exchange_uploads_by_interchange
      ON exchange_uploads (tenant_id, interchange_id, created_at, id);
    CREATE TABLE exchange_upload_documents (
      tenant_id uuid NOT NULL,
      document_number text NOT NULL,
      upload_id uuid NOT NULL,
      PRIMARY KEY (tenant_id, document_number, upload_id)
    );
    CREATE INDEX exchange_upload_documents_by_upload ON exchange_upload_documents (tenant_id, upload_id);
  `,
  );
}
