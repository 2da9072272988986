// remote mode: in-process only: a webhook receiver's settings of its own, and reads its database
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";
import { sql } from "kysely";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  allPartnerScopes,
  partnerUrl,
  setupPartner,
  upload,
  validOrders,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import {
  createEntitlementApp,
  provisionTenant,
  systemToken,
  type ProvisionedTenant,
} from "../support/fixtures.js";
import { startHttpsReceiver, webhookReceiverEnv, type HttpsReceiver } from "../support/https-receiver.js";
import { signedHeaders, type ServiceCredential } from "../support/service-signer.js";
import { adminHeaders, bearer, bootstrapToken, createTestApp, type TestApp } from "../support/test-app.js";
import { waitUntil } from "../support/wait-until.js";
import { subscribeWebhook } from "../support/webhook-subscriptions.js";

/*
 * Issue 33 item 4, rules/contract §7 "Offboarding": revoking a service binding, deleting a webhook
 * subscription, suspending and resuming a tenant, each over HTTP, with what stops and what comes
 * back. Across two processes: offboarding-multiprocess.test.ts.
 */
let t: TestApp;
let receiver: HttpsReceiver;
let counter = 0;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await createTestApp({ env: webhookReceiverEnv(receiver) });
});
beforeEach(() => {
  receiver.answer = () => ({ status: 204 });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const introspect = (credential: ServiceCredential) => {
  const target = "/api/v1/public/v1/app-entitlements/service/introspect/alice";
  return t.inject({ method: "GET", url: target, headers: signedHeaders(credential, "GET", target) });
};
const as = (token: string, method: "GET" | "POST" | "DELETE", url: string, payload?: object) =>
  t.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const code = (response: { json: () => unknown }) => (response.json() as { code?: string }).code;
const unknownId = "0190a0a0-0000-7000-8000-000000000000";
/** `method path` as the tenant's administrator is 404 ERR_NOT_FOUND. */
async function expectNotFound(token: string, method: "POST" | "DELETE", path: string) {
  const response = await as(token, method, path);
  expect(response.statusCode).toBe(404);
  expect(code(response)).toBe("ERR_NOT_FOUND");
}

/** Audit records of `type` in `tenantId`'s trail, as stored. */
const auditRecords = async (tenantId: string, type: string) =>
  (
    await sql<{ principal_id: string | null; data: Record<string, unknown> | string }>`
      SELECT principal_id, data FROM audit_events WHERE tenant_id = ${tenantId}::uuid AND type = ${type}`.execute(
      t.container.database.db,
    )
  ).rows.map((row) => ({
    principalId: row.principal_id,
    data: (typeof row.data === "string" ? JSON.parse(row.data) : row.data) as Record<string, unknown>,
  }));

const whoamiOf = async (token: string) =>
  (await as(token, "GET", "/api/v1/profile/whoami")).json<{
    principal: { id: string };
    tenant: { id: string };
  }>();

/** A subscription of a new app's binding to the receiver at `path`, with what it received. */
async function hookAt(tenant: ProvisionedTenant, path: string) {
  const hook = await subscribeWebhook(
    t,
    tenant.token,
    `off-${counter++}`,
    receiver.url.replace("/hooks", path),
  );
  return { ...hook, received: () => receiver.received.filter((r) => r.url === path) };
}

describe("rules/contract §7 offboarding: revoke a service binding", () => {
  it("every credential of the binding, the previous one of a rotation's overlap included, is refused from the answer on with 401 ERR_SERVICE_AUTH_INVALID_CREDENTIAL; once recorded, nothing deleted", async () => {
    const tenant = await provisionTenant(t);
    const app = await createEntitlementApp(t, tenant.token, { appId: `revoke-${counter++}` });
    const rotated = await as(tenant.token, "POST", `/api/v1/admin/service-bindings/${app.binding.id}/rotate`);
    expect(rotated.statusCode).toBe(200);
    const previous = { credentialId: app.binding.credentialId, secret: app.binding.secret };
    const current = rotated.json<ServiceCredential>();
    expect((await introspect(previous)).statusCode).toBe(200);
    expect((await introspect(current)).statusCode).toBe(200);
    await app.set("alice");
    const grantTarget = "/api/v1/public/v1/app-entitlements/service/grants/alice";
    const issued = await t.inject({
      method: "POST",
      url: grantTarget,
      headers: signedHeaders(current, "POST", grantTarget),
    });
    expect(issued.statusCode, issued.body).toBe(200);
    const { grant } = issued.json<{ grant: string }>();

    const revoked = await as(tenant.token, "POST", `/api/v1/admin/service-bindings/${app.binding.id}/revoke`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    const body = revoked.json<Record<string, unknown>>();
    expect(body).toMatchObject({ id: app.binding.id, appId: app.appId, status: "revoked" });
    expect(body.revokedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(body).not.toHaveProperty("secret");

    for (const credential of [previous, current]) {
      const refused = await introspect(credential);
      expect(refused.statusCode).toBe(401);
      expect(code(refused)).toBe("ERR_SERVICE_AUTH_INVALID_CREDENTIAL");
    }
    // A grant issued before stays valid until it expires: it still verifies against the JWKS.
    const keys = (
      await t.inject({ method: "GET", url: "/api/v1/public/v1/app-entitlements/jwks" })
    ).json<JSONWebKeySet>();
    const { payload } = await jwtVerify(grant, createLocalJWKSet(keys), { audience: app.binding.audience });
    expect(payload).toMatchObject({ sub: "alice", binding: app.binding.id });
    const refusedGrant = await t.inject({
      method: "POST",
      url: grantTarget,
      headers: signedHeaders(current, "POST", grantTarget),
    });
    expect(code(refusedGrant)).toBe("ERR_SERVICE_AUTH_INVALID_CREDENTIAL");
    // Decision (docs/decisions.md): revoking twice is 200 with the binding as it is, one record.
    const again = await as(tenant.token, "POST", `/api/v1/admin/service-bindings/${app.binding.id}/revoke`);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(body);
    const read = await as(tenant.token, "GET", `/api/v1/admin/service-bindings/${app.binding.id}`);
    expect(read.json()).toMatchObject({ status: "revoked", revokedAt: body.revokedAt });
    const rotateRevoked = await as(
      tenant.token,
      "POST",
      `/api/v1/admin/service-bindings/${app.binding.id}/rotate`,
    );
    expect(rotateRevoked.statusCode).toBe(409);
    expect(code(rotateRevoked)).toBe("ERR_CONFLICT");

    const records = await auditRecords(tenant.id, "service_binding.revoked");
    expect(records).toEqual([
      { principalId: (await whoamiOf(tenant.token)).principal.id, data: { bindingId: app.binding.id } },
    ]);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM service_credentials
      WHERE binding_id = ${app.binding.id}::uuid`.execute(t.container.database.db);
    expect(rows[0]?.n).toBe(2);
  });

  it("its webhook subscriptions stop: a delivery pending at the revocation never starts, nor one of a later change, and the subscription cannot be enabled again", async () => {
    const tenant = await provisionTenant(t);
    const hook = await hookAt(tenant, "/revoked-binding");
    await hook.change("alice");
    await t.drainJobs();
    expect(hook.received()).toHaveLength(1);
    const { bindingId } = await hook.read().then((s) => s as unknown as { bindingId: string });
    await hook.change("bob");
    const revoked = await as(tenant.token, "POST", `/api/v1/admin/service-bindings/${bindingId}/revoke`);
    expect(revoked.statusCode).toBe(200);
    await hook.change("carol");
    await t.drainJobs();
    expect(hook.received()).toHaveLength(1);
    expect(await hook.read()).toMatchObject({ enabled: false, disabledReason: "service binding revoked" });
    const enable = await as(
      tenant.token,
      "POST",
      `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}/enable`,
    );
    expect(enable.statusCode).toBe(409);
    expect(code(enable)).toBe("ERR_CONFLICT");
    const create = await as(tenant.token, "POST", "/api/v1/admin/webhook-subscriptions", {
      bindingId,
      url: receiver.url,
    });
    expect(create.statusCode).toBe(400);
  });

  it("an unknown binding is 404; revoking needs admin:write", async () => {
    const tenant = await provisionTenant(t);
    await expectNotFound(tenant.token, "POST", `/api/v1/admin/service-bindings/${unknownId}/revoke`);
    const app = await createEntitlementApp(t, tenant.token, { appId: `scope-${counter++}` });
    const reader = (
      await as(tenant.token, "POST", "/api/v1/admin/access-tokens", {
        name: "reader",
        scopes: ["admin:read"],
      })
    ).json<{ token: string }>().token;
    const forbidden = await as(reader, "POST", `/api/v1/admin/service-bindings/${app.binding.id}/revoke`);
    expect(forbidden.statusCode).toBe(403);
    expect((await introspect(app.binding)).statusCode).toBe(200);
  });
});

describe("rules/contract §7 offboarding: delete a webhook subscription", () => {
  it("204, no delivery of it starts after the answer (a pending one included), 404 from then on; recorded once, its attempts kept", async () => {
    const tenant = await provisionTenant(t);
    const hook = await hookAt(tenant, "/deleted");
    await hook.change("alice");
    await t.drainJobs();
    expect(hook.received()).toHaveLength(1);
    await hook.change("bob");
    const href = `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}`;
    const deleted = await as(tenant.token, "DELETE", href);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe("");
    await hook.change("carol");
    await t.drainJobs();
    expect(hook.received()).toHaveLength(1);

    for (const [method, url] of [
      ["GET", href],
      ["DELETE", href],
      ["GET", `${href}/attempts`],
      ["POST", `${href}/enable`],
    ] as const) {
      const gone = await as(tenant.token, method, url);
      expect(gone.statusCode, `${method} ${url}`).toBe(404);
    }
    const list = await as(tenant.token, "GET", "/api/v1/admin/webhook-subscriptions?limit=100");
    expect(list.json<{ items: { id: string }[] }>().items.map((s) => s.id)).not.toContain(
      hook.subscription.id,
    );
    expect(await auditRecords(tenant.id, "webhook_subscription.deleted")).toEqual([
      {
        principalId: (await whoamiOf(tenant.token)).principal.id,
        data: { subscriptionId: hook.subscription.id },
      },
    ]);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_attempts
      WHERE subscription_id = ${hook.subscription.id}::uuid`.execute(t.container.database.db);
    expect(rows[0]?.n).toBe(1);
  });

  it("a delivery in flight at the deletion may finish, but it is not retried: its failure starts nothing more", async () => {
    const tenant = await provisionTenant(t);
    const hook = await hookAt(tenant, "/in-flight");
    let release: (status: number) => void = () => undefined;
    const answered = new Promise<number>((resolve) => (release = resolve));
    receiver.answer = async (request) =>
      request.url === "/in-flight" ? { status: await answered } : { status: 204 };
    await hook.change("alice");
    const draining = t.drainJobs();
    await waitUntil(async () => hook.received().length === 1, { what: "the delivery in flight" });
    const deleted = await as(
      tenant.token,
      "DELETE",
      `/api/v1/admin/webhook-subscriptions/${hook.subscription.id}`,
    );
    expect(deleted.statusCode).toBe(204);
    release(500);
    await draining;
    await t.drainJobs();
    expect(hook.received()).toHaveLength(1);
    const { rows } = await sql<{ state: string }>`SELECT state FROM webhook_deliveries
      WHERE subscription_id = ${hook.subscription.id}::uuid`.execute(t.container.database.db);
    expect(rows.map((row) => row.state)).toEqual(["cancelled"]);
  });

  it("an unknown subscription is 404", async () => {
    const tenant = await provisionTenant(t);
    await expectNotFound(tenant.token, "DELETE", `/api/v1/admin/webhook-subscriptions/${unknownId}`);
  });
});

describe("rules/contract §7 offboarding: suspend and resume a tenant", () => {
  it("a suspended tenant's session, access token, partner API key and service credential are refused as if unknown; its deliveries and webhooks wait; nothing is deleted; resuming brings everything back", async () => {
    const tenant = await provisionTenant(t);
    const accessToken = (
      await as(tenant.token, "POST", "/api/v1/admin/access-tokens", {
        name: "script",
        scopes: ["admin:read", "workflows:transition"],
      })
    ).json<{ token: string }>().token;
    const partner = await setupPartner(t, tenant.token, { scopes: allPartnerScopes });
    const app = await createEntitlementApp(t, tenant.token, { appId: `suspend-${counter++}` });
    const hook = await hookAt(tenant, "/suspended");
    const mailbox = () => as(partner.token, "GET", partnerUrl(partner.connectionId, "/mailbox"));
    const transition = (token: string, key: string) =>
      t.inject({
        method: "POST",
        url: "/api/v1/workflows/transition-requests",
        headers: { ...bearer(token), "x-tenant-id": tenant.id, "x-idempotency-key": key },
        payload: {
          entity: "product",
          entityId: unknownId,
          transition: "submit",
        },
      });
    /** Each credential's answer on a route of its area: session, access token, partner key, service credential. */
    const answers = async (round: string) => [
      await as(tenant.token, "GET", "/api/v1/profile/whoami"),
      await as(accessToken, "GET", "/api/v1/admin/service-bindings"),
      await mailbox(),
      await upload(t, partner, validOrders(`S${round}`), `suspended-${round}`),
      await transition(accessToken, `transition-${round}`),
      await introspect(app.binding),
    ];
    for (const response of await answers("before"))
      expect(response.statusCode, response.body).toBeLessThan(300);

    // Waiting work at the suspension: a webhook delivery and an upload to process.
    await hook.change("alice");
    const accepted = await upload(t, partner, validOrders("WAIT"), "waiting-upload");
    expect(accepted.statusCode).toBe(202);

    const suspended = await t.inject({
      method: "POST",
      url: `/api/v1/system/tenants/${tenant.id}/suspend`,
      headers: adminHeaders,
    });
    expect(suspended.statusCode, suspended.body).toBe(200);
    expect(suspended.json()).toMatchObject({
      id: tenant.id,
      slug: tenant.slug,
      type: "customer",
      status: "suspended",
    });

    // "As if unknown": the same status and code as a credential that never existed.
    const unknown = await Promise.all([
      as("hanse_st_unknown", "GET", "/api/v1/profile/whoami"),
      as("hanse_at_unknown", "GET", "/api/v1/admin/service-bindings"),
      as(`${partner.apiKeyId}:wrong-secret`, "GET", partnerUrl(partner.connectionId, "/mailbox")),
      upload(t, { ...partner, token: `${partner.apiKeyId}:wrong-secret` }, validOrders("U"), "unknown-up"),
      transition("hanse_at_unknown", "transition-unknown"),
      introspect({ credentialId: app.binding.credentialId, secret: "not the secret" }),
    ]);
    const rows = async () =>
      (
        await sql<{
          n: number;
        }>`SELECT (SELECT count(*) FROM exchange_uploads WHERE tenant_id = ${tenant.id}::uuid)
          + (SELECT count(*) FROM workflow_transition_requests WHERE tenant_id = ${tenant.id}::uuid) AS n`.execute(
          t.container.database.db,
        )
      ).rows[0]?.n;
    const before = await rows();
    const refused = await answers("during");
    // The accept statements check the credential in their own SQL: a refused one writes nothing.
    expect(await rows()).toBe(before);
    expect(refused.map((r) => [r.statusCode, code(r)])).toEqual([
      [401, "ERR_UNAUTHENTICATED"],
      [401, "ERR_UNAUTHENTICATED"],
      [401, "ERR_B2B_EXCHANGE_UNAUTHENTICATED"],
      [401, "ERR_B2B_EXCHANGE_UNAUTHENTICATED"],
      [401, "ERR_UNAUTHENTICATED"],
      [401, "ERR_SERVICE_AUTH_INVALID_CREDENTIAL"],
    ]);
    // The service credential's wrong secret is a signature error; its refusal is the unknown one's.
    expect(unknown.slice(0, 5).map((r) => [r.statusCode, code(r)])).toEqual(
      refused.slice(0, 5).map((r) => [r.statusCode, code(r)]),
    );
    const signIn = await t.inject({
      method: "POST",
      url: "/api/v1/auth/sessions",
      payload: { tenant: tenant.slug, email: tenant.email, password: tenant.password },
    });
    expect(signIn.statusCode).toBe(401);

    // Its jobs wait: no webhook delivery starts, the upload is not processed.
    await t.drainJobs();
    expect(hook.received()).toHaveLength(0);
    const waiting = async () =>
      (
        await sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs
          WHERE tenant_id = ${tenant.id}::uuid AND state = 'queued'`.execute(t.container.database.db)
      ).rows[0]?.n ?? 0;
    expect(await waiting()).toBeGreaterThanOrEqual(2);
    // Waiting on purpose is not overdue: the oldest-due gauge leaves a suspended tenant's jobs out.
    const metrics = await t.container.metrics.scrape();
    for (const job of ["entitlements.deliver-webhooks", "exchange.process-upload"]) {
      expect(metrics).toMatch(new RegExp(`^hanse_jobs_oldest_due_age_seconds\\{job="${job}"\\} 0$`, "m"));
    }
    const read = await t.inject({
      method: "GET",
      url: `/api/v1/system/tenants/${tenant.id}`,
      headers: adminHeaders,
    });
    expect(read.json()).toMatchObject({ status: "suspended" });
    const twice = await t.inject({
      method: "POST",
      url: `/api/v1/system/tenants/${tenant.id}/suspend`,
      headers: adminHeaders,
    });
    expect(twice.statusCode).toBe(200);
    expect(twice.json()).toEqual(suspended.json());

    const resumed = await t.inject({
      method: "POST",
      url: `/api/v1/system/tenants/${tenant.id}/resume`,
      headers: adminHeaders,
    });
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json()).toMatchObject({ id: tenant.id, status: "active" });
    for (const response of await answers("after"))
      expect(response.statusCode, response.body).toBeLessThan(300);
    await t.drainJobs();
    expect(hook.received()).toHaveLength(1);
    expect(await waiting()).toBe(0);
    const entries = (await mailbox()).json<{ items: unknown[] }>().items;
    expect(entries.length).toBeGreaterThan(0);

    const systemId = (await whoamiOf(bootstrapToken)).tenant.id;
    const operator = (await whoamiOf(bootstrapToken)).principal.id;
    const mine = (records: Awaited<ReturnType<typeof auditRecords>>) =>
      records.filter((r) => r.data.tenantId === tenant.id);
    expect(mine(await auditRecords(systemId, "tenant.suspended"))).toEqual([
      { principalId: operator, data: { tenantId: tenant.id } },
    ]);
    expect(mine(await auditRecords(systemId, "tenant.resumed"))).toEqual([
      { principalId: operator, data: { tenantId: tenant.id } },
    ]);
  });

  it("suspending the system tenant is 409 ERR_CONFLICT; an unknown tenant 404; tenants:write is required; a customer tenant's operator gets 404", async () => {
    const systemId = (await whoamiOf(bootstrapToken)).tenant.id;
    const system = await t.inject({
      method: "POST",
      url: `/api/v1/system/tenants/${systemId}/suspend`,
      headers: adminHeaders,
    });
    expect(system.statusCode).toBe(409);
    expect(code(system)).toBe("ERR_CONFLICT");
    expect(system.headers["content-type"]).toMatch(/^application\/problem\+json/);
    for (const act of ["suspend", "resume"]) {
      await expectNotFound(bootstrapToken, "POST", `/api/v1/system/tenants/${unknownId}/${act}`);
    }
    const tenant = await provisionTenant(t);
    const reader = await systemToken(t, ["tenants:read"]);
    const forbidden = await as(reader, "POST", `/api/v1/system/tenants/${tenant.id}/suspend`);
    expect(forbidden.statusCode).toBe(403);
    const customer = await as(tenant.token, "POST", `/api/v1/system/tenants/${tenant.id}/suspend`);
    expect(customer.statusCode).toBe(404);
    // A tenant neither active nor suspended cannot be resumed; an active one resumes as it is.
    const resumeActive = await t.inject({
      method: "POST",
      url: `/api/v1/system/tenants/${tenant.id}/resume`,
      headers: adminHeaders,
    });
    expect(resumeActive.statusCode).toBe(200);
    expect(resumeActive.json()).toMatchObject({ status: "active" });
    expect((await as(tenant.token, "GET", "/api/v1/profile/whoami")).statusCode).toBe(200);
  });
});
