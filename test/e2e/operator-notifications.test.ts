// remote mode: in-process only: a manual clock, a webhook receiver's settings and a one-attempt mailbox budget of its own
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sweepOverdueDeliveries } from "../../src/modules/exchange/index.js";
import type { ProcessingService } from "../../src/modules/exchange/processing/processing.service.js";
import * as exchange from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import {
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedRequest,
  webhookReceiverEnv,
} from "../support/https-receiver.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";

/*
 * Issue 34 item 4, rules/contract §8 "Operator notifications": a webhook subscription without
 * `bindingId` is a tenant's operator subscription to event types; its deliveries follow §5 (the
 * same machinery as a binding's) with the body {eventId, type, tenantId, occurredAt, subject}, and
 * each event is raised once, in the transaction of the state change, by performing the real act.
 */

// Behind real time: a test moves it by up to 301 s, and receivers check webhook-timestamp against
// their own clock (±5 min).
const behind = () => new Date(Date.now() - 240_000);
const clock = createManualClock(behind());
const subscriptions = "/api/v1/admin/webhook-subscriptions";
const allTypes = [
  "exchange.upload.rejected",
  "exchange.upload.failed",
  "exchange.delivery.overdue",
  "exchange.delivery.failed",
  "workflows.request.failed",
];
let t: TestApp;
let tenant: ProvisionedTenant;
let receiver: HttpsReceiver;
let n = 0;

const call = async (method: "GET" | "POST" | "PATCH", url: string, payload?: unknown) => {
  const r = await t.inject({
    method,
    url,
    headers: bearer(tenant.token),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  return { status: r.statusCode, body: r.json<Record<string, unknown>>(), raw: r.body };
};

interface OperatorSubscription {
  id: string;
  secret: string;
  eventTypes: string[];
  bindingId: null;
  received(): ReceivedRequest[];
}

/** An operator subscription of the receiver at a path of its own. */
async function subscribe(eventTypes: string[]): Promise<OperatorSubscription> {
  const path = `/ops-${n++}`;
  const r = await call("POST", subscriptions, { url: receiver.url.replace("/hooks", path), eventTypes });
  expect(r.status, r.raw).toBe(201);
  const body = r.body as unknown as OperatorSubscription;
  return { ...body, received: () => receiver.received.filter((q) => q.url === path) };
}

/** Verifies a delivery with an independent Standard Webhooks implementation (npm `standardwebhooks`). */
function verified(request: ReceivedRequest, secret: string) {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]),
  );
  return new Webhook(secret).verify(request.body, headers) as Record<string, unknown>;
}

/** The one event the subscription received, verified: its body's keys and content. */
function onlyEvent(hook: OperatorSubscription) {
  expect(hook.received()).toHaveLength(1);
  const payload = verified(hook.received()[0] as ReceivedRequest, hook.secret);
  expect(Object.keys(payload).sort()).toEqual(["eventId", "occurredAt", "subject", "tenantId", "type"]);
  expect(payload.tenantId).toBe(tenant.id);
  return payload as { type: string; eventId: string; subject: Record<string, string> };
}

const processing = () =>
  (t.container.modules.find((m) => m.name === "exchange") as unknown as { processing: ProcessingService })
    .processing;

/** An upload of `body` on `p`, processed by the worker. */
async function processed(p: exchange.PartnerSetup, body: string) {
  const r = await exchange.upload(t, p, body, `notify-${n++}`);
  expect(r.statusCode, r.body).toBe(202);
  await t.drainJobs();
  return r.json<{ uploadId: string }>().uploadId;
}

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await createTestApp({
    clock,
    env: { ...webhookReceiverEnv(receiver), HANSE_MAILBOX_MAX_ATTEMPTS: "1" },
  });
  tenant = await provisionTenant(t);
  // An access token: the tests move the clock past a session's lifetime.
  const r = await call("POST", "/api/v1/admin/access-tokens", {
    name: "operator notifications",
    scopes: ["admin:read", "admin:write", "workflows:transition", "workflows:read"],
  });
  tenant = { ...tenant, token: r.body.token as string };
}, 120_000);
beforeEach(() => {
  receiver.answer = () => ({ status: 204 });
  clock.set(behind());
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe("operator subscriptions (rules/contract §8)", () => {
  it("rules/contract §8: a subscription without bindingId is the tenant's operator subscription to its eventTypes; its secret is shown once", async () => {
    const hook = await subscribe(allTypes);
    expect(hook).toMatchObject({ bindingId: null, eventTypes: allTypes, enabled: true });
    expect(hook.secret).toMatch(/^whsec_/);
    const read = await call("GET", `${subscriptions}/${hook.id}`);
    expect(read.body).toMatchObject({ id: hook.id, bindingId: null, appId: null, eventTypes: allTypes });
    expect(read.raw).not.toContain(hook.secret);
  });

  it.each([
    [
      "an unknown event type",
      { eventTypes: ["exchange.upload.rejected", "exchange.upload.lost"] },
      "/eventTypes/1",
    ],
    ["an empty list", { eventTypes: [] }, "/eventTypes"],
    ["no event types and no binding", {}, "/eventTypes"],
    [
      "a repeated event type",
      { eventTypes: ["exchange.upload.failed", "exchange.upload.failed"] },
      "/eventTypes",
    ],
    [
      "event types with a binding",
      { bindingId: randomUUID(), eventTypes: ["exchange.upload.failed"] },
      "/eventTypes",
    ],
    ["an event type that is not a string", { eventTypes: [7] }, "/eventTypes/0"],
  ])(
    "rules/contract §8: %s is 400 ERR_VALIDATION at its pointer, nothing created",
    async (_name, body, pointer) => {
      const before = (await call("GET", `${subscriptions}?limit=100`)).body.items as unknown[];
      const r = await call("POST", subscriptions, { url: receiver.url, ...body });
      expect(r.status, r.raw).toBe(400);
      expect(r.body.code).toBe("ERR_VALIDATION");
      expect((r.body.errors as { pointer: string }[]).map((e) => e.pointer)).toContain(pointer);
      const after = (await call("GET", `${subscriptions}?limit=100`)).body.items as unknown[];
      expect(after).toHaveLength(before.length);
    },
  );

  it("rules/contract §8: an operator subscription's URL passes the same SSRF checks (HTTPS only)", async () => {
    const r = await call("POST", subscriptions, {
      url: "http://ops.example.com/hooks",
      eventTypes: ["exchange.upload.failed"],
    });
    expect(r.status, r.raw).toBe(400);
    expect((r.body.errors as { pointer: string }[])[0]?.pointer).toBe("/url");
  });
});

describe("operator events, each raised once by the real act (rules/contract §8)", () => {
  it("rules/contract §8: exchange.upload.rejected: a rejected interchange is received once, with uploadId and connectionId and no payload bytes; a subscription without the type gets nothing", async () => {
    const hook = await subscribe(["exchange.upload.rejected"]);
    const other = await subscribe(["exchange.upload.failed", "exchange.delivery.overdue"]);
    const p = await exchange.setupPartner(t, tenant.token);
    const uploadId = await processed(p, exchange.rejectedOrders(`RJ${n}`));
    expect((await call("GET", `/api/v1/admin/exchange-uploads/${uploadId}`)).body.status).toBe("rejected");
    const event = onlyEvent(hook);
    expect(event).toMatchObject({
      type: "exchange.upload.rejected",
      subject: { uploadId, connectionId: p.connectionId },
    });
    expect(Object.keys(event.subject).sort()).toEqual(["connectionId", "uploadId"]);
    expect(hook.received()[0]?.body).not.toMatch(/UNB|UNH|BGM/);
    expect(other.received()).toHaveLength(0);
    // A processed upload raises nothing.
    await processed(p, exchange.validOrders(`OK${n}`));
    await t.drainJobs();
    expect(hook.received()).toHaveLength(1);
  });

  it("rules/contract §8: exchange.upload.failed: an upload whose processing budget is spent is received once", async () => {
    const hook = await subscribe(["exchange.upload.failed"]);
    const p = await exchange.setupPartner(t, tenant.token);
    const r = await exchange.upload(t, p, exchange.validOrders(`FL${n}`), `notify-${n++}`);
    const { uploadId } = r.json<{ uploadId: string }>();
    // What the processing job's onDead does when its attempt budget is spent.
    await processing().failUpload(tenant.id, uploadId, new Error("boom"));
    await processing().failUpload(tenant.id, uploadId, new Error("boom again"));
    await t.drainJobs();
    expect(onlyEvent(hook)).toMatchObject({
      type: "exchange.upload.failed",
      subject: { uploadId, connectionId: p.connectionId },
    });
  });

  it("rules/contract §8: exchange.delivery.failed: a delivery whose attempts are spent is received once, with deliveryAttemptId", async () => {
    const hook = await subscribe(["exchange.delivery.failed"]);
    const p = await exchange.setupPartner(t, tenant.token);
    const uploadId = await processed(p, exchange.validOrders(`DF${n}`));
    const [entry] = (await exchange.listMailbox(t, p)).items;
    const deliveryAttemptId = entry?.deliveryAttemptId ?? "";
    expect((await exchange.claim(t, p, deliveryAttemptId)).statusCode).toBe(200);
    clock.advance(301_000);
    await exchange.listMailbox(t, p);
    await exchange.listMailbox(t, p);
    await t.drainJobs();
    expect((await call("GET", `/api/v1/admin/exchange-deliveries/${deliveryAttemptId}`)).body.status).toBe(
      "failed",
    );
    expect(onlyEvent(hook)).toMatchObject({
      type: "exchange.delivery.failed",
      subject: { deliveryAttemptId, connectionId: p.connectionId, uploadId },
    });
  });

  it("rules/contract §8: exchange.delivery.overdue: the sweep marking a delivery overdue raises it once, whatever the number of sweeps", async () => {
    const hook = await subscribe(["exchange.delivery.overdue"]);
    const p = await exchange.setupPartner(t, tenant.token);
    const patched = await call("PATCH", `/api/v1/admin/connections/${p.connectionId}`, {
      collectionDeadlineSeconds: 60,
    });
    expect(patched.status, patched.raw).toBe(200);
    const uploadId = await processed(p, exchange.validOrders(`OD${n}`));
    const [entry] = (await exchange.listMailbox(t, p)).items;
    const deliveryAttemptId = entry?.deliveryAttemptId ?? "";
    clock.advance(61_000);
    const db = t.container.database.db;
    await Promise.all([sweepOverdueDeliveries(db, clock.now()), sweepOverdueDeliveries(db, clock.now())]);
    await sweepOverdueDeliveries(db, clock.now());
    await t.drainJobs();
    expect(onlyEvent(hook)).toMatchObject({
      type: "exchange.delivery.overdue",
      subject: { deliveryAttemptId, connectionId: p.connectionId, uploadId },
    });
  });

  it("rules/contract §8: workflows.request.failed: a transition request that ends failed is received once, with requestId", async () => {
    const hook = await subscribe(["workflows.request.failed"]);
    const r = await t.inject({
      method: "POST",
      url: "/api/v1/workflows/transition-requests",
      headers: { ...bearer(tenant.token), "x-tenant-id": tenant.id, "x-idempotency-key": `wf-${n++}` },
      payload: { entity: "product", entityId: randomUUID(), transition: "submit" },
    });
    expect(r.statusCode, r.body).toBe(202);
    const { requestId } = r.json<{ requestId: string }>();
    await t.drainJobs();
    const status = await call("GET", `/api/v1/workflows/transition-requests/${requestId}`);
    expect(status.body.status).toBe("failed");
    expect(onlyEvent(hook)).toMatchObject({ type: "workflows.request.failed", subject: { requestId } });
  });
});

describe("operator deliveries on the webhook machinery (rules/contract §5)", () => {
  it("rules/contract §5: only a 2xx ends a delivery: a 500 is retried with the same webhook-id and the same eventId; attempts are listed", async () => {
    const hook = await subscribe(["workflows.request.failed"]);
    let calls = 0;
    receiver.answer = (request) => ({
      status: hook.received().includes(request) && calls++ === 0 ? 500 : 200,
    });
    const r = await t.inject({
      method: "POST",
      url: "/api/v1/workflows/transition-requests",
      headers: { ...bearer(tenant.token), "x-tenant-id": tenant.id, "x-idempotency-key": `wf-${n++}` },
      payload: { entity: "product", entityId: randomUUID(), transition: "submit" },
    });
    expect(r.statusCode).toBe(202);
    await t.drainJobs();
    expect(hook.received()).toHaveLength(1);
    clock.advance(10_000);
    await t.drainJobs();
    const [first, second] = hook.received();
    expect(hook.received()).toHaveLength(2);
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
    expect(verified(second as ReceivedRequest, hook.secret).eventId).toBe(
      verified(first as ReceivedRequest, hook.secret).eventId,
    );
    const attempts = await call("GET", `${subscriptions}/${hook.id}/attempts`);
    expect(
      (attempts.body.items as { attempt: number; status: number; sequence: null }[]).map((a) => [
        a.attempt,
        a.status,
        a.sequence,
      ]),
    ).toEqual([
      [2, 200, null],
      [1, 500, null],
    ]);
  });

  it("rules/contract §8: a disabled or deleted operator subscription receives nothing; rotate-secret signs with both secrets; recover is 409", async () => {
    const disabled = await subscribe(["workflows.request.failed"]);
    const deleted = await subscribe(["workflows.request.failed"]);
    const rotated = await subscribe(["workflows.request.failed"]);
    expect((await call("POST", `${subscriptions}/${disabled.id}/disable`)).status).toBe(200);
    const del = await t.inject({
      method: "DELETE",
      url: `${subscriptions}/${deleted.id}`,
      headers: bearer(tenant.token),
    });
    expect(del.statusCode).toBe(204);
    const rotation = await call("POST", `${subscriptions}/${rotated.id}/rotate-secret`);
    expect(rotation.status).toBe(200);
    const recover = await call("POST", `${subscriptions}/${rotated.id}/recover`, { fromSequence: 1 });
    expect(recover.status, recover.raw).toBe(409);
    await t.inject({
      method: "POST",
      url: "/api/v1/workflows/transition-requests",
      headers: { ...bearer(tenant.token), "x-tenant-id": tenant.id, "x-idempotency-key": `wf-${n++}` },
      payload: { entity: "product", entityId: randomUUID(), transition: "submit" },
    });
    await t.drainJobs();
    expect(disabled.received()).toHaveLength(0);
    expect(deleted.received()).toHaveLength(0);
    const [delivery] = rotated.received();
    expect(verified(delivery as ReceivedRequest, rotation.body.secret as string).type).toBe(
      "workflows.request.failed",
    );
    expect(verified(delivery as ReceivedRequest, rotated.secret).type).toBe("workflows.request.failed");
    const audit = await sql<{ type: string }>`SELECT type FROM audit_events
      WHERE tenant_id = ${tenant.id} AND target_id = ${deleted.id} ORDER BY id`.execute(
      t.container.database.db,
    );
    expect(audit.rows.map((a) => a.type).sort()).toEqual([
      "webhook_subscription.created",
      "webhook_subscription.deleted",
    ]);
  });

  it("no secret, signature or subject in the logs", () => {
    const logs = t.logs.join("\n");
    expect(logs).not.toMatch(/whsec_/);
    expect(logs).not.toMatch(/v1,[A-Za-z0-9+/]{20,}/);
  });
});
