import type { DeliveryOutcome } from "./webhooks.repository.js";

/**
 * Delay before attempt n + 1 after n failed attempts: the first retry within 10 s, then spread
 * over more than 24 h (rules/contract §5: at least 24 h). Ten attempts in all.
 */
export const webhookRetryDelaysMs = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
];

/** What one POST of a batch came back with. */
export interface SentAttempt {
  deliveryId: string;
  /** This attempt's number (1 on the first). */
  attempt: number;
  /** The receiver's status (null: no answer, see `errorClass`). */
  status: number | null;
  retryAfterMs: number | undefined;
  /** Set when no status came back (timeout, refused, dns, …). */
  errorClass: string | null;
  latencyMs: number;
  attemptId: string;
}

/** What a batch's outcomes do to its subscription. */
export interface BatchVerdict {
  outcomes: DeliveryOutcome[];
  /** Since when the subscription fails after this batch (null: a delivery succeeded). */
  failingSince: Date | null;
  /** Set when the subscription is to be disabled, and why. */
  disable: string | null;
}

const isDelivered = (sent: SentAttempt) => sent.status !== null && sent.status >= 200 && sent.status < 300;

/**
 * The pure rules of rules/contract §5 for a batch sent together: only a 2xx delivers; a 410 disables
 * the subscription, as does failing without pause (no delivery at all) for `disableAfterMs`;
 * the deliveries of a disabled subscription are cancelled; any other failure is tried again after
 * the next delay of the schedule (jittered ±10 %, at least a 429/503's Retry-After, at most a
 * day), and fails for good when the schedule is spent.
 */
export function judgeBatch(
  sent: readonly SentAttempt[],
  context: { at: Date; failingSince: Date | null; disableAfterMs: number; random: () => number },
): BatchVerdict {
  const { at } = context;
  const anyDelivered = sent.some(isDelivered);
  const failingSince = anyDelivered ? null : (context.failingSince ?? at);
  let disable: string | null = null;
  if (sent.some((s) => s.status === 410)) disable = "the receiver answered 410 Gone";
  else if (failingSince && at.getTime() - failingSince.getTime() >= context.disableAfterMs) {
    disable = `every delivery failed for ${Math.round(context.disableAfterMs / 3_600_000)} hours`;
  }
  const outcomes = sent.map((s): DeliveryOutcome => {
    const common = {
      deliveryId: s.deliveryId,
      attempt: s.attempt,
      status: s.status,
      attemptedAt: at,
      attemptId: s.attemptId,
      latencyMs: Math.round(s.latencyMs),
      nextAttemptAt: null,
    };
    if (isDelivered(s)) return { ...common, state: "delivered", error: null, errorClass: null };
    const error = s.errorClass ?? `http-${String(s.status)}`;
    const failed = { ...common, error, errorClass: error };
    if (disable) return { ...failed, state: "cancelled" };
    const delay = webhookRetryDelaysMs[s.attempt - 1];
    if (delay === undefined) return { ...failed, state: "failed" };
    const jittered = Math.round(delay * (0.9 + 0.2 * context.random()));
    const wait = Math.min(Math.max(jittered, s.retryAfterMs ?? 0), 86_400_000);
    return { ...failed, state: "pending", nextAttemptAt: new Date(at.getTime() + wait) };
  });
  return { outcomes, failingSince, disable };
}
