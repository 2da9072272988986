import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { signWebhook, verifyWebhook } from "./webhook-signature.js";

// An independent implementation (npm `standardwebhooks`) checks ours both ways.
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const other = "whsec_c2VjcmV0LW9mLWFub3RoZXItc3Vic2NyaXB0aW9u";
const body = '{"eventId":"e1","type":"entitlement.changed","sequence":7,"actorId":"ä"}';
const now = 1_764_000_000;

function headersFor(id: string, timestamp: number, signature: string) {
  return { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature };
}

describe("Standard Webhooks signatures (rules/contract §5)", () => {
  it("our signature verifies with the standardwebhooks library, and its signature with ours", () => {
    const ours = signWebhook(secret, "msg_1", now, body);
    const theirs = new Webhook(secret).sign("msg_1", new Date(now * 1000), body);
    expect(ours).toBe(theirs);
    expect(verifyWebhook(secret, headersFor("msg_1", now, theirs), Buffer.from(body), now)).toEqual({
      ok: true,
      id: "msg_1",
      timestamp: now,
    });
  });

  it("accepts any of several signatures and any of several secrets (rotation)", () => {
    const both = `${signWebhook(other, "m", now, body)} ${signWebhook(secret, "m", now, body)}`;
    expect(verifyWebhook(secret, headersFor("m", now, both), body, now).ok).toBe(true);
    expect(
      verifyWebhook([other, secret], headersFor("m", now, signWebhook(secret, "m", now, body)), body, now).ok,
    ).toBe(true);
  });

  it("refuses a tampered body, another id, a wrong secret, a stale or future timestamp and missing headers", () => {
    const signature = signWebhook(secret, "m", now, body);
    expect(verifyWebhook(secret, headersFor("m", now, signature), `${body} `, now)).toEqual({
      ok: false,
      reason: "bad-signature",
    });
    expect(verifyWebhook(secret, headersFor("n", now, signature), body, now)).toEqual({
      ok: false,
      reason: "bad-signature",
    });
    expect(verifyWebhook(other, headersFor("m", now, signature), body, now)).toEqual({
      ok: false,
      reason: "bad-signature",
    });
    expect(verifyWebhook(secret, headersFor("m", now, signature), body, now + 301)).toEqual({
      ok: false,
      reason: "stale-timestamp",
    });
    expect(verifyWebhook(secret, headersFor("m", now, signature), body, now - 301)).toEqual({
      ok: false,
      reason: "stale-timestamp",
    });
    expect(verifyWebhook(secret, { "webhook-id": "m" }, body, now)).toEqual({
      ok: false,
      reason: "missing-headers",
    });
    expect(verifyWebhook(secret, headersFor("m", now, "v1,"), body, now)).toEqual({
      ok: false,
      reason: "bad-signature",
    });
    expect(
      verifyWebhook(secret, { ...headersFor("m", now, signature), "webhook-timestamp": "1e9" }, body, now),
    ).toEqual({
      ok: false,
      reason: "bad-timestamp",
    });
  });
});
