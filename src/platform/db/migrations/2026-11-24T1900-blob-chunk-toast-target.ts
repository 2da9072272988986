import { sql, type Kysely } from "kysely";

// A chunk row is moved out of line only when it exceeds a page's worth (8160 bytes) rather than
// the default quarter page: a small upload's single chunk (10 KiB of EDIFACT compresses to about
// 3.5 KiB) then stays in its heap row instead of costing two TOAST rows and their index entries
// on every upload. Values over the target are still compressed first, so large chunks are
// stored as before. Applies to rows written from now on.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE blob_chunks SET (toast_tuple_target = 8160)`.execute(db);
}
