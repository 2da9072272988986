/**
 * The receiving end of entitlement webhooks (issue 22 item 3; rules/contract §5, spec "Events →
 * Entitlement webhooks" and C rule 5): verifies the Standard Webhooks signature over the raw body
 * with protocol/'s verifyWebhook, deduplicates by `webhook-id`, and only wakes the mirror, which
 * then reads the change feed. Nothing in a delivery is ever taken as a right.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { verifyWebhook, webhookHeaders, webhookToleranceSeconds } from "../protocol/index.js";

export type WebhookHeaders = Record<string, string | readonly string[] | undefined>;

export interface WebhookRequest {
  headers: WebhookHeaders;
  /** The body exactly as received (never re-serialised JSON). */
  rawBody: string | Uint8Array;
}

export interface WebhookResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * What became of a delivery: `accepted` (the mirror was woken), `duplicate` (this `webhook-id` was
 * seen), `already-applied` (its sequence is not beyond the mirror's), or why it was refused.
 */
export type WebhookOutcome =
  | "accepted"
  | "duplicate"
  | "already-applied"
  | "missing-signature"
  | "bad-signature"
  | "stale-timestamp"
  | "malformed-headers";

export interface WebhookReceiverOptions {
  /** The subscription's `whsec_…` secret; both during a rotation. A function is read per delivery. */
  secrets: string | readonly string[] | (() => string | readonly string[]);
  /** What a valid delivery wakes (an EntitlementMirror); `sequence`, when present, skips a wake-up for changes it has. */
  mirror: { wake(): Promise<unknown>; readonly sequence?: number | undefined };
  /** How many `webhook-id`s are remembered for deduplication (default 10,000; the oldest go first). */
  rememberIds?: number | undefined;
  /** Allowed distance of `webhook-timestamp` from `now`, seconds (default 300). */
  toleranceSeconds?: number | undefined;
  /** The node:http adapter's body limit (default 64 KiB; larger is 413). */
  maxBodyBytes?: number | undefined;
  now?: (() => Date) | undefined;
  /** Observes every delivery's outcome (never the body or a secret). */
  onDelivery?: ((outcome: WebhookOutcome, webhookId: string | undefined) => void) | undefined;
}

export interface WebhookReceiver {
  /** Framework-neutral: the answer to one delivery. */
  handle(request: WebhookRequest): WebhookResponse;
  /** A node:http (or node:https) request handler for the route the subscription points at. */
  readonly node: (request: IncomingMessage, response: ServerResponse) => void;
}

const statusOf: Record<WebhookOutcome, number> = {
  accepted: 200,
  duplicate: 200,
  "already-applied": 200,
  "missing-signature": 401,
  "bad-signature": 401,
  "stale-timestamp": 400,
  "malformed-headers": 400,
};

const answer = (status: number, body: object, headers: Record<string, string> = {}): WebhookResponse => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

function present(headers: WebhookHeaders, name: string): boolean {
  return Object.entries(headers).some(
    ([key, value]) => key.toLowerCase() === name && value !== undefined && value.length > 0,
  );
}

/** The delivery's `sequence`, read only to skip a needless wake-up; anything unexpected → undefined. */
function sequenceOf(rawBody: string | Uint8Array): number | undefined {
  try {
    const text = typeof rawBody === "string" ? rawBody : Buffer.from(rawBody).toString("utf8");
    const sequence = (JSON.parse(text) as { sequence?: unknown } | null)?.sequence;
    return Number.isSafeInteger(sequence) ? (sequence as number) : undefined;
  } catch {
    return undefined;
  }
}

export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  const remember = Math.max(1, options.rememberIds ?? 10_000);
  const tolerance = options.toleranceSeconds ?? webhookToleranceSeconds;
  const maxBody = options.maxBodyBytes ?? 64 * 1024;
  const now = options.now ?? (() => new Date());
  const seen = new Set<string>();

  const outcomeOf = (request: WebhookRequest): { outcome: WebhookOutcome; id?: string } => {
    const secrets = typeof options.secrets === "function" ? options.secrets() : options.secrets;
    const verified = verifyWebhook(
      secrets,
      request.headers,
      request.rawBody,
      Math.floor(now().getTime() / 1000),
      tolerance,
    );
    if (!verified.ok) {
      switch (verified.reason) {
        case "bad-signature":
          return { outcome: "bad-signature" };
        case "stale-timestamp":
          return { outcome: "stale-timestamp" };
        case "bad-timestamp":
          return { outcome: "malformed-headers" };
        case "missing-headers":
          // Only the signature missing: refused as unauthenticated, like a wrong one.
          return {
            outcome:
              present(request.headers, webhookHeaders.id) &&
              present(request.headers, webhookHeaders.timestamp)
                ? "missing-signature"
                : "malformed-headers",
          };
      }
    }
    // Only a verified id is remembered, so forged deliveries cannot push real ones out.
    if (seen.has(verified.id)) return { outcome: "duplicate", id: verified.id };
    seen.add(verified.id);
    if (seen.size > remember) seen.delete(seen.values().next().value as string);
    const sequence = sequenceOf(request.rawBody);
    const applied = options.mirror.sequence;
    if (sequence !== undefined && applied !== undefined && sequence <= applied) {
      return { outcome: "already-applied", id: verified.id };
    }
    // A wake-up, never a right (rules/interface C rule 5): the mirror reads the feed; its failures
    // are its events.
    options.mirror.wake().catch(() => undefined);
    return { outcome: "accepted", id: verified.id };
  };

  const handle = (request: WebhookRequest): WebhookResponse => {
    const { outcome, id } = outcomeOf(request);
    options.onDelivery?.(outcome, id);
    const status = statusOf[outcome];
    return status < 300 ? answer(status, { status: outcome }) : answer(status, { error: outcome });
  };

  const send = (response: ServerResponse, reply: WebhookResponse) => {
    response.writeHead(reply.status, reply.headers).end(reply.body);
  };

  return {
    handle,
    node(request, response) {
      if (request.method !== "POST") {
        send(response, answer(405, { error: "method-not-allowed" }, { allow: "POST" }));
        request.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      request.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= maxBody) chunks.push(chunk);
      });
      request.on("error", () => response.destroy());
      request.on("end", () => {
        send(
          response,
          size > maxBody
            ? answer(413, { error: "body-too-large" })
            : handle({ headers: request.headers, rawBody: Buffer.concat(chunks) }),
        );
      });
    },
  };
}
