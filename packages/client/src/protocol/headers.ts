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

/** rules/contract §1: an incoming correlation id is echoed only when it matches this. */
export const correlationIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** rules/contract §3: an Idempotency-Key is 1–255 visible ASCII characters. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

/**
 * Spec D limits: an X-Idempotency-Key is non-empty and at most 255 characters, with no rule on
 * which characters (a space or a letter like "ä" is fine). On the wire a header carries bytes:
 * clients send the key's UTF-8, and its characters are counted after decoding.
 */
export const workflowKeyMaxCharacters = 255;

/** Characters (Unicode code points) of a text: a surrogate pair is one. */
export function characterCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xdc00 || unit > 0xdfff) count++;
  }
  return count;
}
