/** PostgreSQL SQLSTATE of a driver error (pg and PGlite both expose `code`). */
const sqlState = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;

export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === "23505";
export const isSerializationFailure = (error: unknown): boolean =>
  sqlState(error) === "40001" || sqlState(error) === "40P01";
