import { createHash, createHmac } from "node:crypto";
import type { Clock } from "../../../platform/clock/clock.js";
import { digestsEqual, openSealedSecret, type SealingKeys } from "../../../platform/crypto/index.js";
import type { ServiceAuthenticator, ServicePrincipal, SignedRequest } from "../../../platform/auth/index.js";
import { isDatabaseUnavailable } from "../../../platform/db/errors.js";
import { AppError } from "../../../platform/errors/app-error.js";
import {
  canonicalServiceRequest,
  serviceClockSkewSeconds,
  serviceCredentialUuid,
  serviceHeaders,
  serviceNoncePattern,
  serviceSignaturePattern,
  serviceTimestampPattern,
} from "@hanse/client/protocol";
import type { Database } from "../../../platform/db/database.js";
import { createCredentialLookup, createNonceRecorder } from "./bindings.repository.js";
import type { EntitlementTables } from "../entitlements.tables.js";

/** A nonce is kept this long: past it, the timestamp it came with is stale anyway (twice the skew, plus a minute). */
export const nonceRetentionSeconds = 2 * serviceClockSkewSeconds + 60;

const single = (value: string | string[] | undefined): string | undefined =>
  typeof value === "string" ? value : undefined;

/**
 * Verifies signed service requests exactly as rules/contract §5 orders it: header formats (MISSING),
 * the credential by its id (INVALID_CREDENTIAL), the timestamp's skew (STALE_TIMESTAMP), the
 * HMAC over the canonical string built from the request target as sent, compared in constant
 * time (INVALID_SIGNATURE), and last the nonce, recorded insert-if-absent before anything else
 * happens (NONCE_REUSED). A nonce store that cannot answer fails the request (503), never passes it.
 */
export function createServiceAuthenticator(deps: {
  database: Database<EntitlementTables>;
  clock: Clock;
  sealingKey: () => Promise<SealingKeys>;
}): ServiceAuthenticator {
  const findCredential = createCredentialLookup(deps.database);
  const recordNonce = createNonceRecorder(deps.database);
  const missing = (what: string) =>
    new AppError("ERR_SERVICE_AUTH_MISSING", `The signed request's ${what} is missing or malformed.`);

  function parse(headers: SignedRequest["headers"]) {
    const credentialId = single(headers[serviceHeaders.credential]);
    const timestamp = single(headers[serviceHeaders.timestamp]);
    const nonce = single(headers[serviceHeaders.nonce]);
    const signature = single(headers[serviceHeaders.signature]);
    const uuid = credentialId === undefined ? undefined : serviceCredentialUuid(credentialId);
    if (credentialId === undefined || uuid === undefined) throw missing("credential");
    if (timestamp === undefined || !serviceTimestampPattern.test(timestamp)) throw missing("timestamp");
    if (nonce === undefined || !serviceNoncePattern.test(nonce)) throw missing("nonce");
    if (signature === undefined || !serviceSignaturePattern.test(signature)) throw missing("signature");
    return { credentialId, uuid, timestamp, nonce, signature: Buffer.from(signature, "base64url") };
  }

  return {
    checkHeaders(headers) {
      parse(headers);
    },

    async verify(request): Promise<ServicePrincipal> {
      const parsed = parse(request.headers);
      const now = deps.clock.now();
      const credential = await findCredential(parsed.uuid);
      // Revoked bindings and suspended tenants are refused as unknown credentials (rules/contract §7).
      if (!credential?.admitted || (credential.expires_at !== null && credential.expires_at <= now)) {
        throw new AppError(
          "ERR_SERVICE_AUTH_INVALID_CREDENTIAL",
          "The service credential is unknown or no longer valid.",
        );
      }
      if (Math.abs(now.getTime() / 1000 - Number(parsed.timestamp)) > serviceClockSkewSeconds) {
        throw new AppError(
          "ERR_SERVICE_AUTH_STALE_TIMESTAMP",
          "The request timestamp is outside the allowed skew of 300 seconds.",
        );
      }
      const secret = openSealedSecret(await deps.sealingKey(), credential.secret, "service secret");
      const canonical = canonicalServiceRequest({
        method: request.method,
        target: request.target,
        timestamp: parsed.timestamp,
        nonce: parsed.nonce,
        bodySha256Hex: createHash("sha256").update(request.body).digest("hex"),
      });
      const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(canonical).digest();
      if (!digestsEqual(parsed.signature, expected)) {
        throw new AppError("ERR_SERVICE_AUTH_INVALID_SIGNATURE", "The request signature does not verify.");
      }
      let fresh: boolean;
      try {
        fresh = await recordNonce({
          credentialId: credential.id,
          nonce: parsed.nonce,
          expiresAt: new Date(now.getTime() + nonceRetentionSeconds * 1000),
        });
      } catch (error) {
        if (isDatabaseUnavailable(error)) throw error;
        throw new AppError("ERR_UNAVAILABLE", "The nonce store cannot be consulted; retry with a new nonce.");
      }
      if (!fresh) throw new AppError("ERR_SERVICE_AUTH_NONCE_REUSED", "The nonce was used before.");
      return {
        credentialId: parsed.credentialId,
        bindingId: credential.binding_id,
        tenantId: credential.tenant_id,
        appId: credential.app_id,
        audience: credential.audience,
        requiredCapabilities: credential.required_capabilities,
      };
    },
  };
}
