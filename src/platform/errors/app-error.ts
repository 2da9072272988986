import { errorCodes, type ErrorCode } from "@hanse/client/protocol";

export interface FieldError {
  pointer: string;
  message: string;
}

/**
 * The one error type of the service. `detail` must be safe to show a client: never a secret,
 * payload byte, SQL, table name, path, host or driver message.
 */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail?: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail ?? code);
    this.name = "AppError";
    this.status = errorCodes[code];
  }
}
