import { digestsEqual, sha256 } from "../../../platform/crypto/index.js";
import { leaseRunning, type DeliveryState } from "./delivery-state.js";

/** A claim token is stored as its hash only. */
export const claimTokenHash = (token: string): Buffer => sha256(`exchange-claim-token\n${token}`);

/** Whether `token` is the claim token stored for the delivery (compared in constant time). */
export const tokenMatches = (stored: Uint8Array | null, token: string): boolean =>
  stored !== null && digestsEqual(Buffer.from(stored), claimTokenHash(token));

/** Whether `token` holds the delivery's running lease. */
export const holdsLease = (
  row: DeliveryState & { claim_token_hash: Uint8Array | null },
  token: string,
  now: Date,
): boolean => leaseRunning(row, now) && tokenMatches(row.claim_token_hash, token);
