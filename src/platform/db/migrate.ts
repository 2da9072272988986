import type { Kysely } from "kysely";
import { Migrator } from "kysely/migration";
import { migrations } from "./migrations/index.js";

/**
 * Applies pending migrations. Kysely's migrator holds a PostgreSQL advisory lock while it runs,
 * so processes that start at the same time apply each migration once.
 */
export async function migrateToLatest(db: Kysely<unknown>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableName: "schema_migrations",
    migrationLockTableName: "schema_migrations_lock",
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error !== undefined || failed) {
    throw new Error(`migration ${failed?.migrationName ?? "(setup)"} failed`, { cause: error });
  }
}

/** True when every known migration is recorded as applied (readiness). */
export async function migrationsApplied(db: Kysely<unknown>): Promise<boolean> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableName: "schema_migrations",
    migrationLockTableName: "schema_migrations_lock",
  });
  const all = await migrator.getMigrations();
  return all.every((m) => m.executedAt !== undefined);
}
