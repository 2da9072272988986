import { sql, type Kysely } from "kysely";
import { Migrator } from "kysely/migration";
import { migrations } from "./migrations/index.js";
import type { HanseTables } from "./tables.js";

/** An arbitrary constant: the advisory lock that lets one process at a time migrate. */
const migrationLock = 7_240_311_926;

const migratorFor = (db: Kysely<HanseTables>) =>
  new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableName: "schema_migrations",
    migrationLockTableName: "schema_migrations_lock",
  });

/**
 * Applies pending migrations in one transaction that first takes a transaction-scoped advisory
 * lock, so processes that start at the same time apply each migration once. Kysely's own lock is
 * a session lock taken before its transaction: behind a transaction-mode pooler it would stay on
 * whichever server connection ran it, and every later start would wait for it (an hour). Given a
 * transaction, Kysely takes and releases its lock inside it, on the same connection.
 */
export async function migrateToLatest(db: Kysely<HanseTables>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${sql.lit(migrationLock)})`.execute(trx);
    const { error, results } = await migratorFor(trx).migrateToLatest();
    const failed = results?.find((r) => r.status === "Error");
    if (error !== undefined || failed) {
      // Thrown inside the transaction: nothing of a failed run stays.
      throw new Error(`migration ${failed?.migrationName ?? "(setup)"} failed`, { cause: error });
    }
  });
}

/** True when every known migration is recorded as applied (readiness). */
export async function migrationsApplied(db: Kysely<HanseTables>): Promise<boolean> {
  const all = await migratorFor(db).getMigrations();
  return all.every((m) => m.executedAt !== undefined);
}
