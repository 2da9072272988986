import { sql, type Kysely } from "kysely";

// Blob chunks are compressed with lz4 where the server has it (PostgreSQL 14+ built with lz4):
// compressing each 1 MiB chunk with the default pglz on write, and expanding it on read, was
// most of the cost of a large upload or download on PostgreSQL, while lz4 is several times
// faster and still keeps EDIFACT, dense but repetitive text, at a fraction of its size. PGlite
// has no lz4 and keeps pglz. Applies to rows written from now on; older rows stay readable.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `DO $$ BEGIN
        ALTER TABLE blob_chunks ALTER COLUMN data SET COMPRESSION lz4;
      EXCEPTION WHEN feature_not_supported THEN NULL;
      END $$`,
    )
    .execute(db);
}
