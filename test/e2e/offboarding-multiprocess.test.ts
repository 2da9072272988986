import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partnerUrl, setupPartner } from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { overHttp } from "../support/http-injector.js";
import { startHttpsReceiver, webhookReceiverEnv, type HttpsReceiver } from "../support/https-receiver.js";
import { createTenantAcross } from "../support/multiprocess-tenant.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { signedHeaders, type ServiceCredential } from "../support/service-signer.js";
import { createTestDatabase, onPostgres, type TestDatabase } from "../support/test-database.js";
import { waitUntil } from "../support/wait-until.js";

/*
 * Issue 33 item 4 (rules/contract §7, offboarding) across processes: two real server processes (API and
 * worker each) on one PostgreSQL database. A revocation, a deletion or a suspension answered by
 * one process holds in the other at once: nothing of it is kept in a process.
 */
const token = "offboarding-multiprocess-bootstrap-token-0123456789";
const password = "correct horse battery staple";
let counter = 0;

describe.skipIf(!onPostgres)("offboarding across processes (PostgreSQL)", () => {
  let db: TestDatabase;
  let dir: string;
  let receiver: HttpsReceiver;
  const servers: ServerProcess[] = [];
  let a: ServerProcess;
  let b: ServerProcess;
  let tenant: { slug: string; email: string; token: string };
  let tenantId: string;

  const start = (name: string) =>
    startServerProcess({
      DATABASE_URL: db.url,
      HOST: "127.0.0.1",
      HANSE_BOOTSTRAP_TOKEN: token,
      HANSE_DATA_DIR: join(dir, name),
      HANSE_JOB_POLL_MS: "50",
      ...webhookReceiverEnv(receiver),
    }).then((server) => {
      servers.push(server);
      return server;
    });

  const call = async (server: ServerProcess, bearer: string, method: string, path: string, body?: object) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body ? { "content-type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
  };
  const introspect = async (server: ServerProcess, credential: ServiceCredential) => {
    const target = "/api/v1/public/v1/app-entitlements/service/introspect/alice";
    const response = await fetch(`${server.url}${target}`, {
      headers: signedHeaders(credential, "GET", target),
    });
    return { status: response.status, code: ((await response.json()) as { code?: string }).code };
  };
  /** An app and a binding of it, made through `server`. */
  async function newBinding(server: ServerProcess) {
    const appId = `mp-${counter++}`;
    expect(
      (
        await call(server, tenant.token, "POST", "/api/v1/admin/apps", {
          id: appId,
          name: appId,
          capabilities: ["use"],
        })
      ).status,
    ).toBe(201);
    const binding = await call(server, tenant.token, "POST", "/api/v1/admin/service-bindings", {
      appId,
      audience: `aud-${appId}`,
      requiredCapabilities: [],
    });
    expect(binding.status).toBe(201);
    return { appId, ...(binding.body as { id: string; credentialId: string; secret: string }) };
  }
  /** A new binding's subscription to the receiver at a path of its own, made through `server`. */
  async function newSubscription(server: ServerProcess) {
    const binding = await newBinding(server);
    const path = `/mp-${counter++}`;
    const created = await call(server, tenant.token, "POST", "/api/v1/admin/webhook-subscriptions", {
      bindingId: binding.id,
      url: receiver.url.replace("/hooks", path),
    });
    expect(created.status).toBe(201);
    const received = () => receiver.received.filter((r) => r.url === path).length;
    return { binding, created, path, received };
  }
  const change = async (server: ServerProcess, appId: string, actorId: string) => {
    expect(
      (
        await call(server, tenant.token, "PUT", `/api/v1/admin/apps/${appId}/entitlements/${actorId}`, {
          status: "active",
          plan: "basic",
          capabilities: ["use"],
        })
      ).status,
    ).toBe(200);
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    dir = await mkdtemp(join(tmpdir(), "hanse-offboarding-mp-"));
    receiver = await startHttpsReceiver();
    // One after the other: the first start creates the system tenant.
    a = await start("a");
    b = await start("b");
    tenant = await createTenantAcross(a, b, token, { name: "Offboarding", prefix: "offboard", password });
    tenantId = ((await call(b, tenant.token, "GET", "/api/v1/profile/whoami")).body.tenant as { id: string })
      .id;
  }, 240_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await db.drop();
    await rm(dir, { recursive: true, force: true });
    await receiver.close();
  });

  it("rules/contract §7: a binding revoked through one process is refused by the other at once, both credentials of a rotation's overlap", async () => {
    const binding = await newBinding(a);
    const rotated = await call(
      b,
      tenant.token,
      "POST",
      `/api/v1/admin/service-bindings/${binding.id}/rotate`,
    );
    expect(rotated.status).toBe(200);
    const credentials = [binding, rotated.body as unknown as ServiceCredential];
    for (const credential of credentials) {
      expect((await introspect(a, credential)).status).toBe(200);
      expect((await introspect(b, credential)).status).toBe(200);
    }
    const revoked = await call(
      a,
      tenant.token,
      "POST",
      `/api/v1/admin/service-bindings/${binding.id}/revoke`,
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe("revoked");
    for (const credential of credentials) {
      expect(await introspect(b, credential)).toEqual({
        status: 401,
        code: "ERR_SERVICE_AUTH_INVALID_CREDENTIAL",
      });
      expect(await introspect(a, credential)).toEqual({
        status: 401,
        code: "ERR_SERVICE_AUTH_INVALID_CREDENTIAL",
      });
    }
  });

  it("rules/contract §7: after a subscription is deleted through one process, no process's worker starts a delivery of it", async () => {
    const { binding, created, received } = await newSubscription(a);
    await change(b, binding.appId, "alice");
    await waitUntil(async () => received() === 1, { what: "the first delivery", timeoutMs: 30_000 });
    const deleted = await call(
      b,
      tenant.token,
      "DELETE",
      `/api/v1/admin/webhook-subscriptions/${created.body.id as string}`,
    );
    expect(deleted.status).toBe(204);
    await change(a, binding.appId, "bob");
    await change(b, binding.appId, "carol");
    // Both workers poll every 50 ms; a second is twenty polls each.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(received()).toBe(1);
    expect(
      (await call(a, tenant.token, "GET", `/api/v1/admin/webhook-subscriptions/${created.body.id as string}`))
        .status,
    ).toBe(404);
  });

  it("rules/contract §7: a tenant suspended through one process has every credential refused by the other at once; resumed through the other, they work again in both", async () => {
    const binding = await newBinding(a);
    const accessToken = (
      await call(a, tenant.token, "POST", "/api/v1/admin/access-tokens", {
        name: "mp",
        scopes: ["admin:read"],
      })
    ).body.token as string;
    const partner = await setupPartner(
      overHttp(() => a.url),
      tenant.token,
    );
    const answers = async (server: ServerProcess) => [
      (await call(server, tenant.token, "GET", "/api/v1/profile/whoami")).status,
      (await call(server, accessToken, "GET", "/api/v1/admin/service-bindings")).status,
      (await call(server, partner.token, "GET", partnerUrl(partner.connectionId, "/mailbox"))).status,
      (await introspect(server, binding)).status,
    ];
    expect(await answers(a)).toEqual([200, 200, 200, 200]);
    expect(await answers(b)).toEqual([200, 200, 200, 200]);

    const suspended = await call(a, token, "POST", `/api/v1/system/tenants/${tenantId}/suspend`);
    expect(suspended.status).toBe(200);
    expect(suspended.body.status).toBe("suspended");
    expect(await answers(b)).toEqual([401, 401, 401, 401]);
    expect(await answers(a)).toEqual([401, 401, 401, 401]);

    const resumed = await call(b, token, "POST", `/api/v1/system/tenants/${tenantId}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe("active");
    expect(await answers(a)).toEqual([200, 200, 200, 200]);
    expect(await answers(b)).toEqual([200, 200, 200, 200]);
  });

  it("rules/contract §7: a suspended tenant's webhooks wait in every process's worker and are delivered after the resumption", async () => {
    const { binding, path, received } = await newSubscription(b);
    // The first attempt fails: its retry is due about 5 s later (the first delay of the schedule).
    const answer = receiver.answer;
    receiver.answer = (request) =>
      request.url === path && received() === 1 ? { status: 500 } : answer(request);
    await change(a, binding.appId, "alice");
    await waitUntil(async () => received() === 1, { what: "the first attempt", timeoutMs: 30_000 });
    expect((await call(b, token, "POST", `/api/v1/system/tenants/${tenantId}/suspend`)).status).toBe(200);
    // Past the retry's time (5 s ± 10 %): neither process's worker starts it while suspended.
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    expect(received()).toBe(1);
    expect((await call(a, token, "POST", `/api/v1/system/tenants/${tenantId}/resume`)).status).toBe(200);
    await waitUntil(async () => received() === 2, {
      what: "the retry after the resumption",
      timeoutMs: 30_000,
    });
    receiver.answer = answer;
  });
});
