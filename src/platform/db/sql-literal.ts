import { isUuid } from "../crypto/ids.js";

/**
 * SQL literals for the statements that take no parameters (COPY, see `Database.copyRows`): only
 * values whose form is checked here, so that nothing a caller passes can carry SQL.
 */
export const sqlLiteral = {
  uuid(value: string): string {
    if (!isUuid(value)) throw new TypeError("not a UUID");
    return `'${value}'::uuid`;
  },
  integer(value: number): string {
    if (!Number.isSafeInteger(value)) throw new TypeError("not a safe integer");
    return String(value);
  },
};
