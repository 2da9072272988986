// remote mode: in-process only: a fake clock and a lifecycle adapter receiver's settings of its own
import { createHmac } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import {
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedRequest,
  webhookReceiverEnv,
} from "../support/https-receiver.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";

/** A local HTTPS receiver standing in for a PIM system (a fake at the process edge). */
let receiver: HttpsReceiver;
let receiverUrl: string;
let behaviour: (received: ReceivedRequest) => Promise<number> = () => Promise.resolve(204);
let received: ReceivedRequest[];

let t: TestApp;
const clock = createManualClock(new Date());

beforeAll(async () => {
  receiver = await startHttpsReceiver("/pim/lifecycle");
  receiver.answer = async (request) => ({ status: await behaviour(request) });
  receiverUrl = receiver.url;
  received = receiver.received;
  t = await createTestApp({
    clock,
    env: webhookReceiverEnv(receiver),
  });
});

afterAll(async () => {
  await t.close();
  await receiver.close();
});

async function setUp(adapter: { timeoutMs?: number; maxAttempts?: number } = {}) {
  const tenant = await provisionTenant(t);
  const created = await t.inject({
    method: "POST",
    url: "/api/v1/admin/lifecycle-adapters",
    headers: bearer(tenant.token),
    payload: { kind: "product", url: receiverUrl, ...adapter },
  });
  expect(created.statusCode, created.body).toBe(201);
  const entity = await t.inject({
    method: "POST",
    url: "/api/v1/admin/entities",
    headers: bearer(tenant.token),
    payload: { kind: "product", attributes: { name: "Guarded" } },
  });
  return {
    tenant,
    secret: created.json<{ secret: string }>().secret,
    entityId: entity.json<{ id: string }>().id,
  };
}

async function request(tenant: ProvisionedTenant, entityId: string, transition: string, payload?: object) {
  const response = await t.inject({
    method: "POST",
    url: "/api/v1/workflows/transition-requests",
    headers: {
      ...bearer(tenant.token),
      "x-tenant-id": tenant.id,
      "x-idempotency-key": `adapter-${entityId}-${transition}-${received.length}`,
    },
    payload: { entity: "product", entityId, transition, ...(payload ? { payload } : {}) },
  });
  expect(response.statusCode).toBe(202);
  return response.json<{ requestId: string; statusUrl: string }>();
}

const status = async (tenant: ProvisionedTenant, statusUrl: string) =>
  (await t.inject({ method: "GET", url: statusUrl, headers: bearer(tenant.token) })).json<{
    status: string;
    error: { code: string; message: string } | null;
    result: unknown;
  }>();

const entityOf = async (tenant: ProvisionedTenant, id: string) =>
  (
    await t.inject({ method: "GET", url: `/api/v1/admin/entities/${id}`, headers: bearer(tenant.token) })
  ).json<{
    state: string;
    version: number;
  }>();

describe("PIM lifecycle adapters", () => {
  it("registration: HTTPS only, no credentials in the URL, a known kind, one per kind; the secret is shown once", async () => {
    const tenant = await provisionTenant(t);
    const post = (payload: object) =>
      t.inject({
        method: "POST",
        url: "/api/v1/admin/lifecycle-adapters",
        headers: bearer(tenant.token),
        payload,
      });
    for (const url of [
      "http://127.0.0.1/x",
      "https://user:pw@127.0.0.1/x",
      "https://no-such-host.invalid/x",
    ]) {
      const response = await post({ kind: "product", url });
      expect(response.statusCode, url).toBe(400);
      expect(response.json<{ errors: { pointer: string }[] }>().errors.map((e) => e.pointer)).toContain(
        "/url",
      );
      expect(response.body).not.toContain("pw@");
    }
    expect((await post({ kind: "unknown", url: receiverUrl })).statusCode).toBe(400);
    const created = await post({ kind: "product", url: receiverUrl });
    expect(created.statusCode).toBe(201);
    const adapter = created.json<{ id: string; secret: string; timeoutMs: number; maxAttempts: number }>();
    expect(adapter.secret).toMatch(/^whsec_/);
    expect(adapter).toMatchObject({ timeoutMs: 5000, maxAttempts: 5 });
    expect((await post({ kind: "product", url: receiverUrl })).statusCode).toBe(409);
    const read = await t.inject({
      method: "GET",
      url: `/api/v1/admin/lifecycle-adapters/${adapter.id}`,
      headers: bearer(tenant.token),
    });
    expect(read.statusCode).toBe(200);
    expect(read.json()).not.toHaveProperty("secret");
    expect(read.body).not.toContain(adapter.secret.slice(6));
  });

  it("the entity changes while the adapter is consulted: the request fails with ERR_WORKFLOW_CONFLICT and applies nothing", async () => {
    const { tenant, entityId } = await setUp();
    // Another writer moves the entity on while the adapter deliberates, then the adapter says yes.
    behaviour = async () => {
      await sql`UPDATE workflow_entities SET version = 7 WHERE id = ${entityId}`.execute(
        t.container.database.db,
      );
      return 204;
    };
    const { statusUrl } = await request(tenant, entityId, "submit");
    await t.drainJobs();
    const outcome = await status(tenant, statusUrl);
    expect(outcome).toMatchObject({
      status: "failed",
      result: null,
      error: { code: "ERR_WORKFLOW_CONFLICT" },
    });
    expect(await entityOf(tenant, entityId)).toMatchObject({ state: "draft", version: 7 });
    behaviour = () => Promise.resolve(204);
  });

  it("2xx lets the transition proceed; the call is signed like Standard Webhooks and carries the transition", async () => {
    behaviour = () => Promise.resolve(204);
    const { tenant, secret, entityId } = await setUp();
    const before = received.length;
    const { requestId, statusUrl } = await request(tenant, entityId, "submit", { reason: "ready" });
    await t.drainJobs();
    expect(await status(tenant, statusUrl)).toMatchObject({
      status: "succeeded",
      result: { fromState: "draft", toState: "in_review" },
    });
    expect(received.length).toBe(before + 1);
    const call = received.at(-1);
    if (!call) throw new Error("no call");
    expect(call.headers["webhook-id"]).toBe(requestId);
    const timestamp = String(call.headers["webhook-timestamp"]);
    const expected = createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
      .update(`${requestId}.${timestamp}.${call.body}`)
      .digest("base64");
    expect(call.headers["webhook-signature"]).toBe(`v1,${expected}`);
    expect(JSON.parse(call.body)).toMatchObject({
      type: "workflow.transition.requested",
      requestId,
      tenantId: tenant.id,
      entity: { id: entityId, kind: "product", state: "draft", version: 1 },
      transition: "submit",
      fromState: "draft",
      toState: "in_review",
      payload: { reason: "ready" },
    });
    expect(await entityOf(tenant, entityId)).toMatchObject({ state: "in_review", version: 2 });
  });

  it("adapter veto: a 4xx ends the request failed with ERR_WORKFLOW_ADAPTER_REJECTED and leaves the entity alone", async () => {
    behaviour = () => Promise.resolve(422);
    const { tenant, entityId } = await setUp();
    const { statusUrl } = await request(tenant, entityId, "submit");
    await t.drainJobs();
    expect(await status(tenant, statusUrl)).toMatchObject({
      status: "failed",
      error: { code: "ERR_WORKFLOW_ADAPTER_REJECTED" },
    });
    expect(await entityOf(tenant, entityId)).toMatchObject({ state: "draft", version: 1 });
  });

  it("a disallowed transition fails without calling the adapter", async () => {
    behaviour = () => Promise.resolve(204);
    const { tenant, entityId } = await setUp();
    const before = received.length;
    const { statusUrl } = await request(tenant, entityId, "publish");
    await t.drainJobs();
    expect((await status(tenant, statusUrl)).error?.code).toBe("ERR_WORKFLOW_TRANSITION_NOT_ALLOWED");
    expect(received.length).toBe(before);
  });

  it("adapter down: 5xx is retried with backoff, then ends failed with ERR_WORKFLOW_ADAPTER_UNAVAILABLE", async () => {
    behaviour = () => Promise.resolve(503);
    const { tenant, entityId } = await setUp({ maxAttempts: 3 });
    const before = received.length;
    const { requestId, statusUrl } = await request(tenant, entityId, "submit");
    await t.drainJobs();
    expect((await status(tenant, statusUrl)).status).toBe("processing");
    clock.advance(1000);
    await t.drainJobs();
    expect((await status(tenant, statusUrl)).status).toBe("processing");
    clock.advance(2000);
    await t.drainJobs();
    expect(await status(tenant, statusUrl)).toMatchObject({
      status: "failed",
      error: { code: "ERR_WORKFLOW_ADAPTER_UNAVAILABLE" },
    });
    const calls = received.slice(before);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.headers["webhook-id"]))).toEqual(new Set([requestId]));
    expect(await entityOf(tenant, entityId)).toMatchObject({ state: "draft", version: 1 });
  });

  it("adapter down, then back: a later attempt succeeds", async () => {
    let calls = 0;
    behaviour = () => Promise.resolve(calls++ === 0 ? 500 : 200);
    const { tenant, entityId } = await setUp({ maxAttempts: 3 });
    const { statusUrl } = await request(tenant, entityId, "submit");
    await t.drainJobs();
    clock.advance(1000);
    await t.drainJobs();
    expect((await status(tenant, statusUrl)).status).toBe("succeeded");
    expect(await entityOf(tenant, entityId)).toMatchObject({ state: "in_review", version: 2 });
  });

  it("adapter slow: a time-out counts as unavailable", async () => {
    behaviour = () =>
      new Promise((resolve) =>
        setTimeout(() => {
          resolve(204);
        }, 1500),
      );
    const { tenant, entityId } = await setUp({ timeoutMs: 200, maxAttempts: 1 });
    const { statusUrl } = await request(tenant, entityId, "submit");
    await t.drainJobs();
    const document = await status(tenant, statusUrl);
    expect(document).toMatchObject({ status: "failed", error: { code: "ERR_WORKFLOW_ADAPTER_UNAVAILABLE" } });
    expect(document.error?.message).toContain("timed out");
    expect(await entityOf(tenant, entityId)).toMatchObject({ state: "draft", version: 1 });
  });

  it("an adapter request over 64 KiB is not sent; the request fails", async () => {
    behaviour = () => Promise.resolve(204);
    const { tenant, entityId } = await setUp();
    const before = received.length;
    const { statusUrl } = await request(tenant, entityId, "submit", { blob: "x".repeat(70 * 1024) });
    await t.drainJobs();
    expect((await status(tenant, statusUrl)).error?.code).toBe("ERR_WORKFLOW_ADAPTER_REJECTED");
    expect(received.length).toBe(before);
  });
});
