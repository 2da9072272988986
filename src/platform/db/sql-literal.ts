const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * SQL literals for the statements that take no parameters (COPY, see `Database.copyRows`): only
 * values whose form is checked here, so that nothing a caller passes can carry SQL.
 */
export const sqlLiteral = {
  uuid(value: string): string {
    if (!uuidPattern.test(value)) throw new TypeError("not a UUID");
    return `'${value}'::uuid`;
  },
  integer(value: number): string {
    if (!Number.isSafeInteger(value)) throw new TypeError("not a safe integer");
    return String(value);
  },
};
