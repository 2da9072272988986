/** The same server and credentials, another database. */
export function databaseUrlFor(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A connection for CREATE/DROP DATABASE: the `postgres` maintenance database. */
export const adminUrl = (url: string): string => databaseUrlFor(url, "postgres");
