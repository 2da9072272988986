// remote mode: in-process only: a fake clock and HANSE_SIGNING_KEY_ROTATION_DAYS of its own
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EntitlementsModule } from "../../src/modules/entitlements/index.js";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { adminHeaders, bearer, createTestApp, type TestApp } from "../support/test-app.js";

const clock = createManualClock(new Date());
let t: TestApp;
let tenant: ProvisionedTenant;
let other: ProvisionedTenant;

const put = (who: ProvisionedTenant, url: string, payload: object, method: "PUT" | "POST" = "PUT") =>
  t.inject({ method, url, headers: bearer(who.token), payload });

beforeAll(async () => {
  t = await createTestApp({ clock, env: { HANSE_SIGNING_KEY_ROTATION_DAYS: "30" } });
  tenant = await provisionTenant(t);
  other = await provisionTenant(t);
  for (const who of [tenant, other]) {
    await put(who, "/api/v1/admin/apps", { id: "crm", name: "CRM", capabilities: ["read", "write"] }, "POST");
  }
  await put(tenant, "/api/v1/admin/apps/crm/entitlements/user-1", {
    status: "active",
    plan: "pro",
    capabilities: ["read"],
  });
});
afterAll(async () => {
  await t.close();
});

const entitlements = () => t.container.modules.find((m) => m.name === "entitlements") as EntitlementsModule;

describe("the native resolver (rules/interface C rule 4, issue 21 item 7)", () => {
  it("decides for code in the same process as introspection does, isolated by tenant", async () => {
    const module = entitlements();
    const resolve: EntitlementsModule["resolveEntitlement"] = (...args) => module.resolveEntitlement(...args);
    expect(await resolve(tenant.id, "crm", "user-1", ["read"])).toMatchObject({
      entitled: true,
      entitlement: { actorId: "user-1", plan: "pro", sequence: 1 },
    });
    expect(await resolve(tenant.id, "crm", "user-1", ["write"])).toMatchObject({
      entitled: false,
      reason: "missing-capabilities",
    });
    expect(await resolve(other.id, "crm", "user-1")).toEqual({
      entitled: false,
      reason: "unknown",
      entitlement: null,
    });
    expect(await resolve(tenant.id, "other-app", "user-1")).toMatchObject({
      entitled: false,
      reason: "unknown",
    });
  });
});

describe("bad input across tenants (issue 21)", () => {
  it("a webhook subscription or binding naming another tenant's binding or app is 400 and stores nothing", async () => {
    const binding = await put(
      other,
      "/api/v1/admin/service-bindings",
      { appId: "crm", audience: "theirs", requiredCapabilities: [] },
      "POST",
    );
    const foreignId = binding.json<{ id: string }>().id;
    const subscription = await put(
      tenant,
      "/api/v1/admin/webhook-subscriptions",
      { bindingId: foreignId, url: "https://example.com/hook" },
      "POST",
    );
    expect(subscription.statusCode).toBe(400);
    expect(subscription.json()).toMatchObject({
      code: "ERR_VALIDATION",
      errors: [{ pointer: "/bindingId" }],
    });
    const unknownApp = await put(
      tenant,
      "/api/v1/admin/service-bindings",
      { appId: "not-ours", audience: "a", requiredCapabilities: [] },
      "POST",
    );
    expect(unknownApp.statusCode).toBe(400);
    const list = await t.inject({
      method: "GET",
      url: "/api/v1/admin/webhook-subscriptions",
      headers: bearer(tenant.token),
    });
    expect(list.json<{ items: unknown[] }>().items).toEqual([]);
    const rotate = await t.inject({
      method: "POST",
      url: `/api/v1/admin/service-bindings/${foreignId}/rotate`,
      headers: bearer(tenant.token),
    });
    expect(rotate.statusCode).toBe(404);
  });
});

describe("scheduled key rotation (issue 21 item 6)", () => {
  it("a signing key older than HANSE_SIGNING_KEY_ROTATION_DAYS is rotated by the housekeeping job", async () => {
    const keysUrl = `/api/v1/system/tenants/${tenant.id}/signing-keys`;
    const states = async () =>
      (await t.inject({ method: "GET", url: keysUrl, headers: adminHeaders })).json<{
        items: { kid: string; state: string }[];
      }>().items;
    const before = await states();
    expect(before.map((k) => k.state)).toEqual(["signing", "next"]);
    const job = t.container.jobs.find((j) => j.name === "entitlements.housekeeping");
    const run = () =>
      job?.run({} as never, {
        jobId: "test",
        attempt: 1,
        maxAttempts: 1,
        signal: new AbortController().signal,
      });
    await run();
    expect((await states()).map((k) => k.state)).toEqual(["signing", "next"]);
    clock.advance(31 * 86_400_000);
    await run();
    const after = await states();
    // The next key was published long ago: it signs at once; the old one is retired, still published.
    expect(after.map((k) => k.state)).toEqual(["retired", "signing", "next"]);
    expect(after[1]?.kid).toBe(before[1]?.kid);
    const jwks = (await t.inject({ method: "GET", url: "/api/v1/public/v1/app-entitlements/jwks" })).json<{
      keys: { kid: string }[];
    }>();
    expect(jwks.keys.map((k) => k.kid)).toContain(before[0]?.kid);
  });
});
