// remote mode: in-process only: a fake clock and a webhook receiver's settings of its own
import { sql } from "kysely";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import {
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedRequest,
  webhookReceiverEnv,
} from "../support/https-receiver.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { subscribeWebhook, type WebhookSubscription } from "../support/webhook-subscriptions.js";

const clock = createManualClock(new Date());
let t: TestApp;
let tenant: ProvisionedTenant;
let receiver: HttpsReceiver;
let counter = 0;

const admin = (method: "GET" | "POST" | "PUT", url: string, payload?: unknown) =>
  t.inject({
    method,
    url,
    headers: bearer(tenant.token),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

/** An app, a binding and a subscription of it to the receiver at `path`. */
async function subscribe(path = "/hooks") {
  const hook = await subscribeWebhook(
    t,
    tenant.token,
    `hooks-${counter++}`,
    receiver.url.replace("/hooks", path),
  );
  return { ...hook, received: () => receiver.received.filter((r) => r.url === path) };
}

/** Verifies a delivery with an independent Standard Webhooks implementation (npm `standardwebhooks`). */
function verified(request: ReceivedRequest, secret: string) {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]),
  );
  return new Webhook(secret).verify(request.body, headers) as Record<string, unknown>;
}

const advance = async (ms: number) => {
  clock.advance(ms);
  await t.drainJobs();
};

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await createTestApp({
    clock,
    env: {
      ...webhookReceiverEnv(receiver),
      HANSE_WEBHOOK_DISABLE_AFTER_SECONDS: "3600",
    },
  });
  tenant = await provisionTenant(t);
});
beforeEach(() => {
  receiver.answer = () => ({ status: 204 });
  clock.set(new Date());
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe("entitlement webhooks (rules/contract §5, rules/interface Events)", () => {
  it("rules/contract §5: one delivery per change and subscription, Standard Webhooks signed, the change's sequence and no rights", async () => {
    const hook = await subscribe("/one");
    const second = await admin("POST", "/api/v1/admin/webhook-subscriptions", {
      bindingId: (await admin("GET", `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}`)).json<{
        bindingId: string;
      }>().bindingId,
      url: receiver.url.replace("/hooks", "/two"),
    });
    const sequence = await hook.change("alice", "pro");
    await t.drainJobs();
    const [delivery] = hook.received();
    expect(hook.received()).toHaveLength(1);
    expect(receiver.received.filter((r) => r.url === "/two")).toHaveLength(1);
    const payload = verified(delivery as ReceivedRequest, hook.subscription.secret);
    expect(Object.keys(payload).sort()).toEqual([
      "actorId",
      "appId",
      "eventId",
      "occurredAt",
      "sequence",
      "tenantId",
      "type",
    ]);
    expect(payload).toMatchObject({
      type: "entitlement.changed",
      tenantId: tenant.id,
      appId: hook.appId,
      sequence,
      actorId: "alice",
    });
    expect(delivery?.body).not.toContain("pro");
    expect(() => verified(delivery as ReceivedRequest, second.json<WebhookSubscription>().secret)).toThrow();
    expect(hook.subscription.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  });

  it("rules/contract §5: only a 2xx ends a delivery: 500 then 200 delivers again with the same webhook-id, the first retry within 10 s", async () => {
    const hook = await subscribe("/flaky");
    let calls = 0;
    receiver.answer = () => ({ status: calls++ === 0 ? 500 : 200 });
    await hook.change("bob");
    await t.drainJobs();
    expect(hook.received()).toHaveLength(1);
    await advance(4_000);
    expect(hook.received()).toHaveLength(1);
    await advance(6_000);
    const [first, second] = hook.received();
    expect(hook.received()).toHaveLength(2);
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
    await advance(3_600_000);
    expect(hook.received()).toHaveLength(2);
    const attempts = (
      await admin("GET", `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}/attempts`)
    ).json<{
      items: { status: number | null; errorClass: string | null; attempt: number; latencyMs: number }[];
    }>();
    expect(attempts.items.map((a) => [a.attempt, a.status, a.errorClass])).toEqual([
      [2, 200, null],
      [1, 500, "http-500"],
    ]);
    expect(JSON.stringify(attempts)).not.toContain(hook.subscription.secret);
  });

  it("issue 22: a delivered attempt ends the subscription's failing period (failingSince back to null)", async () => {
    const hook = await subscribe("/recovers");
    let calls = 0;
    receiver.answer = () => ({ status: calls++ === 0 ? 503 : 204 });
    await hook.change("ruth");
    await t.drainJobs();
    const failing = (
      await admin("GET", `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}`)
    ).json<WebhookSubscription>();
    expect(failing.failingSince).toBe(clock.now().toISOString());
    await advance(6_000);
    expect(hook.received()).toHaveLength(2);
    const recovered = (
      await admin("GET", `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}`)
    ).json<WebhookSubscription>();
    expect(recovered).toMatchObject({ enabled: true, failingSince: null });
  });

  it("rules/contract §5: a 410 disables the subscription until it is enabled again", async () => {
    const hook = await subscribe("/gone");
    receiver.answer = () => ({ status: 410 });
    await hook.change("carol");
    await t.drainJobs();
    const read = (
      await admin("GET", `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}`)
    ).json<WebhookSubscription>();
    expect(read).toMatchObject({ enabled: false, disabledReason: "the receiver answered 410 Gone" });
    await hook.change("carol", "pro");
    await advance(60_000);
    expect(hook.received()).toHaveLength(1);
    receiver.answer = () => ({ status: 204 });
    const enabled = await admin("POST", `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}/enable`);
    expect(enabled.json()).toMatchObject({ enabled: true, disabledReason: null });
    const sequence = await hook.change("dave");
    await t.drainJobs();
    expect(hook.received()).toHaveLength(2);
    expect(JSON.parse(hook.received()[1]?.body ?? "{}")).toMatchObject({ sequence });
  });

  it("issue 22: 429 and 503 honour Retry-After", async () => {
    for (const status of [429, 503]) {
      const hook = await subscribe(`/busy-${status}`);
      let calls = 0;
      receiver.answer = () =>
        calls++ === 0 ? { status, headers: { "retry-after": "120" } } : { status: 204 };
      await hook.change("erin");
      await t.drainJobs();
      await advance(30_000);
      expect(hook.received(), String(status)).toHaveLength(1);
      await advance(91_000);
      expect(hook.received(), String(status)).toHaveLength(2);
    }
  });

  it("rules/contract §5: a redirect is not followed and counts as a failure — a 302 to a private address reaches nothing there, and the delivery is tried again", async () => {
    const hook = await subscribe("/moved");
    // The redirect's target is this receiver on loopback, where a followed redirect would show.
    const target = receiver.url.replace("/hooks", "/redirected");
    let calls = 0;
    receiver.answer = (request) =>
      request.url === "/moved" && calls++ === 0
        ? { status: 302, headers: { location: target } }
        : { status: 204 };
    await hook.change("ivan");
    await t.drainJobs();
    const redirected = () => receiver.received.filter((r) => r.url === "/redirected");
    expect(hook.received()).toHaveLength(1);
    expect(redirected()).toHaveLength(0);
    expect((await hook.attempts()).map((a) => [a.attempt, a.status, a.errorClass])).toEqual([
      [1, 302, "http-302"],
    ]);
    expect((await hook.read()).failingSince).not.toBeNull();
    await advance(6_000);
    expect(hook.received()).toHaveLength(2);
    expect(redirected()).toHaveLength(0);
    expect((await hook.attempts()).map((a) => [a.attempt, a.status])).toEqual([
      [2, 204],
      [1, 302],
    ]);
  });

  it("issue 22: a receiver that hangs times out and is tried again", async () => {
    const hook = await subscribe("/hang");
    let calls = 0;
    receiver.answer = () => (calls++ === 0 ? "hang" : { status: 204 });
    await hook.change("frank");
    await t.drainJobs();
    await advance(10_000);
    expect(hook.received()).toHaveLength(2);
    const attempts = (
      await admin("GET", `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}/attempts`)
    ).json<{
      items: { status: number | null; errorClass: string | null }[];
    }>();
    expect(attempts.items.map((a) => a.errorClass)).toEqual([null, "timeout"]);
  });

  it("issue 22: recover re-sends every change from a sequence; a rotated secret signs beside the old one", async () => {
    const hook = await subscribe("/recover");
    await hook.change("g1");
    await hook.change("g2");
    await hook.change("g3");
    await t.drainJobs();
    expect(hook.received()).toHaveLength(3);
    const rotated = await admin(
      "POST",
      `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}/rotate-secret`,
    );
    const { secret } = rotated.json<{ secret: string }>();
    const recovered = await admin(
      "POST",
      `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}/recover`,
      {
        fromSequence: 2,
      },
    );
    expect(recovered.json()).toMatchObject({ enqueued: 2 });
    await t.drainJobs();
    const again = hook.received().slice(3);
    // Deliveries run side by side: receivers order by sequence themselves (and read the feed).
    const resent = again.map((r) => (JSON.parse(r.body) as { sequence: number }).sequence);
    expect(resent.sort((a, b) => a - b)).toEqual([2, 3]);
    for (const request of again) {
      expect(String(request.headers["webhook-signature"]).split(" ")).toHaveLength(2);
      expect(verified(request, secret)).toBeTruthy();
      expect(verified(request, hook.subscription.secret)).toBeTruthy();
    }
  });

  it("issue 22: a subscription whose deliveries all fail for the configured period is disabled, and says why", async () => {
    const hook = await subscribe("/down");
    receiver.answer = () => ({ status: 503 });
    await hook.change("h1");
    await t.drainJobs();
    // Each step passes the longest jittered delay (+10 %) of the retry it waits for, so every
    // retry runs in its own step whatever the jitter drew.
    const [first, second, third, fourth] = [5_000, 300_000, 1_800_000, 7_200_000].map(
      (delay) => delay * 1.1 + 1000,
    ) as [number, number, number, number];
    for (const step of [first, second, third]) await advance(step);
    // About 40 minutes of failures: not yet the configured hour.
    const early = (
      await admin("GET", `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}`)
    ).json<WebhookSubscription>();
    expect(early.enabled).toBe(true);
    await advance(fourth);
    const read = (
      await admin("GET", `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}`)
    ).json<WebhookSubscription>();
    expect(read.enabled).toBe(false);
    expect(read.disabledReason).toMatch(/every delivery failed/);
  });

  it("issue 22: duplicates allowed, losses never — 1,000 changes, the receiver failing 30 % at random", async () => {
    const hook = await subscribe("/lossy");
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    receiver.answer = () => ({ status: random() < 0.3 ? 500 : 204 });
    const sequences: number[] = [];
    for (let i = 0; i < 1000; i++) sequences.push(await hook.change(`l${i % 100}`, `p${i}`));
    await t.drainJobs();
    // Past every retry delay of the schedule, each with its jitter.
    for (const step of [6e3, 33e4, 2e6, 8e6, 2e7, 4e7, 5.6e7, 8e7, 9.6e7]) await advance(step);
    const delivered = new Set(
      hook
        .received()
        .filter((r) => r.headers["webhook-id"] !== undefined)
        .map((r) => (JSON.parse(r.body) as { sequence: number }).sequence),
    );
    expect(sequences.filter((s) => !delivered.has(s))).toEqual([]);
    const pending = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'failed' AND subscription_id = ${hook.subscription.id}::uuid`.execute(
      t.container.database.db,
    );
    expect(pending.rows[0]?.n).toBe(0);
  }, 240_000);
});
