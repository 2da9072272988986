import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Standard Webhooks (rules/contract §5), shared by the server's delivery, the SDK's receiver helper and
 * `hanse webhooks test-receiver`: `webhook-signature` holds space-separated `v1,<base64>` entries,
 * each a base64 HMAC-SHA256 over `id.timestamp.body` keyed with the base64-decoded part of a
 * `whsec_` secret (several during a secret rotation).
 */
export const webhookHeaders = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
} as const;

/** How far a delivery's timestamp may be from the receiver's clock, in seconds. */
export const webhookToleranceSeconds = 300;

const secretKey = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ""), "base64");

function hmac(secret: string, id: string, timestamp: number, body: string | Uint8Array): Buffer {
  return createHmac("sha256", secretKey(secret)).update(`${id}.${timestamp}.`).update(body).digest();
}

/** One `v1,<base64>` signature of a delivery. */
export function signWebhook(
  secret: string,
  id: string,
  timestamp: number,
  body: string | Uint8Array,
): string {
  return `v1,${hmac(secret, id, timestamp, body).toString("base64")}`;
}

export type WebhookVerification =
  | { ok: true; id: string; timestamp: number }
  | {
      ok: false;
      reason: "missing-headers" | "bad-timestamp" | "stale-timestamp" | "bad-signature";
    };

type HeaderBag = Record<string, string | readonly string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  const direct = headers[name] ?? headers[Object.keys(headers).find((k) => k.toLowerCase() === name) ?? ""];
  return Array.isArray(direct) ? direct.join(" ") : (direct as string | undefined);
}

/**
 * Verifies a delivery over its raw body (the bytes as received, never re-serialised JSON):
 * the headers are present, the timestamp is within `toleranceSeconds` of `nowSeconds`, and one
 * `v1` signature matches one of `secrets` (compared in constant time).
 */
export function verifyWebhook(
  secrets: string | readonly string[],
  headers: HeaderBag,
  rawBody: string | Uint8Array,
  nowSeconds: number,
  toleranceSeconds = webhookToleranceSeconds,
): WebhookVerification {
  const id = header(headers, webhookHeaders.id);
  const timestampText = header(headers, webhookHeaders.timestamp);
  const signatures = header(headers, webhookHeaders.signature);
  if (!id || !timestampText || !signatures) return { ok: false, reason: "missing-headers" };
  if (!/^[0-9]{1,15}$/.test(timestampText)) return { ok: false, reason: "bad-timestamp" };
  const timestamp = Number(timestampText);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return { ok: false, reason: "stale-timestamp" };
  const offered = signatures
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => Buffer.from(entry.slice(3), "base64"));
  for (const secret of typeof secrets === "string" ? [secrets] : secrets) {
    const expected = hmac(secret, id, timestamp, rawBody);
    if (offered.some((sig) => sig.length === expected.length && timingSafeEqual(sig, expected))) {
      return { ok: true, id, timestamp };
    }
  }
  return { ok: false, reason: "bad-signature" };
}
