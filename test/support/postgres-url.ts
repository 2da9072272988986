/** The same server and credentials, another database. */
export function databaseUrlFor(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * A connection for CREATE/DROP DATABASE and the template's migration: the `postgres` maintenance
 * database of `HANSE_TEST_ADMIN_DATABASE_URL` when it is set, else of `url`. Behind a pooler
 * (DATABASE_URL names PgBouncer) it names PostgreSQL itself: `CREATE DATABASE … TEMPLATE` needs
 * the template free of connections, which a pooler keeps open for a while, and dropping a
 * database should not close the pooler's connections under it.
 */
export const adminUrl = (url: string): string =>
  databaseUrlFor(process.env.HANSE_TEST_ADMIN_DATABASE_URL ?? url, "postgres");

/** Where the run's template is migrated: directly, as `adminUrl` (never through a pooler). */
export const directUrlFor = (url: string, database: string): string =>
  databaseUrlFor(process.env.HANSE_TEST_ADMIN_DATABASE_URL ?? url, database);
