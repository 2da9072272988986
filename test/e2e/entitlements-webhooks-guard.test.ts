// remote mode: in-process only: its own outbound address guard and host lookup
import type { LookupAddress } from "node:dns";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startHttpsReceiver, type HttpsReceiver, webhookReceiverEnv } from "../support/https-receiver.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import { subscribeWebhook } from "../support/webhook-subscriptions.js";

// Private targets are NOT allowed here (the production setting): the host names below resolve
// through a stub (ContainerOptions.lookupHost) that the test points at public or loopback
// addresses, while the receiver on loopback shows whether any request got through.
let t: TestApp;
let tenant: ProvisionedTenant;
let receiver: HttpsReceiver;
let answer: LookupAddress[];
const lookups: string[] = [];
const publicAddress = { address: "93.184.216.34", family: 4 };
const loopback = { address: "127.0.0.1", family: 4 };
let counter = 0;

beforeAll(async () => {
  // Its certificate is valid for the names below: without the guard, a request would get through.
  receiver = await startHttpsReceiver("/hooks", ["hooks.rebind.test", "hooks.mixed.test"]);
  t = await createTestApp({
    env: webhookReceiverEnv(receiver, { allowPrivate: false, timeoutMs: 1000 }),
    lookupHost: (hostname) => {
      lookups.push(hostname);
      return Promise.resolve(answer);
    },
  });
  tenant = await provisionTenant(t);
});
beforeEach(() => {
  answer = [publicAddress];
  lookups.length = 0;
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

/** A subscription to `host` on the receiver's port, registered while `host` resolves to a public address. */
async function subscribeAt(host: string) {
  const url = `https://${host}:${new URL(receiver.url).port}/hooks`;
  return subscribeWebhook(t, tenant.token, `guard-${counter++}`, url);
}

describe("issue 22: the address guard at delivery (rules/contract §5, DNS rebinding)", () => {
  it("a host name that resolves to loopback by the time of delivery is refused: the attempt says `address`, no request reaches the receiver", async () => {
    const hook = await subscribeAt("hooks.rebind.test");
    expect(lookups).toEqual(["hooks.rebind.test"]);
    answer = [loopback];
    await hook.change("mallory");
    await t.drainJobs();
    // Resolved again at delivery, and the loopback answer refused before any connection.
    expect(lookups).toEqual(["hooks.rebind.test", "hooks.rebind.test"]);
    expect(receiver.received).toHaveLength(0);
    expect((await hook.attempts()).map((a) => [a.attempt, a.status, a.errorClass])).toEqual([
      [1, null, "address"],
    ]);
    expect((await hook.read()).failingSince).not.toBeNull();
  });

  it("every resolved address is checked: a public address beside a loopback one is refused too", async () => {
    const hook = await subscribeAt("hooks.mixed.test");
    answer = [publicAddress, { address: "::ffff:127.0.0.1", family: 6 }];
    await hook.change("trudy");
    await t.drainJobs();
    expect(receiver.received).toHaveLength(0);
    expect((await hook.attempts()).map((a) => a.errorClass)).toEqual(["address"]);
  });

  it("registration refuses a host that resolves to loopback already (400, pointer /url)", async () => {
    const { appId } = await subscribeAt("hooks.first.test");
    answer = [loopback];
    const binding = await t.inject({
      method: "POST",
      url: "/api/v1/admin/service-bindings",
      headers: { authorization: `Bearer ${tenant.token}` },
      payload: { appId, audience: "aud-second", requiredCapabilities: [] },
    });
    expect(binding.statusCode).toBe(201);
    const refused = await t.inject({
      method: "POST",
      url: "/api/v1/admin/webhook-subscriptions",
      headers: { authorization: `Bearer ${tenant.token}` },
      payload: { bindingId: binding.json<{ id: string }>().id, url: "https://hooks.loopback.test/hooks" },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: "ERR_VALIDATION", errors: [{ pointer: "/url" }] });
  });
});

describe("issue 38 defect 3: port 0 and the 6to4 relay range", () => {
  /** Registers `url` for a new app while its host resolves to `resolvesTo`. */
  async function register(url: string, resolvesTo: LookupAddress[] = [publicAddress]) {
    const { appId } = await subscribeAt("hooks.first.test");
    answer = resolvesTo;
    const binding = await t.inject({
      method: "POST",
      url: "/api/v1/admin/service-bindings",
      headers: { authorization: `Bearer ${tenant.token}` },
      payload: { appId, audience: `aud-${appId}-2`, requiredCapabilities: [] },
    });
    return t.inject({
      method: "POST",
      url: "/api/v1/admin/webhook-subscriptions",
      headers: { authorization: `Bearer ${tenant.token}` },
      payload: { bindingId: binding.json<{ id: string }>().id, url },
    });
  }

  it("registration refuses a URL on port 0 (400, pointer /url)", async () => {
    const refused = await register("https://hooks.port.test:0/hooks");
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: "ERR_VALIDATION", errors: [{ pointer: "/url" }] });
  });

  it("registration refuses a host that resolves into 192.88.99.0/24 (400, pointer /url)", async () => {
    expect((await register("https://hooks.public.test/hooks")).statusCode).toBe(201);
    const refused = await register("https://hooks.relay.test/hooks", [{ address: "192.88.99.1", family: 4 }]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: "ERR_VALIDATION", errors: [{ pointer: "/url" }] });
  });
});

describe("issue 38: HANSE_WEBHOOK_ALLOW_PRIVATE=1 is said, not silent", () => {
  const warnings = (logs: string[]) =>
    logs
      .map((line) => JSON.parse(line) as { level: number; msg: string; setting?: string })
      .filter((line) => line.level === 40 && line.setting === "HANSE_WEBHOOK_ALLOW_PRIVATE");
  const gauge = async (app: TestApp) =>
    /^hanse_outbound_guard_disabled (\d+)$/m.exec(await app.container.metrics.scrape())?.[1];

  it("logs one warning naming the setting at start and sets hanse_outbound_guard_disabled to 1", async () => {
    const open = await createTestApp({ env: { HANSE_WEBHOOK_ALLOW_PRIVATE: "1" } });
    try {
      const [warning, ...more] = warnings(open.logs);
      expect(more).toEqual([]);
      expect(warning?.msg).toMatch(/HANSE_WEBHOOK_ALLOW_PRIVATE=1.*private, loopback/);
      expect(await gauge(open)).toBe("1");
    } finally {
      await open.close();
    }
  });

  it("says nothing with the guard on, and the gauge is 0", async () => {
    expect(warnings(t.logs)).toEqual([]);
    expect(await gauge(t)).toBe("0");
  });
});
