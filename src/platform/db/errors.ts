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
