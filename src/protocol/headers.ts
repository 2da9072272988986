/** Header names of the wire contract, lower-case as Node delivers them. */
export const headers = {
  correlationId: "x-correlation-id",
  idempotencyKey: "idempotency-key",
  workflowIdempotencyKey: "x-idempotency-key",
  tenantId: "x-tenant-id",
  claimToken: "x-b2b-claim-token",
  retryAfter: "retry-after",
  location: "location",
  idempotentReplayed: "idempotent-replayed",
} as const;

/** CONTRACT §1: an incoming correlation id is echoed only when it matches this. */
export const correlationIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** CONTRACT §3: an Idempotency-Key is 1–255 visible ASCII characters. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;
export const idempotencyKeyMaxLength = 255;
