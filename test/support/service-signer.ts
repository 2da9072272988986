import { createHash, createHmac, randomBytes } from "node:crypto";

/** Signs like rules/contract §5 says, written out here independently of src/ (tests check the server with it). */
export function serviceSignature(options: {
  secret: string;
  method: string;
  target: string;
  timestamp: string;
  nonce: string;
  body?: Buffer | string;
}): string {
  const bodyHash = createHash("sha256")
    .update(options.body ?? "")
    .digest("hex");
  const canonical = `${options.method}\n${options.target}\n${options.timestamp}\n${options.nonce}\n${bodyHash}`;
  return createHmac("sha256", Buffer.from(options.secret, "utf8")).update(canonical).digest("base64url");
}

export interface ServiceCredential {
  credentialId: string;
  secret: string;
}

/** The four headers of a signed request, with a fresh nonce and the current time unless given. */
export function signedHeaders(
  credential: ServiceCredential,
  method: string,
  target: string,
  options: { body?: Buffer | string; timestamp?: number; nonce?: string } = {},
): Record<string, string> {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = options.nonce ?? randomBytes(18).toString("base64url");
  return {
    "x-platform-service-credential": credential.credentialId,
    "x-platform-service-timestamp": timestamp,
    "x-platform-service-nonce": nonce,
    "x-platform-service-signature": serviceSignature({
      secret: credential.secret,
      method,
      target,
      timestamp,
      nonce,
      ...(options.body === undefined ? {} : { body: options.body }),
    }),
  };
}
