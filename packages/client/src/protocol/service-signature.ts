/**
 * Signed entitlement service requests (rules/contract §5), shared by the server and the SDK.
 * canonical = METHOD "\n" REQUEST_TARGET "\n" TIMESTAMP "\n" NONCE "\n" hex(SHA-256(body)),
 * signature = base64url(HMAC-SHA256(UTF-8 of the secret as issued, canonical)).
 * REQUEST_TARGET is the path with its query exactly as sent (never re-encoded or sorted).
 */
export const serviceHeaders = {
  credential: "x-platform-service-credential",
  timestamp: "x-platform-service-timestamp",
  nonce: "x-platform-service-nonce",
  signature: "x-platform-service-signature",
} as const;

/** Allowed distance between the request's timestamp and the server's clock, in seconds. */
export const serviceClockSkewSeconds = 300;

/** `hanse_sc_<32 hex>`: the credential id as issued (the hex is the credential's UUID). */
export const serviceCredentialIdPattern = /^hanse_sc_([0-9a-f]{32})$/;
/** A whole number of seconds since the epoch. */
export const serviceTimestampPattern = /^[0-9]{1,15}$/;
/** base64url without padding of at least 16 bytes (22 characters), at most 128 characters. */
export const serviceNoncePattern = /^[A-Za-z0-9_-]{22,128}$/;
/** base64url of 32 bytes: 43 characters (a trailing "=" of padding is tolerated). */
export const serviceSignaturePattern = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]=?$/;

export function canonicalServiceRequest(parts: {
  method: string;
  target: string;
  timestamp: string;
  nonce: string;
  bodySha256Hex: string;
}): string {
  return [parts.method.toUpperCase(), parts.target, parts.timestamp, parts.nonce, parts.bodySha256Hex].join(
    "\n",
  );
}

/** The issued credential id of a credential's UUID, and back. */
export const serviceCredentialId = (uuid: string): string => `hanse_sc_${uuid.replaceAll("-", "")}`;

export function serviceCredentialUuid(credentialId: string): string | undefined {
  const hex = serviceCredentialIdPattern.exec(credentialId)?.[1];
  if (hex === undefined) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
