import { describe, expect, it } from "vitest";
import { judgeBatch, webhookRetryDelaysMs, type SentAttempt } from "./webhook-outcomes.js";

const at = new Date("2026-11-27T10:00:00.000Z");
const hour = 3_600_000;
const firstRetry = new Date(at.getTime() + (webhookRetryDelaysMs[0] ?? NaN));
const sent = (deliveryId: string, status: number | null, extra: Partial<SentAttempt> = {}): SentAttempt => ({
  deliveryId,
  attempt: 1,
  status,
  retryAfterMs: undefined,
  errorClass: status === null ? "timeout" : null,
  latencyMs: 12.4,
  attemptId: `attempt-${deliveryId}`,
  ...extra,
});
const judge = (batch: SentAttempt[], failingSince: Date | null = null) =>
  judgeBatch(batch, { at, failingSince, disableAfterMs: 5 * 24 * hour, random: () => 0.5 });

describe("a webhook batch's outcomes (rules/contract §5)", () => {
  it("only a 2xx delivers; a failure is tried again after the schedule's delay, a timeout too", () => {
    const verdict = judge([sent("a", 204), sent("b", 302), sent("c", null)]);
    expect(verdict.outcomes.map((o) => [o.deliveryId, o.state, o.errorClass, o.nextAttemptAt])).toEqual([
      ["a", "delivered", null, null],
      ["b", "pending", "http-302", firstRetry],
      ["c", "pending", "timeout", firstRetry],
    ]);
    expect(verdict.outcomes[0]?.latencyMs).toBe(12);
  });

  it("a batch with one delivery delivered ends the failing period; a batch with none starts it or keeps it", () => {
    const since = new Date(at.getTime() - hour);
    expect(judge([sent("a", 500), sent("b", 200)], since).failingSince).toBeNull();
    expect(judge([sent("a", 500)]).failingSince).toEqual(at);
    expect(judge([sent("a", 500)], since).failingSince).toEqual(since);
  });

  it("Retry-After of a 429 or 503 lengthens the wait, up to a day", () => {
    const [later, capped] = judge([
      sent("a", 429, { retryAfterMs: 120_000 }),
      sent("b", 503, { retryAfterMs: 3 * 24 * hour }),
    ]).outcomes;
    expect(later?.nextAttemptAt).toEqual(new Date(at.getTime() + 120_000));
    expect(capped?.nextAttemptAt).toEqual(new Date(at.getTime() + 24 * hour));
  });

  it("a 410 disables the subscription and cancels the batch's failed deliveries; delivered ones stay delivered", () => {
    const verdict = judge([sent("a", 200), sent("b", 410), sent("c", 500)]);
    expect(verdict.disable).toBe("the receiver answered 410 Gone");
    expect(verdict.outcomes.map((o) => o.state)).toEqual(["delivered", "cancelled", "cancelled"]);
  });

  it("failing without pause for the configured period disables; the schedule spent fails the delivery", () => {
    const verdict = judge([sent("a", 500)], new Date(at.getTime() - 5 * 24 * hour));
    expect(verdict.disable).toBe("every delivery failed for 120 hours");
    expect(verdict.outcomes[0]?.state).toBe("cancelled");
    const last = judge([sent("a", 500, { attempt: webhookRetryDelaysMs.length + 1 })]);
    expect([last.disable, last.outcomes[0]?.state]).toEqual([null, "failed"]);
  });
});
