import { sql, type Kysely } from "kysely";
import type { HanseTables } from "../../src/platform/db/tables.js";

/** The rows of each of `tables`, by name: what a refused request must leave as it was. */
export async function rowCounts(
  db: Kysely<HanseTables>,
  tables: readonly (keyof HanseTables)[],
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(db);
    counts[table] = rows[0]?.n ?? 0;
  }
  return counts;
}
