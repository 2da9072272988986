/**
 * The single table of stable error codes and their HTTP status (rules/contract §1).
 * Server, SDK and CLI all read it; a code never changes its status.
 */
export const errorCodes = {
  ERR_VALIDATION: 400,
  ERR_IDEMPOTENCY_KEY_REQUIRED: 400,
  ERR_UNAUTHENTICATED: 401,
  ERR_FORBIDDEN: 403,
  ERR_NOT_FOUND: 404,
  ERR_METHOD_NOT_ALLOWED: 405,
  ERR_CONFLICT: 409,
  ERR_IDEMPOTENCY_MISMATCH: 409,
  ERR_IDEMPOTENCY_IN_PROGRESS: 409,
  ERR_REQUEST_TIMEOUT: 408,
  ERR_PAYLOAD_TOO_LARGE: 413,
  ERR_URI_TOO_LONG: 414,
  ERR_RATE_LIMITED: 429,
  ERR_HEADERS_TOO_LARGE: 431,
  ERR_INTERNAL: 500,
  ERR_UNAVAILABLE: 503,

  ERR_B2B_EXCHANGE_INVALID_REQUEST: 400,
  ERR_B2B_EXCHANGE_UNAUTHENTICATED: 401,
  ERR_B2B_EXCHANGE_NOT_FOUND: 404,
  ERR_B2B_EXCHANGE_CONFLICT: 409,
  ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE: 413,
  ERR_B2B_EXCHANGE_RATE_LIMITED: 429,
  ERR_B2B_EXCHANGE_INTERNAL: 500,
  ERR_B2B_EXCHANGE_UNAVAILABLE: 503,

  ERR_SERVICE_AUTH_MISSING: 401,
  ERR_SERVICE_AUTH_INVALID_CREDENTIAL: 401,
  ERR_SERVICE_AUTH_INVALID_SIGNATURE: 401,
  ERR_SERVICE_AUTH_STALE_TIMESTAMP: 401,
  ERR_SERVICE_AUTH_NONCE_REUSED: 401,
  ERR_APP_ENTITLEMENT_CURSOR_EXPIRED: 410,
  ERR_APP_ENTITLEMENT_NOT_ENTITLED: 403,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof errorCodes;

/** Reason phrases used as the problem `title` (RFC 9110). */
export const reasonPhrases: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  413: "Request Entity Too Large",
  414: "URI Too Long",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export const problemType = (code: string): string => `urn:hanse:error:${code}`;

/** The problem+json body of rules/contract §1. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  correlationId: string;
  errors?: { pointer: string; message: string }[];
}

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === "string" && Object.hasOwn(errorCodes, value);
