// remote mode: in-process only: a fake clock and the server's own log lines and spans
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setupPartner, validOrders } from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { provisionTenant, submitNewProduct, type ProvisionedTenant } from "../support/fixtures.js";
import {
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedRequest,
  webhookReceiverEnv,
} from "../support/https-receiver.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { subscribeWebhook } from "../support/webhook-subscriptions.js";

/** A local HTTPS receiver standing in for a lifecycle adapter and a webhook receiver. */
let receiver: HttpsReceiver;
let t: TestApp;
let tenant: ProvisionedTenant;
const clock = createManualClock(new Date());
let counter = 0;

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const parentId = "00f067aa0ba902b7";
const traceparent = `00-${traceId}-${parentId}-01`;
const tracestate = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await createTestApp({
    clock,
    env: webhookReceiverEnv(receiver),
  });
  tenant = await provisionTenant(t);
  const adapter = await t.inject({
    method: "POST",
    url: "/api/v1/admin/lifecycle-adapters",
    headers: bearer(tenant.token),
    payload: { kind: "product", url: receiver.url },
  });
  expect(adapter.statusCode, adapter.body).toBe(201);
});

afterAll(async () => {
  await t.close();
  await receiver.close();
});

const logLines = () => t.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
const parsedTraceparent = (request: ReceivedRequest | undefined) => {
  const value = request?.headers.traceparent;
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(
    typeof value === "string" ? value : "",
  );
  if (!match) throw new Error(`no valid traceparent: ${String(value)}`);
  return { traceId: match[1], parentId: match[2], flags: match[3] };
};

/** A transition request (its job consults the adapter) sent with `headers`; runs its job. */
async function transitionWith(headers: Record<string, string>): Promise<ReceivedRequest | undefined> {
  const seen = receiver.received.length;
  await submitNewProduct(t, tenant, `trace-${counter++}`, headers);
  return receiver.received[seen];
}

/** An upload of `body` by a new partner, sent with `headers`; runs its processing job. */
async function uploadWith(headers: Record<string, string>, body: string) {
  const partner = await setupPartner(t, tenant.token);
  const response = await t.inject({
    method: "POST",
    url: `/api/v1/b2b-exchange/partner/connections/${partner.connectionId}/inbox`,
    headers: {
      authorization: `Bearer ${partner.token}`,
      "content-type": "application/edifact",
      "idempotency-key": `trace-upload-${counter++}`,
      ...headers,
    },
    payload: body,
  });
  expect(response.statusCode, response.body).toBe(202);
  const { uploadId } = response.json<{ uploadId: string }>();
  await t.drainJobs();
  return logLines().find((line) => line.msg === "upload processed" && line.uploadId === uploadId);
}

describe("W3C trace context", () => {
  it("a request's traceparent is in its log lines, beside its correlation id", async () => {
    const correlationId = `trace-log-${counter++}`;
    const response = await t.inject({
      method: "GET",
      url: "/api/v1/admin/entities",
      headers: { ...bearer(tenant.token), traceparent, "x-correlation-id": correlationId },
    });
    expect(response.statusCode).toBe(200);
    const lines = logLines().filter((line) => line.correlationId === correlationId);
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining(["incoming request", "request completed"]),
    );
    for (const line of lines) {
      expect(line.traceId).toBe(traceId);
      expect(line.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(line.spanId).not.toBe(parentId);
    }
  });

  it("a job started by the request continues its trace: the adapter call carries its trace id with a new parent id, and tracestate", async () => {
    const correlationId = `trace-job-${counter++}`;
    const call = await transitionWith({ traceparent, tracestate, "x-correlation-id": correlationId });
    const sent = parsedTraceparent(call);
    expect(sent.traceId).toBe(traceId);
    expect(sent.parentId).not.toBe(parentId);
    expect(sent.flags).toBe("01");
    expect(call?.headers.tracestate).toBe(tracestate);
    // The job's log lines name the request's trace and correlation id.
    const finished = logLines().find(
      (line) => line.msg === "workflow transition request finished" && line.correlationId === correlationId,
    );
    expect(finished?.traceId).toBe(traceId);
    expect(finished?.spanId).toBe(sent.parentId);
  });

  it("a webhook delivery of an entitlement change carries the trace of the request that made the change", async () => {
    const hook = await subscribeWebhook(t, tenant.token, `trace-app-${counter++}`, receiver.url);
    const seen = receiver.received.length;
    const response = await t.inject({
      method: "PUT",
      url: `/api/v1/admin/apps/${hook.appId}/entitlements/actor-1`,
      headers: { ...bearer(tenant.token), traceparent },
      payload: { status: "active", plan: "basic", capabilities: ["use"] },
    });
    expect(response.statusCode, response.body).toBe(200);
    await t.drainJobs();
    const delivery = receiver.received.slice(seen).find((r) => r.headers["webhook-id"] !== undefined);
    const sent = parsedTraceparent(delivery);
    expect(sent.traceId).toBe(traceId);
    expect(sent.parentId).not.toBe(parentId);
    expect(delivery?.headers.tracestate).toBeUndefined();
  });

  it.each([
    // Checked by its own accept statement (declared length up to 64 KiB).
    ["a small upload", [] as string[]],
    // Authenticated first, then streamed into storage and accepted (over 64 KiB).
    ["a large upload", Array.from({ length: 2000 }, () => "4000862141404")],
  ])(
    "the processing job of %s continues the upload request's trace: its log lines carry the trace id and correlation id",
    async (_name, lines) => {
      const correlationId = `trace-upload-${counter++}`;
      const body = validOrders(`TR${counter}`, lines.length > 0 ? { lines } : {});
      const processed = await uploadWith(
        { traceparent, tracestate, "x-correlation-id": correlationId },
        body,
      );
      expect(processed).toMatchObject({ traceId, correlationId, status: "processed" });
      expect(processed?.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(processed?.spanId).not.toBe(parentId);
      // The request's own lines have another span id: the job run is a span of its own.
      const requestSpans = logLines()
        .filter((line) => line.correlationId === correlationId && line.msg === "request completed")
        .map((line) => line.spanId);
      expect(requestSpans).toHaveLength(1);
      expect(requestSpans).not.toContain(processed?.spanId);
    },
  );

  it("an upload without a traceparent: its processing job continues the trace the request started", async () => {
    const correlationId = `trace-upload-new-${counter++}`;
    const processed = await uploadWith({ "x-correlation-id": correlationId }, validOrders(`TN${counter}`));
    const started = logLines().find(
      (line) => line.msg === "request completed" && line.correlationId === correlationId,
    )?.traceId;
    expect(started).toMatch(/^[0-9a-f]{32}$/);
    expect(started).not.toBe(traceId);
    expect(processed).toMatchObject({ traceId: started, correlationId });
  });

  it("a malformed traceparent is ignored with its tracestate: a new trace starts", async () => {
    const malformed = [
      `00-${traceId.toUpperCase()}-${parentId}-01`,
      `00-${"0".repeat(32)}-${parentId}-01`,
      `00-${traceId}-${"0".repeat(16)}-01`,
      `ff-${traceId}-${parentId}-01`,
      `00-${traceId}-${parentId}-01-extra`,
      `00-${traceId}-${parentId}`,
      "garbage",
    ];
    for (const value of malformed) {
      const correlationId = `trace-bad-${counter++}`;
      await t.inject({
        method: "GET",
        url: "/api/v1/admin/entities",
        headers: { ...bearer(tenant.token), traceparent: value, "x-correlation-id": correlationId },
      });
      const line = logLines().find((l) => l.correlationId === correlationId);
      expect(line?.traceId, value).toMatch(/^[0-9a-f]{32}$/);
      expect(line?.traceId, value).not.toBe(traceId);
    }
    const call = await transitionWith({ traceparent: `00-${traceId}-${"0".repeat(16)}-01`, tracestate });
    const sent = parsedTraceparent(call);
    expect(sent.traceId).not.toBe(traceId);
    expect(call?.headers.tracestate).toBeUndefined();
  });
});
