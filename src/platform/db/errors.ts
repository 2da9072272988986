/** PostgreSQL SQLSTATE of a driver error (pg and PGlite both expose `code`). */
const sqlState = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;

export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === "23505";
export const isSerializationFailure = (error: unknown): boolean =>
  sqlState(error) === "40001" || sqlState(error) === "40P01";

/** Text the database cannot store (a NUL character, or one outside the encoding): the input's fault. */
export const isUnstorableText = (error: unknown): boolean =>
  sqlState(error) === "22021" || sqlState(error) === "22P05";

/** Network errors of the driver's socket (Node's `code`): the database could not be reached. */
const unreachable = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENOTFOUND",
]);

/**
 * What node-postgres throws, without a code, when the connection ends under a statement or a
 * transaction uses a client whose connection was lost (pg/lib/client.js).
 */
const lostConnection = [
  "Connection terminated",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
];

/**
 * The database is unavailable for now, not the request at fault: a connection failure (SQLSTATE
 * class 08), a server shutting down or starting (57P01–57P03), too many connections (53300), or
 * an unreachable socket or a lost connection. Answered 503 with Retry-After: the client retries with backoff.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = sqlState(error);
  if (code === undefined) {
    const message = error instanceof Error ? error.message : "";
    return lostConnection.some((text) => message.startsWith(text));
  }
  return (
    code.startsWith("08") ||
    code === "57P01" ||
    code === "57P02" ||
    code === "57P03" ||
    code === "53300" ||
    unreachable.has(code)
  );
}
