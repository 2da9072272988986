import { describe, expect, it } from "vitest";
import {
  acknowledge,
  budgetSpent,
  claim,
  expire,
  leaseBackoffMs,
  leaseRunning,
  payloadRead,
  readyForClaim,
  requeue,
  resend,
  type DeliveryPolicy,
  type DeliveryState,
} from "./delivery-state.js";

const policy: DeliveryPolicy = { leaseSeconds: 300, maxAttempts: 3, retryBaseSeconds: 30 };
const t0 = new Date("2026-01-01T00:00:00.000Z");
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const token = Buffer.from("token-hash");

const ready = (over: Partial<DeliveryState> = {}): DeliveryState => ({
  status: "ready",
  attempts: 0,
  due_at: t0,
  lease_expires_at: null,
  verified_attempt: null,
  ...over,
});
const claimed = (over: Partial<DeliveryState> = {}): DeliveryState =>
  ready({ status: "claimed", attempts: 1, lease_expires_at: at(300), ...over });

describe("a new or requeued delivery", () => {
  it("is ready, due now, with no attempt, lease, token or verified read", () => {
    expect(readyForClaim(t0)).toEqual({
      status: "ready",
      attempts: 0,
      due_at: t0,
      lease_expires_at: null,
      claim_token_hash: null,
      verified_attempt: null,
    });
  });
});

describe("claim", () => {
  it("takes the next attempt and a lease of leaseSeconds, with the token and no verified read", () => {
    const decision = claim(ready({ attempts: 1 }), at(10), policy, token);
    expect(decision).toEqual({
      ok: true,
      attempt: 2,
      expiresAt: at(310),
      changes: {
        status: "claimed",
        attempts: 2,
        lease_expires_at: at(310),
        claim_token_hash: token,
        verified_attempt: null,
      },
    });
  });

  it("is refused while another lease holds the delivery", () => {
    expect(claim(claimed(), at(10), policy, token)).toEqual({
      ok: false,
      refusal: "The delivery is claimed by an active lease.",
    });
  });

  it("is refused for an acknowledged or failed delivery, naming its status", () => {
    expect(claim(ready({ status: "acknowledged" }), at(10), policy, token)).toEqual({
      ok: false,
      refusal: "The delivery is acknowledged.",
    });
    expect(claim(ready({ status: "failed" }), at(10), policy, token)).toEqual({
      ok: false,
      refusal: "The delivery is failed.",
    });
  });

  it("is refused before the delivery is due, and allowed at its due time", () => {
    expect(claim(ready({ due_at: at(11) }), at(10), policy, token)).toEqual({
      ok: false,
      refusal: "The delivery is not due yet.",
    });
    expect(claim(ready({ due_at: at(10) }), at(10), policy, token).ok).toBe(true);
  });

  it("is refused once the attempt budget is spent", () => {
    expect(claim(ready({ attempts: 3 }), at(10), policy, token)).toEqual({
      ok: false,
      refusal: "The attempt budget of the delivery is spent.",
    });
  });
});

describe("expire", () => {
  it("does nothing while the lease runs, or for a delivery that is not claimed", () => {
    expect(expire(claimed(), at(299), policy)).toBeUndefined();
    expect(expire(ready(), at(1000), policy)).toBeUndefined();
    expect(expire(claimed({ lease_expires_at: null }), at(1000), policy)).toBeUndefined();
  });

  it("makes the delivery due again after the backoff, counted from the lease's end", () => {
    expect(expire(claimed({ attempts: 2 }), at(400), policy)).toEqual({
      outcome: "ready",
      changes: {
        status: "ready",
        due_at: at(300 + 60),
        lease_expires_at: null,
        claim_token_hash: null,
        verified_attempt: null,
      },
    });
  });

  it("fails the delivery when its last attempt's lease ran out, keeping its due time", () => {
    expect(expire(claimed({ attempts: 3, verified_attempt: 3 }), at(300), policy)).toEqual({
      outcome: "failed",
      changes: { status: "failed", lease_expires_at: null, claim_token_hash: null, verified_attempt: null },
    });
  });
});

describe("backoff and budget", () => {
  it("doubles from the base per attempt, capped at 15 minutes", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((a) => leaseBackoffMs(a, 30) / 1000)).toEqual([
      30, 30, 60, 120, 240, 480, 900, 900,
    ]);
  });

  it("is spent when the attempts reach maxAttempts", () => {
    expect([2, 3, 4].map((a) => budgetSpent(a, policy))).toEqual([false, true, true]);
  });
});

describe("payload read", () => {
  it("records a verified read for its attempt, and clears it for a failed one", () => {
    expect(payloadRead(2, true)).toEqual({ verified_attempt: 2 });
    expect(payloadRead(2, false)).toEqual({ verified_attempt: null });
  });
});

describe("acknowledge", () => {
  it("acknowledges under a running lease after a verified read of the current attempt", () => {
    const decision = acknowledge(claimed({ attempts: 2, verified_attempt: 2 }), at(10));
    expect(decision.kind).toBe("acknowledged");
    if (decision.kind !== "acknowledged") return;
    expect(decision.changes("receipt-1")).toEqual({
      status: "acknowledged",
      receipt_id: "receipt-1",
      acknowledged_at: at(10),
    });
  });

  it("is refused without a verified read of the current attempt", () => {
    expect(acknowledge(claimed({ attempts: 2, verified_attempt: null }), at(10))).toEqual({
      kind: "unverified",
    });
    expect(acknowledge(claimed({ attempts: 2, verified_attempt: 1 }), at(10))).toEqual({
      kind: "unverified",
    });
  });

  it("is refused when no lease runs: expired, or never claimed", () => {
    expect(acknowledge(claimed({ verified_attempt: 1 }), at(300))).toEqual({ kind: "no-lease" });
    expect(acknowledge(ready(), at(10))).toEqual({ kind: "no-lease" });
    expect(acknowledge(ready({ status: "failed" }), at(10))).toEqual({ kind: "no-lease" });
  });

  it("is a replay once the delivery is acknowledged", () => {
    expect(acknowledge(ready({ status: "acknowledged" }), at(10_000))).toEqual({ kind: "replay" });
  });
});

describe("a running lease", () => {
  it("runs from the claim until its expiry, exclusive", () => {
    expect(leaseRunning(claimed(), at(299))).toBe(true);
    expect(leaseRunning(claimed(), at(300))).toBe(false);
    expect(leaseRunning(ready(), at(0))).toBe(false);
  });
});

describe("requeue", () => {
  it("gives a failed delivery a fresh attempt budget, due now", () => {
    expect(requeue(ready({ status: "failed", attempts: 3, due_at: at(-100) }), at(50))).toEqual(
      readyForClaim(at(50)),
    );
  });

  it("refuses every other status", () => {
    for (const status of ["ready", "claimed", "acknowledged"] as const) {
      expect(requeue(ready({ status }), at(50)), status).toBeUndefined();
    }
  });
});

describe("resend", () => {
  it("is allowed from every status: the new delivery is ready, due now, with a fresh attempt budget", () => {
    for (const original of [
      ready(),
      claimed({ attempts: 2, verified_attempt: 2 }),
      ready({ status: "acknowledged", attempts: 1, verified_attempt: 1 }),
      ready({ status: "failed", attempts: 3, due_at: at(-100) }),
    ]) {
      expect(resend(original, at(50)), original.status).toEqual(readyForClaim(at(50)));
    }
  });
});
