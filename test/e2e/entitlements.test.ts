// remote mode: in-process only: HANSE_PUBLIC_URL and HANSE_GRANT_TTL_SECONDS of its own (the grants' issuer and lifetime)
import { createPublicKey, verify as verifySignature } from "node:crypto";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose";
import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectSessionRouteDenials } from "../support/auth-cases.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { signedHeaders, type ServiceCredential } from "../support/service-signer.js";
import { adminHeaders, bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { onPostgres } from "../support/test-database.js";

const base = "/api/v1/public/v1/app-entitlements";
let t: TestApp;
let tenant: ProvisionedTenant;
let other: ProvisionedTenant;
let binding: ServiceCredential & { id: string };
let appCounter = 0;

const admin = (method: InjectOptions["method"], url: string, payload?: unknown, who = tenant) =>
  t.inject({
    method,
    url,
    headers: bearer(who.token),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

async function createApp(who = tenant, capabilities = ["read", "write", "export"]) {
  const id = `app-${appCounter++}`;
  const response = await admin("POST", "/api/v1/admin/apps", { id, name: `App ${id}`, capabilities }, who);
  expect(response.statusCode).toBe(201);
  return id;
}

async function createBinding(appId: string, requiredCapabilities: string[] = ["read"], who = tenant) {
  const response = await admin(
    "POST",
    "/api/v1/admin/service-bindings",
    { appId, audience: `svc-${appId}-${appCounter++}`, requiredCapabilities },
    who,
  );
  expect(response.statusCode).toBe(201);
  return response.json<ServiceCredential & { id: string; audience: string }>();
}

const setEntitlement = (appId: string, actorId: string, body: Record<string, unknown>, who = tenant) =>
  admin("PUT", `/api/v1/admin/apps/${appId}/entitlements/${encodeURIComponent(actorId)}`, body, who);

const active = { status: "active", plan: "pro", capabilities: ["read", "write"] };

function signed(
  credential: ServiceCredential,
  method: "GET" | "POST",
  target: string,
  options: { body?: string; timestamp?: number; nonce?: string; headers?: Record<string, string> } = {},
) {
  return t.inject({
    method,
    url: target,
    headers: {
      ...signedHeaders(credential, method, target, options),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { payload: options.body }),
  });
}

const problemCode = (response: { json: () => unknown }) => (response.json() as { code: string }).code;

beforeAll(async () => {
  t = await createTestApp({
    env: { HANSE_PUBLIC_URL: "https://hanse.example", HANSE_GRANT_TTL_SECONDS: "120" },
  });
  tenant = await provisionTenant(t);
  other = await provisionTenant(t);
  const appId = await createApp();
  binding = await createBinding(appId);
});
afterAll(async () => {
  await t.close();
});

describe("discovery and provisioning (rules/contract §3)", () => {
  it("rules/contract §3: discovery reports entitlements.service and {issuer, jwksUri}", async () => {
    const body = (await t.inject({ method: "GET", url: "/api/v1/meta/discovery" })).json<{
      capabilities: string[];
      entitlements: { issuer: string; jwksUri: string };
    }>();
    expect(body.capabilities).toContain("entitlements.service");
    expect(body.entitlements).toEqual({
      issuer: "https://hanse.example",
      jwksUri: "https://hanse.example/api/v1/public/v1/app-entitlements/jwks",
    });
  });

  it("rules/contract §3: provisioning does the tenant's entitlement state and signing material", async () => {
    const status = await t.inject({
      method: "GET",
      url: `/api/v1/system/tenants/${tenant.id}/provisioning`,
      headers: adminHeaders,
    });
    const steps = status.json<{ steps: { name: string; state: string }[] }>().steps;
    expect(steps).toEqual(
      expect.arrayContaining([
        { name: "entitlement-state", state: "succeeded" },
        { name: "signing-keys", state: "succeeded" },
      ]),
    );
    const keys = await t.inject({
      method: "GET",
      url: `/api/v1/system/tenants/${tenant.id}/signing-keys`,
      headers: adminHeaders,
    });
    expect(keys.statusCode).toBe(200);
    expect(keys.json<{ items: { state: string }[] }>().items.map((k) => k.state)).toEqual([
      "signing",
      "next",
    ]);
  });

  it("publishes the admin collections as crud entrypoints with metaHref", async () => {
    const list = (await admin("GET", "/api/v1/profile/entrypoints")).json<{
      entrypoints: {
        id: string;
        kind: string;
        metaHref?: string;
        actions: { id: string; method: string }[];
      }[];
    }>();
    for (const id of [
      "admin.apps",
      "admin.entitlements",
      "admin.serviceBindings",
      "admin.webhookSubscriptions",
    ]) {
      const entry = list.entrypoints.find((e) => e.id === id);
      expect(entry?.kind, id).toBe("crud");
      const meta = await admin("GET", entry?.metaHref ?? "");
      expect(meta.statusCode).toBe(200);
      expect(meta.json<{ schemas: { create: unknown } }>().schemas.create).toBeTruthy();
    }
    const entitlements = list.entrypoints.find((e) => e.id === "admin.entitlements");
    expect(entitlements?.actions.map((a) => `${a.id} ${a.method}`)).toEqual([
      "list GET",
      "read GET",
      "update PUT",
      "history GET",
    ]);
  });
});

describe("apps and entitlements administration (rules/contract §2a, §5)", () => {
  it("rules/contract §2a: an app id already used in the tenant is 409 ERR_CONFLICT; another tenant may use it", async () => {
    const id = await createApp();
    const again = await admin("POST", "/api/v1/admin/apps", { id, name: "x", capabilities: [] });
    expect(again.statusCode).toBe(409);
    expect(problemCode(again)).toBe("ERR_CONFLICT");
    const elsewhere = await admin("POST", "/api/v1/admin/apps", { id, name: "x", capabilities: [] }, other);
    expect(elsewhere.statusCode).toBe(201);
    const read = await admin("GET", `/api/v1/admin/apps/${id}`);
    expect(read.json()).toMatchObject({ id, capabilities: ["read", "write", "export"] });
  });

  it("rules/contract §5: every change gets the next sequence of its (tenant, app), gap-free", async () => {
    const appId = await createApp();
    const first = await setEntitlement(appId, "user-1", active);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({
      appId,
      actorId: "user-1",
      status: "active",
      plan: "pro",
      sequence: 1,
      validUntil: null,
    });
    const second = await setEntitlement(appId, "user-2", {
      ...active,
      validUntil: "2099-01-01T00:00:00.000Z",
    });
    expect(second.json<{ sequence: number }>().sequence).toBe(2);
    const third = await setEntitlement(appId, "user-1", { ...active, status: "suspended" });
    expect(third.json<{ sequence: number }>().sequence).toBe(3);
    const otherApp = await createApp();
    expect((await setEntitlement(otherApp, "user-1", active)).json<{ sequence: number }>().sequence).toBe(1);
    const read = await admin("GET", `/api/v1/admin/apps/${appId}/entitlements/user-1`);
    expect(read.json()).toMatchObject({ status: "suspended", sequence: 3 });
    const list = await admin("GET", `/api/v1/admin/apps/${appId}/entitlements?limit=1`);
    const page = list.json<{
      items: { actorId: string }[];
      meta: { hasMore: boolean; nextCursor: string };
    }>();
    expect(page.items.map((i) => i.actorId)).toEqual(["user-1"]);
    const next = await admin(
      "GET",
      `/api/v1/admin/apps/${appId}/entitlements?limit=1&cursor=${page.meta.nextCursor}`,
    );
    expect(next.json<{ items: { actorId: string }[] }>().items.map((i) => i.actorId)).toEqual(["user-2"]);
  });

  it("bad input: capabilities not in the app, validUntil before validFrom, an actor id over 128 characters — 400 and nothing changed", async () => {
    const appId = await createApp();
    const foreign = await setEntitlement(appId, "a", { ...active, capabilities: ["read", "fly"] });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({
      code: "ERR_VALIDATION",
      errors: [{ pointer: "/capabilities/1" }],
    });
    const backwards = await setEntitlement(appId, "a", {
      ...active,
      validFrom: "2030-01-01T00:00:00.000Z",
      validUntil: "2029-01-01T00:00:00.000Z",
    });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json()).toMatchObject({ code: "ERR_VALIDATION", errors: [{ pointer: "/validUntil" }] });
    const long = await setEntitlement(appId, "x".repeat(129), active);
    expect(long.statusCode).toBe(400);
    expect(problemCode(long)).toBe("ERR_VALIDATION");
    expect((await admin("GET", `/api/v1/admin/apps/${appId}/entitlements/a`)).statusCode).toBe(404);
    // No sequence was spent: the next change is 1.
    expect((await setEntitlement(appId, "a", active)).json<{ sequence: number }>().sequence).toBe(1);
  });

  it("an unknown app is 404, also for another tenant's app", async () => {
    const appId = await createApp();
    const foreign = await setEntitlement(appId, "a", active, other);
    expect(foreign.statusCode).toBe(404);
    expect((await admin("GET", `/api/v1/admin/apps/${appId}`, undefined, other)).statusCode).toBe(404);
  });

  it("a binding's read and its list entry name its newest credential (after a rotation, the new one)", async () => {
    const appId = await createApp();
    const created = await createBinding(appId);
    const rotated = (await admin("POST", `/api/v1/admin/service-bindings/${created.id}/rotate`)).json<{
      credentialId: string;
    }>();
    expect(rotated.credentialId).not.toBe(created.credentialId);
    const read = (await admin("GET", `/api/v1/admin/service-bindings/${created.id}`)).json<{
      credentialId: string;
    }>();
    expect(read.credentialId).toBe(rotated.credentialId);
    const listed: { id: string; credentialId: string }[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const page: { items: { id: string; credentialId: string }[]; meta: { nextCursor: string | null } } = (
        await admin("GET", `/api/v1/admin/service-bindings?limit=2${query}`)
      ).json();
      listed.push(...page.items);
      cursor = page.meta.nextCursor;
    } while (cursor);
    expect(listed.find((b) => b.id === created.id)?.credentialId).toBe(rotated.credentialId);
    expect(await admin("GET", "/api/v1/admin/service-bindings/not-a-uuid")).toMatchObject({
      statusCode: 404,
    });
  });

  it("every change and every credential issue and rotation is audited", async () => {
    const appId = await createApp();
    await setEntitlement(appId, "audited", active);
    const created = await createBinding(appId);
    await admin("POST", `/api/v1/admin/service-bindings/${created.id}/rotate`);
    const events = (await admin("GET", "/api/v1/admin/audit-events?limit=100")).json<{
      items: { type: string }[];
    }>();
    const types = events.items.map((e) => e.type);
    for (const type of [
      "app.created",
      "entitlement.changed",
      "service_binding.created",
      "service_binding.rotated",
    ]) {
      expect(types).toContain(type);
    }
  });
});

describe("admin routes refuse what they must (rules/contract §2a)", () => {
  it("every entitlement admin route: 401 without a session, 403 without admin:read / admin:write", async () => {
    const appId = await createApp();
    const routes = [
      {
        method: "POST" as const,
        url: "/api/v1/admin/apps",
        payload: { id: "x", name: "x", capabilities: [] },
        insufficientScopes: ["admin:read"],
      },
      { method: "GET" as const, url: "/api/v1/admin/apps", insufficientScopes: ["workflows:read"] },
      { method: "GET" as const, url: `/api/v1/admin/apps/${appId}`, insufficientScopes: ["workflows:read"] },
      {
        method: "PUT" as const,
        url: `/api/v1/admin/apps/${appId}/entitlements/a`,
        payload: active,
        insufficientScopes: ["admin:read"],
      },
      {
        method: "GET" as const,
        url: `/api/v1/admin/apps/${appId}/entitlements`,
        insufficientScopes: ["workflows:read"],
      },
      {
        method: "GET" as const,
        url: `/api/v1/admin/apps/${appId}/entitlements/a`,
        insufficientScopes: ["workflows:read"],
      },
      {
        method: "POST" as const,
        url: "/api/v1/admin/service-bindings",
        payload: { appId, audience: "a", requiredCapabilities: [] },
        insufficientScopes: ["admin:read"],
      },
      {
        method: "GET" as const,
        url: "/api/v1/admin/service-bindings",
        insufficientScopes: ["workflows:read"],
      },
      {
        method: "POST" as const,
        url: `/api/v1/admin/service-bindings/${binding.id}/rotate`,
        insufficientScopes: ["admin:read"],
      },
      {
        method: "POST" as const,
        url: "/api/v1/admin/webhook-subscriptions",
        payload: { bindingId: binding.id, url: "https://example.com" },
        insufficientScopes: ["admin:read"],
      },
      {
        method: "GET" as const,
        url: "/api/v1/admin/webhook-subscriptions",
        insufficientScopes: ["workflows:read"],
      },
      {
        method: "GET" as const,
        url: `/api/v1/system/tenants/${tenant.id}/signing-keys`,
        insufficientScopes: ["tenants:read"],
        systemOnly: true,
      },
      {
        method: "POST" as const,
        url: `/api/v1/system/tenants/${tenant.id}/signing-keys/rotate`,
        insufficientScopes: ["admin:read"],
        systemOnly: true,
      },
    ];
    for (const route of routes) await expectSessionRouteDenials(t, route);
    // Nothing was created by the refused requests.
    expect((await admin("GET", "/api/v1/admin/apps/x")).statusCode).toBe(404);
  });
});

describe("signed service requests (rules/contract §5)", () => {
  const target = () => `${base}/service/introspect/someone`;

  it("a correctly signed request is answered", async () => {
    const response = await signed(binding, "GET", target());
    expect(response.statusCode).toBe(200);
  });

  it("rules/contract §5: every missing or malformed header form is 401 ERR_SERVICE_AUTH_MISSING", async () => {
    const good = signedHeaders(binding, "GET", target());
    const variants: Record<string, string | undefined>[] = [
      { "x-platform-service-credential": undefined },
      { "x-platform-service-credential": "not-an-id" },
      { "x-platform-service-credential": binding.credentialId.toUpperCase() },
      { "x-platform-service-timestamp": undefined },
      { "x-platform-service-timestamp": "1700000000.5" },
      { "x-platform-service-timestamp": "soon" },
      { "x-platform-service-nonce": undefined },
      { "x-platform-service-nonce": "short-nonce" },
      { "x-platform-service-nonce": "not+base64url/characters==" },
      { "x-platform-service-signature": undefined },
      { "x-platform-service-signature": "AAAA" },
      { "x-platform-service-signature": "A".repeat(86) },
      { "x-platform-service-signature": "not base64url at all, not even close!!!!!!" },
    ];
    for (const variant of variants) {
      const headers: Record<string, string> = { ...good };
      for (const [name, value] of Object.entries(variant)) {
        if (value === undefined) Reflect.deleteProperty(headers, name);
        else headers[name] = value;
      }
      const response = await t.inject({ method: "GET", url: target(), headers });
      expect(response.statusCode, JSON.stringify(variant)).toBe(401);
      expect(problemCode(response), JSON.stringify(variant)).toBe("ERR_SERVICE_AUTH_MISSING");
      expect(response.headers["www-authenticate"]).toBeDefined();
    }
  });

  it("rules/contract §5: an unknown credential is ERR_SERVICE_AUTH_INVALID_CREDENTIAL", async () => {
    const response = await signed(
      { credentialId: `hanse_sc_${"0".repeat(32)}`, secret: "x" },
      "GET",
      target(),
    );
    expect(response.statusCode).toBe(401);
    expect(problemCode(response)).toBe("ERR_SERVICE_AUTH_INVALID_CREDENTIAL");
  });

  it("rules/contract §5: a timestamp more than 300 s off either way is ERR_SERVICE_AUTH_STALE_TIMESTAMP; within it passes", async () => {
    // Seconds, truncated, read just before each request: the server reads its clock a moment later
    // (seconds on a loaded machine), which moves a future timestamp towards it and a past one away.
    // So the future side gets three seconds of margin and the passing ones stay three inside.
    const now = () => Math.floor(Date.now() / 1000);
    for (const offset of [-301, 303]) {
      const response = await signed(binding, "GET", target(), { timestamp: now() + offset });
      expect(response.statusCode, `offset ${offset}`).toBe(401);
      expect(problemCode(response)).toBe("ERR_SERVICE_AUTH_STALE_TIMESTAMP");
    }
    for (const offset of [-297, 299]) {
      const response = await signed(binding, "GET", target(), { timestamp: now() + offset });
      expect(response.statusCode, `offset ${offset}`).toBe(200);
    }
  });

  it("rules/contract §5: a signature over another method, path, query, body or timestamp is ERR_SERVICE_AUTH_INVALID_SIGNATURE", async () => {
    const cases: { signedAs: Parameters<typeof signedHeaders>; sent: InjectOptions }[] = [
      { signedAs: [binding, "POST", target()], sent: { method: "GET", url: target() } },
      {
        signedAs: [binding, "GET", `${base}/service/introspect/another`],
        sent: { method: "GET", url: target() },
      },
      {
        signedAs: [binding, "GET", `${base}/service/changes?afterSequence=0&limit=5`],
        sent: { method: "GET", url: `${base}/service/changes?limit=5&afterSequence=0` },
      },
      {
        signedAs: [binding, "POST", `${base}/service/grants/someone`, { body: "{}" }],
        sent: { method: "POST", url: `${base}/service/grants/someone`, payload: '{"a":1}' },
      },
    ];
    for (const { signedAs, sent } of cases) {
      const response = await t.inject({
        ...sent,
        headers: { ...signedHeaders(...signedAs), "content-type": "application/json" },
      });
      expect(response.statusCode, JSON.stringify(sent)).toBe(401);
      expect(problemCode(response)).toBe("ERR_SERVICE_AUTH_INVALID_SIGNATURE");
    }
    const headers = signedHeaders(binding, "GET", target());
    headers["x-platform-service-timestamp"] = String(Number(headers["x-platform-service-timestamp"]) - 1);
    const retimed = await t.inject({ method: "GET", url: target(), headers });
    expect(problemCode(retimed)).toBe("ERR_SERVICE_AUTH_INVALID_SIGNATURE");
  });

  it("rules/contract §5: the signature covers the request target exactly as sent (+, %20, repeated parameters, UTF-8)", async () => {
    const appId = await createApp();
    const own = await createBinding(appId);
    await setEntitlement(appId, "jürgen müller+1", active);
    const raw = `${base}/service/introspect/j%C3%BCrgen%20m%C3%BCller%2B1`;
    const response = await signed(own, "GET", raw);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ actorId: "jürgen müller+1", entitled: true });
    const repeated = `${base}/service/changes?limit=2&afterSequence=0&limit=2`;
    expect((await signed(own, "GET", repeated)).statusCode).not.toBe(401);
  });

  it("rules/contract §5: a replayed nonce is ERR_SERVICE_AUTH_NONCE_REUSED", async () => {
    const headers = signedHeaders(binding, "GET", target());
    expect((await t.inject({ method: "GET", url: target(), headers })).statusCode).toBe(200);
    const replay = await t.inject({ method: "GET", url: target(), headers });
    expect(replay.statusCode).toBe(401);
    expect(problemCode(replay)).toBe("ERR_SERVICE_AUTH_NONCE_REUSED");
  });

  it("rules/contract §5 with concurrent requests (their lookups and nonces share statements): a nonce sent 10 times at once passes once, every other request answers for its own binding", async () => {
    const otherApp = await createApp();
    const second = await createBinding(otherApp);
    const replayed = signedHeaders(binding, "GET", target());
    // The fresh requests first: the first one's nonce statement runs alone, the replays queue
    // behind it and go together.
    const responses = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => signed(i % 2 ? binding : second, "GET", target())),
      ...Array.from({ length: 10 }, () => t.inject({ method: "GET", url: target(), headers: replayed })),
    ]);
    const same = responses.slice(10);
    expect(same.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const r of same.filter((r) => r.statusCode !== 200)) {
      expect(r.statusCode).toBe(401);
      expect(problemCode(r)).toBe("ERR_SERVICE_AUTH_NONCE_REUSED");
    }
    const ownApp = (await signed(binding, "GET", target())).json<{ appId: string }>().appId;
    responses.slice(0, 10).forEach((r, i) => {
      expect(r.statusCode).toBe(200);
      expect(r.json<{ appId: string }>().appId).toBe(i % 2 ? ownApp : otherApp);
    });
  });

  it("rules/contract §5: a rotated-out secret stays valid for the overlap, then is refused", async () => {
    const appId = await createApp();
    const first = await createBinding(appId);
    const rotated = await admin("POST", `/api/v1/admin/service-bindings/${first.id}/rotate`);
    expect(rotated.statusCode).toBe(200);
    const second = rotated.json<
      ServiceCredential & { previousCredentialId: string; previousValidUntil: string }
    >();
    expect(second.previousCredentialId).toBe(first.credentialId);
    expect(second.credentialId).not.toBe(first.credentialId);
    expect(Date.parse(second.previousValidUntil) - Date.now()).toBeGreaterThan(3500 * 1000);
    expect((await signed(first, "GET", target())).statusCode).toBe(200);
    expect((await signed(second, "GET", target())).statusCode).toBe(200);
    // The secret is shown once: reading the binding never shows it.
    const read = await admin("GET", `/api/v1/admin/service-bindings/${first.id}`);
    expect(read.json()).toMatchObject({ credentialId: second.credentialId });
    expect(read.body).not.toContain(second.secret);
  });

  it("a session token or partner key on a service route is refused as missing service auth", async () => {
    const response = await t.inject({ method: "GET", url: target(), headers: bearer(tenant.token) });
    expect(response.statusCode).toBe(401);
    expect(problemCode(response)).toBe("ERR_SERVICE_AUTH_MISSING");
  });

  it("a service credential on a session route is 401 ERR_UNAUTHENTICATED", async () => {
    const response = await t.inject({
      method: "GET",
      url: "/api/v1/profile/whoami",
      headers: signedHeaders(binding, "GET", "/api/v1/profile/whoami"),
    });
    expect(response.statusCode).toBe(401);
    expect(problemCode(response)).toBe("ERR_UNAUTHENTICATED");
  });
});

describe("introspection (rules/interface C, rules/contract §5)", () => {
  it("rules/contract §5: decides active, validity window and the binding's required capabilities", async () => {
    const appId = await createApp();
    const own = await createBinding(appId, ["write"]);
    await setEntitlement(appId, "ok", active);
    await setEntitlement(appId, "readonly", { ...active, capabilities: ["read"] });
    await setEntitlement(appId, "suspended", { ...active, status: "suspended" });
    await setEntitlement(appId, "expired", {
      ...active,
      validFrom: "2020-01-01T00:00:00.000Z",
      validUntil: "2021-01-01T00:00:00.000Z",
    });
    await setEntitlement(appId, "future", { ...active, validFrom: "2099-01-01T00:00:00.000Z" });
    const decide = async (actor: string) =>
      (await signed(own, "GET", `${base}/service/introspect/${actor}`)).json<Record<string, unknown>>();
    const ok = await decide("ok");
    expect(ok).toMatchObject({
      tenantId: tenant.id,
      appId,
      actorId: "ok",
      entitled: true,
      status: "active",
      plan: "pro",
    });
    expect(Object.keys(ok).sort()).toEqual(
      [
        "tenantId",
        "appId",
        "actorId",
        "entitled",
        "status",
        "plan",
        "capabilities",
        "validFrom",
        "validUntil",
        "sequence",
        "evaluatedAt",
      ].sort(),
    );
    for (const actor of ["readonly", "suspended", "expired", "future"]) {
      expect((await decide(actor)).entitled, actor).toBe(false);
    }
    expect(await decide("nobody")).toMatchObject({
      entitled: false,
      status: null,
      sequence: null,
      capabilities: [],
    });
  });

  it("another tenant's actor is unknown", async () => {
    const foreignApp = await createApp(other);
    await setEntitlement(foreignApp, "theirs", active, other);
    const response = await signed(binding, "GET", `${base}/service/introspect/theirs`);
    expect(response.json()).toMatchObject({ entitled: false, status: null });
  });
});

describe("snapshot and change feed (rules/interface C rules 1-2, rules/contract §5)", () => {
  it("rules/interface C rule 1: every snapshot page shows the state as of asOfSequence while writers continue", async () => {
    const appId = await createApp();
    const own = await createBinding(appId);
    for (const actor of ["a1", "a2", "a3", "a4", "a5"]) await setEntitlement(appId, actor, active);
    const first = (await signed(own, "GET", `${base}/service/snapshot?limit=2`)).json<{
      asOfSequence: number;
      items: { actorId: string; status: string }[];
      meta: { hasMore: boolean; nextCursor: string };
    }>();
    expect(first.asOfSequence).toBe(5);
    expect(first.items.map((i) => i.actorId)).toEqual(["a1", "a2"]);
    // Changes between pages: a3 suspended, a0 and a6 added.
    await setEntitlement(appId, "a3", { ...active, status: "suspended" });
    await setEntitlement(appId, "a0", active);
    await setEntitlement(appId, "a6", active);
    const seen: { actorId: string; status: string; sequence: number }[] = [...first.items] as never;
    let cursor: string | null = first.meta.nextCursor;
    while (cursor) {
      const page = await signed(
        own,
        "GET",
        `${base}/service/snapshot?limit=2&asOfSequence=5&cursor=${cursor}`,
      );
      expect(page.statusCode).toBe(200);
      const body = page.json<{
        asOfSequence: number;
        items: typeof seen;
        meta: { nextCursor: string | null };
      }>();
      expect(body.asOfSequence).toBe(5);
      seen.push(...body.items);
      cursor = body.meta.nextCursor;
    }
    expect(seen.map((i) => `${i.actorId}:${i.status}`)).toEqual([
      "a1:active",
      "a2:active",
      "a3:active",
      "a4:active",
      "a5:active",
    ]);
    expect(Math.max(...seen.map((i) => i.sequence))).toBeLessThanOrEqual(5);
    // Then the changes after 5 bring the projection up to date, in order.
    const changes = (await signed(own, "GET", `${base}/service/changes?afterSequence=5`)).json<{
      items: {
        sequence: number;
        actorId: string;
        type: string;
        eventId: string;
        entitlement: { status: string };
      }[];
      meta: { hasMore: boolean; lastSequence: number; latestSequence: number };
    }>();
    expect(changes.items.map((c) => `${c.sequence}:${c.actorId}:${c.entitlement.status}`)).toEqual([
      "6:a3:suspended",
      "7:a0:active",
      "8:a6:active",
    ]);
    expect(changes.items.every((c) => c.type === "entitlement.changed")).toBe(true);
    expect(changes.meta).toEqual({ hasMore: false, lastSequence: 8, latestSequence: 8 });
    const empty: unknown = (await signed(own, "GET", `${base}/service/changes?afterSequence=8`)).json();
    expect(empty).toEqual({ items: [], meta: { hasMore: false, lastSequence: 8, latestSequence: 8 } });
    const paged = (await signed(own, "GET", `${base}/service/changes?afterSequence=0&limit=3`)).json<{
      items: { sequence: number }[];
      meta: unknown;
    }>();
    expect(paged.items.map((c) => c.sequence)).toEqual([1, 2, 3]);
    expect(paged.meta).toEqual({ hasMore: true, lastSequence: 3, latestSequence: 8 });
  });

  it("rules/contract §5: a change (JSON made by the database) carries eventId, type, actorId, occurredAt and the entitlement exactly as GET shows it", async () => {
    const appId = await createApp();
    const own = await createBinding(appId);
    const validUntil = new Date(Date.now() + 86_400_000).toISOString();
    expect((await setEntitlement(appId, "shape", { ...active, validUntil })).statusCode).toBe(200);
    const stored = (await admin("GET", `/api/v1/admin/apps/${appId}/entitlements/shape`)).json<unknown>();
    const response = await signed(own, "GET", `${base}/service/changes?afterSequence=0`);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    const { items } = response.json<{ items: Record<string, unknown>[] }>();
    expect(items).toHaveLength(1);
    const [change] = items;
    expect(Object.keys(change ?? {}).sort()).toEqual([
      "actorId",
      "entitlement",
      "eventId",
      "occurredAt",
      "sequence",
      "type",
    ]);
    expect(change).toMatchObject({ sequence: 1, type: "entitlement.changed", actorId: "shape" });
    expect(change?.entitlement).toEqual(stored);
    expect(change?.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(change?.occurredAt).toBe((stored as { updatedAt: string }).updatedAt);
  });

  it("bad input: page 2 without or with another asOfSequence, a tampered cursor, limit 0 and 1001 — 400", async () => {
    const appId = await createApp();
    const own = await createBinding(appId);
    for (const actor of ["b1", "b2", "b3"]) await setEntitlement(appId, actor, active);
    const first = (await signed(own, "GET", `${base}/service/snapshot?limit=1`)).json<{
      meta: { nextCursor: string };
    }>();
    const cursor = first.meta.nextCursor;
    const bad = [
      `${base}/service/snapshot?limit=1&cursor=${cursor}`,
      `${base}/service/snapshot?limit=1&asOfSequence=2&cursor=${cursor}`,
      `${base}/service/snapshot?limit=1&asOfSequence=3&cursor=${cursor.slice(0, 4)}${cursor[4] === "x" ? "y" : "x"}${cursor.slice(5)}`,
      `${base}/service/snapshot?limit=0`,
      `${base}/service/snapshot?limit=1001`,
      `${base}/service/changes?afterSequence=0&limit=1001`,
      `${base}/service/changes?afterSequence=-1`,
      `${base}/service/changes?afterSequence=abc`,
      `${base}/service/changes?afterSequence=4`,
      `${base}/service/changes`,
    ];
    for (const target of bad) {
      const response = await signed(own, "GET", target);
      expect(response.statusCode, target).toBe(400);
      expect(problemCode(response), target).toBe("ERR_VALIDATION");
    }
    const ok = await signed(own, "GET", `${base}/service/snapshot?limit=1&asOfSequence=3&cursor=${cursor}`);
    expect(ok.statusCode).toBe(200);
  });

  it("a cursor of another binding's app is refused", async () => {
    const appA = await createApp();
    const appB = await createApp();
    const bindingA = await createBinding(appA);
    const bindingB = await createBinding(appB);
    for (const actor of ["c1", "c2"]) {
      await setEntitlement(appA, actor, active);
      await setEntitlement(appB, actor, active);
    }
    const first = (await signed(bindingA, "GET", `${base}/service/snapshot?limit=1`)).json<{
      asOfSequence: number;
      meta: { nextCursor: string };
    }>();
    const foreign = await signed(
      bindingB,
      "GET",
      `${base}/service/snapshot?limit=1&asOfSequence=${first.asOfSequence}&cursor=${first.meta.nextCursor}`,
    );
    expect(foreign.statusCode).toBe(400);
  });
});

describe("grants and JWKS (rules/interface C rule 3, rules/contract §5)", () => {
  const jwks = async () => {
    const response = await t.inject({ method: "GET", url: `${base}/jwks` });
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("public, max-age=300");
    return response.json<JSONWebKeySet>();
  };

  it("rules/contract §5: a grant is an EdDSA JWS with the contract's header and claims, verified against the JWKS", async () => {
    const appId = await createApp();
    const own = await createBinding(appId, ["read"]);
    await setEntitlement(appId, "granted", active);
    const response = await signed(own, "POST", `${base}/service/grants/granted`);
    expect(response.statusCode).toBe(200);
    const body = response.json<{ grant: string; expiresAt: string; keyId: string }>();
    const header = decodeProtectedHeader(body.grant);
    expect(header).toEqual({ alg: "EdDSA", kid: body.keyId, typ: "entitlement-grant+jwt" });
    const keySet = await jwks();
    for (const key of keySet.keys) {
      expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
      expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
    }
    const { payload } = await jwtVerify(body.grant, createLocalJWKSet(keySet), {
      issuer: "https://hanse.example",
      audience: own.audience,
      typ: "entitlement-grant+jwt",
    });
    expect(payload).toMatchObject({
      sub: "granted",
      tenant: tenant.id,
      app: appId,
      binding: own.id,
      capabilities: ["read", "write"],
      seq: 1,
    });
    const { exp = 0, iat = 0 } = payload;
    expect(exp - iat).toBe(120);
    expect(payload.nbf).toBe(payload.iat);
    expect(typeof payload.jti).toBe("string");
    expect(Date.parse(body.expiresAt)).toBe(exp * 1000);
    // The signature checks with node:crypto alone, too.
    const jwk = keySet.keys.find((k) => k.kid === body.keyId);
    const [h = "", p = "", s = ""] = body.grant.split(".");
    const ok = verifySignature(
      null,
      Buffer.from(`${h}.${p}`),
      createPublicKey({ key: jwk as never, format: "jwk" }),
      Buffer.from(s, "base64url"),
    );
    expect(ok).toBe(true);
  });

  it("rules/contract §5: not entitled (suspended, revoked, expired, unknown, missing capability) is 403 and no grant", async () => {
    const appId = await createApp();
    const own = await createBinding(appId, ["export"]);
    await setEntitlement(appId, "nocap", active);
    await setEntitlement(appId, "susp", { ...active, capabilities: ["export"], status: "suspended" });
    await setEntitlement(appId, "rev", { ...active, capabilities: ["export"], status: "revoked" });
    await setEntitlement(appId, "old", {
      ...active,
      capabilities: ["export"],
      validFrom: "2020-01-01T00:00:00.000Z",
      validUntil: "2020-02-01T00:00:00.000Z",
    });
    for (const actor of ["nocap", "susp", "rev", "old", "unknown"]) {
      const response = await signed(own, "POST", `${base}/service/grants/${actor}`);
      expect(response.statusCode, actor).toBe(403);
      expect(problemCode(response)).toBe("ERR_APP_ENTITLEMENT_NOT_ENTITLED");
      expect(response.body).not.toContain("eyJ");
    }
  });

  it("rules/interface C rule 3: a grant for another binding's audience is not accepted by that binding's verifier", async () => {
    const appId = await createApp();
    const mine = await createBinding(appId, ["read"]);
    const theirs = await createBinding(appId, ["read"]);
    await setEntitlement(appId, "someone", active);
    const { grant } = (await signed(mine, "POST", `${base}/service/grants/someone`)).json<{
      grant: string;
    }>();
    await expect(
      jwtVerify(grant, createLocalJWKSet(await jwks()), {
        issuer: "https://hanse.example",
        audience: theirs.audience,
      }),
    ).rejects.toThrow();
  });

  it("issue 21 item 6: rotation publishes the next key before it signs; withdrawal removes a key at once", async () => {
    const owner = await provisionTenant(t);
    const keysUrl = `/api/v1/system/tenants/${owner.id}/signing-keys`;
    const before = (await t.inject({ method: "GET", url: keysUrl, headers: adminHeaders })).json<{
      items: { kid: string; state: string }[];
    }>().items;
    const [signing = { kid: "" }, next = { kid: "" }] = before;
    const published = (await jwks()).keys.map((k) => k.kid);
    expect(published).toContain(signing.kid);
    expect(published).toContain(next.kid);
    // The next key was created just now: it signs only after the JWKS max-age.
    const rotated = await t.inject({ method: "POST", url: `${keysUrl}/rotate`, headers: adminHeaders });
    expect(rotated.statusCode).toBe(200);
    const { kid, activatesAt } = rotated.json<{ kid: string; activatesAt: string }>();
    expect(kid).toBe(next.kid);
    expect(Date.parse(activatesAt) - Date.now()).toBeGreaterThan(290 * 1000);
    const after = (await t.inject({ method: "GET", url: keysUrl, headers: adminHeaders })).json<{
      items: { kid: string; state: string }[];
    }>().items;
    expect(after.map((k) => k.state)).toEqual(["signing", "scheduled", "next"]);
    // Withdraw the signing key: the scheduled one signs now, the old one leaves the JWKS.
    const withdrawn = await t.inject({
      method: "POST",
      url: `${keysUrl}/${signing.kid}/withdraw`,
      headers: adminHeaders,
    });
    expect(withdrawn.statusCode).toBe(204);
    const states = (await t.inject({ method: "GET", url: keysUrl, headers: adminHeaders })).json<{
      items: { kid: string; state: string }[];
    }>().items;
    expect(states.map((k) => k.state)).toEqual(["withdrawn", "signing", "next"]);
    expect((await jwks()).keys.map((k) => k.kid)).not.toContain(signing.kid);
    // A customer tenant's administrator cannot rotate keys.
    const denied = await t.inject({ method: "POST", url: `${keysUrl}/rotate`, headers: bearer(owner.token) });
    expect(denied.statusCode).toBe(404);
  });
});

describe("webhook subscriptions (rules/contract §5)", () => {
  it("bad input: http:, userinfo, loopback, private, link-local, CGNAT, ULA, IPv4-mapped — 400 and nothing stored", async () => {
    const appId = await createApp();
    const own = await createBinding(appId);
    const urls = [
      "http://example.com/hook",
      "https://user:pass@example.com/hook",
      "https://127.0.0.1/hook",
      "https://10.1.2.3/hook",
      "https://192.168.1.1/hook",
      "https://169.254.169.254/latest",
      "https://100.64.0.1/hook",
      "https://[fd00::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://[::1]/hook",
      "https://localhost/hook",
    ];
    for (const url of urls) {
      const response = await admin("POST", "/api/v1/admin/webhook-subscriptions", { bindingId: own.id, url });
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toMatchObject({ code: "ERR_VALIDATION", errors: [{ pointer: "/url" }] });
      expect(response.body).not.toContain("pass@");
    }
    const list = await admin("GET", "/api/v1/admin/webhook-subscriptions");
    expect(list.json<{ items: unknown[] }>().items).toEqual([]);
  });
});

describe("logs (rules/contract §1)", () => {
  it("issue 21 item 3: warns at start-up on PostgreSQL when HANSE_SECRET_KEY is not set (not on the embedded database)", () => {
    const warned = t.logs.some((line) => line.includes("HANSE_SECRET_KEY is not set"));
    expect(warned).toBe(onPostgres);
  });

  it("a full flow logs no secret, signature, nonce or grant", async () => {
    const appId = await createApp();
    const own = await createBinding(appId);
    await setEntitlement(appId, "logged", active);
    const headers = signedHeaders(own, "POST", `${base}/service/grants/logged`);
    const grant = await t.inject({ method: "POST", url: `${base}/service/grants/logged`, headers });
    await t.inject({ method: "POST", url: `${base}/service/grants/logged`, headers });
    const text = t.logs.join("\n");
    expect(text).not.toContain(own.secret);
    expect(text).not.toContain(headers["x-platform-service-signature"]);
    expect(text).not.toContain(headers["x-platform-service-nonce"]);
    expect(text).not.toContain(grant.json<{ grant: string }>().grant);
    expect(text).not.toContain(binding.secret);
  });
});
