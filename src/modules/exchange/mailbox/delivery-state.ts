/**
 * The delivery state machine of the mailbox (rules/contract §4), without I/O: what a claim, an expired
 * lease, a payload read, an acknowledgement or an operator's requeue does to a delivery — its
 * next status, attempt count, due time, lease and verified read — or why it is refused. The
 * repository writes the columns these functions return; nothing else decides them.
 *
 *   ready ──claim──▶ claimed ──acknowledge (after a verified read)──▶ acknowledged
 *     ▲                 │
 *     └──lease expired──┤ (due again after the backoff)
 *                       └──lease expired, attempt budget spent──▶ failed ──requeue──▶ ready
 *
 * An operator's re-send leaves a delivery as it is, in any state, and starts a new one: ready,
 * with the same payload, at the end of the mailbox.
 */
import type { DeliveryStatus } from "../exchange.tables.js";

/** What the decisions read of a delivery (its row's columns). */
export interface DeliveryState {
  status: DeliveryStatus;
  attempts: number;
  due_at: Date;
  lease_expires_at: Date | null;
  verified_attempt: number | null;
}

/** The columns a transition sets; the repository writes them as they are. */
export interface DeliveryChanges {
  status?: DeliveryStatus;
  attempts?: number;
  due_at?: Date;
  lease_expires_at?: Date | null;
  claim_token_hash?: Buffer | null;
  verified_attempt?: number | null;
  receipt_id?: string;
  acknowledged_at?: Date;
}

/** HANSE_MAILBOX_LEASE_SECONDS, _MAX_ATTEMPTS and _RETRY_BASE_SECONDS. */
export interface DeliveryPolicy {
  leaseSeconds: number;
  maxAttempts: number;
  retryBaseSeconds: number;
}

/** Backoff after an expired lease: base × 2^(attempts−1), capped at 15 minutes (rules/contract §4). */
export const leaseBackoffMs = (attempts: number, baseSeconds: number): number =>
  Math.min(baseSeconds * 1000 * 2 ** Math.max(0, attempts - 1), 15 * 60 * 1000);

/** Whether every attempt a delivery may have was made. */
export const budgetSpent = (attempts: number, policy: Pick<DeliveryPolicy, "maxAttempts">): boolean =>
  attempts >= policy.maxAttempts;

/** A delivery due for a first claim: new, or requeued by an operator (a fresh attempt budget). */
export const readyForClaim = (now: Date) =>
  ({
    status: "ready",
    attempts: 0,
    due_at: now,
    lease_expires_at: null,
    claim_token_hash: null,
    verified_attempt: null,
  }) as const satisfies DeliveryChanges;

/** Whether a lease on the delivery is running at `now` (whose token holds it is the caller's check). */
export const leaseRunning = (state: DeliveryState, now: Date): boolean =>
  state.status === "claimed" && state.lease_expires_at !== null && state.lease_expires_at > now;

export type ClaimDecision =
  { ok: true; attempt: number; expiresAt: Date; changes: DeliveryChanges } | { ok: false; refusal: string };

/** A claim: a due, ready delivery with attempts left gets the next attempt and a lease. */
export function claim(
  state: DeliveryState,
  now: Date,
  policy: DeliveryPolicy,
  claimTokenHash: Buffer,
): ClaimDecision {
  if (state.status === "claimed")
    return { ok: false, refusal: "The delivery is claimed by an active lease." };
  if (state.status !== "ready") return { ok: false, refusal: `The delivery is ${state.status}.` };
  if (state.due_at > now) return { ok: false, refusal: "The delivery is not due yet." };
  if (budgetSpent(state.attempts, policy)) {
    return { ok: false, refusal: "The attempt budget of the delivery is spent." };
  }
  const attempt = state.attempts + 1;
  const expiresAt = new Date(now.getTime() + policy.leaseSeconds * 1000);
  return {
    ok: true,
    attempt,
    expiresAt,
    changes: {
      status: "claimed",
      attempts: attempt,
      lease_expires_at: expiresAt,
      claim_token_hash: claimTokenHash,
      verified_attempt: null,
    },
  };
}

export interface Expiry {
  /** `ready`: due again after the backoff; `failed`: the attempt budget is spent. */
  outcome: "ready" | "failed";
  changes: DeliveryChanges;
}

/**
 * A lease that ran out: the delivery is due again after the backoff, counted from the lease's
 * end, or `failed` once its attempt budget is spent. Undefined while no lease has run out.
 */
export function expire(state: DeliveryState, now: Date, policy: DeliveryPolicy): Expiry | undefined {
  if (state.status !== "claimed" || state.lease_expires_at === null || state.lease_expires_at > now) {
    return undefined;
  }
  const released = { lease_expires_at: null, claim_token_hash: null, verified_attempt: null } as const;
  if (budgetSpent(state.attempts, policy)) {
    return { outcome: "failed", changes: { status: "failed", ...released } };
  }
  const dueAt = state.lease_expires_at.getTime() + leaseBackoffMs(state.attempts, policy.retryBaseSeconds);
  return { outcome: "ready", changes: { status: "ready", due_at: new Date(dueAt), ...released } };
}

/**
 * The verdict of a payload read under attempt `attempt`: only a verified read (every byte sent,
 * size and SHA-256 matching) lets that attempt be acknowledged. The repository writes it only
 * while the delivery is still claimed under that attempt.
 */
export const payloadRead = (attempt: number, verified: boolean): DeliveryChanges => ({
  verified_attempt: verified ? attempt : null,
});

export type AcknowledgeDecision =
  | { kind: "replay" }
  | { kind: "no-lease" }
  | { kind: "unverified" }
  | { kind: "acknowledged"; changes(receiptId: string): DeliveryChanges };

/**
 * An acknowledgement by the holder of the claim token: a replay once acknowledged; otherwise only
 * under a running lease whose attempt had a verified read.
 */
export function acknowledge(state: DeliveryState, now: Date): AcknowledgeDecision {
  if (state.status === "acknowledged") return { kind: "replay" };
  if (!leaseRunning(state, now)) return { kind: "no-lease" };
  if (state.verified_attempt !== state.attempts) return { kind: "unverified" };
  return {
    kind: "acknowledged",
    changes: (receiptId) => ({ status: "acknowledged", receipt_id: receiptId, acknowledged_at: now }),
  };
}

/** An operator's requeue: only a `failed` delivery, which gets a fresh attempt budget. */
export function requeue(state: DeliveryState, now: Date): DeliveryChanges | undefined {
  return state.status === "failed" ? readyForClaim(now) : undefined;
}

/**
 * An operator's re-send of a delivery a partner lost: allowed whatever the delivery's status (an
 * acknowledged one included), which it does not change; the new delivery starts as any new one
 * does (`readyForClaim`: due now, a fresh attempt budget, no lease, token or verified read).
 */
export function resend(
  _original: DeliveryState,
  now: Date,
): DeliveryChanges & ReturnType<typeof readyForClaim> {
  return readyForClaim(now);
}
