import { sql, type Kysely } from "kysely";

/**
 * Runs a script of `;`-terminated statements one at a time: PGlite's extended protocol takes one
 * statement per query. Scripts must not contain `;` inside literals or function bodies.
 */
export async function runStatements(db: Kysely<unknown>, script: string): Promise<void> {
  const statements = script
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
    .filter((s) => s.length > 0);
  for (const statement of statements) await sql.raw(statement).execute(db);
}
