// remote mode: in-process only: a fake clock and the process's own metrics
import parsePrometheusTextFormat, { type MetricFamily } from "parse-prometheus-text-format";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  acknowledge,
  claim,
  listMailbox,
  setupPartner,
  upload,
  validOrders,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { startMetricsServer, type MetricsServer } from "../../src/platform/metrics/index.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startHttpsReceiver, type HttpsReceiver, webhookReceiverEnv } from "../support/https-receiver.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { onPostgres } from "../support/test-database.js";
import { subscribeWebhook } from "../support/webhook-subscriptions.js";

const clock = createManualClock(new Date());
let t: TestApp;
let tenant: ProvisionedTenant;
let receiver: HttpsReceiver;
let metricsServer: MetricsServer;
let base: string;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await createTestApp({
    clock,
    env: webhookReceiverEnv(receiver),
  });
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  metricsServer = await startMetricsServer(t.container.metrics, { port: 0, host: "127.0.0.1" });
});

afterAll(async () => {
  await metricsServer.close();
  await t.close();
  await receiver.close();
});

/** A scrape, parsed by an independent parser (npm `parse-prometheus-text-format`). */
async function scrape(): Promise<{ text: string; families: MetricFamily[] }> {
  // Values read from the database are cached for 10 s of the app's clock.
  clock.advance(11_000);
  const response = await request(`${metricsServer.url}/metrics`);
  expect(response.statusCode).toBe(200);
  expect(response.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.body.text();
  return { text, families: parsePrometheusTextFormat(text) };
}

function family(families: MetricFamily[], name: string): MetricFamily {
  const found = families.find((f) => f.name === name);
  if (!found) throw new Error(`no metric ${name}`);
  return found;
}

/** The value of the sample of `name` whose labels include `labels` (0 when there is none). */
function value(families: MetricFamily[], name: string, labels: Record<string, string> = {}): number {
  const sample = family(families, name).metrics.find((m) =>
    Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
  );
  return Number(sample?.value ?? 0);
}

/**
 * The observations of a histogram's series (its `_count` line). The parser keeps a histogram's
 * buckets but drops the labels of the series (it merges them), so the count is read from the text
 * the parser accepted.
 */
function observations(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split("\n")) {
    const match = new RegExp(`^${name}_count\\{(.*)\\} (\\S+)$`).exec(line);
    if (!match) continue;
    const present = new Map(
      [...(match[1] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => present.get(k) === v)) return Number(match[2]);
  }
  return 0;
}

const uuidLike = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe("GET /metrics on the metrics listener (HANSE_METRICS_PORT)", () => {
  it("the series move after a full flow: upload → processing → claim/read/ack, a transition, an entitlement change with its webhook", async () => {
    const { text: textBefore, families: before } = await scrape();

    tenant = await provisionTenant(t);
    // Upload → processing → one delivery: claimed, read (verified), acknowledged.
    const partner = await setupPartner(t, tenant.token);
    expect((await upload(t, partner, validOrders("MX1"), "metrics-1")).statusCode).toBe(202);
    await t.drainJobs();
    const [entry] = (await listMailbox(t, partner)).items;
    if (!entry) throw new Error("mailbox empty");
    const claimed = (await claim(t, partner, entry.deliveryAttemptId)).json<{ claimToken: string }>();
    const read = await request(
      `${base}/api/v1/b2b-exchange/partner/connections/${partner.connectionId}/mailbox/${entry.deliveryAttemptId}/payload`,
      { headers: { authorization: `Bearer ${partner.token}`, "x-b2b-claim-token": claimed.claimToken } },
    );
    await read.body.arrayBuffer();
    expect(read.trailers["x-b2b-payload-integrity"]).toBe("verified");
    const acked = await acknowledge(t, partner, entry.deliveryAttemptId, claimed.claimToken);
    expect(acked.statusCode, acked.body).toBe(200);
    // A second upload whose delivery is claimed and left: its lease expires.
    expect((await upload(t, partner, validOrders("MX2"), "metrics-2")).statusCode).toBe(202);
    await t.drainJobs();
    const [left] = (await listMailbox(t, partner)).items;
    if (!left) throw new Error("mailbox empty");
    expect((await claim(t, partner, left.deliveryAttemptId)).statusCode).toBe(200);
    const waiting = await scrape();
    expect(value(waiting.families, "hanse_exchange_deliveries", { status: "claimed" })).toBeGreaterThan(0);
    clock.advance(t.config.HANSE_MAILBOX_LEASE_SECONDS * 1000);
    await t.drainJobs();

    // A transition request.
    const entity = await t.inject({
      method: "POST",
      url: "/api/v1/admin/entities",
      headers: bearer(tenant.token),
      payload: { kind: "product", attributes: { name: "Metered" } },
    });
    const transition = await t.inject({
      method: "POST",
      url: "/api/v1/workflows/transition-requests",
      headers: {
        ...bearer(tenant.token),
        "x-tenant-id": tenant.id,
        "x-idempotency-key": "metrics-transition",
      },
      payload: { entity: "product", entityId: entity.json<{ id: string }>().id, transition: "submit" },
    });
    expect(transition.statusCode, transition.body).toBe(202);
    await t.drainJobs();

    // An entitlement change delivered to a webhook receiver.
    const hook = await subscribeWebhook(t, tenant.token, "metrics-app", receiver.url);
    await hook.change("actor-1");
    await t.drainJobs();
    expect(receiver.received.length).toBeGreaterThan(0);

    const { text, families: after } = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) => {
      expect(value(after, name, labels), `${name} ${JSON.stringify(labels)}`).toBeGreaterThan(
        value(before, name, labels),
      );
    };

    const observed = (name: string, labels: Record<string, string>) => {
      expect(observations(text, name, labels), `${name} ${JSON.stringify(labels)}`).toBeGreaterThan(
        observations(textBefore, name, labels),
      );
    };
    observed("hanse_http_request_duration_seconds", {
      route: "/api/v1/workflows/transition-requests",
      method: "POST",
      status: "202",
    });
    observed("hanse_http_request_duration_seconds", {
      route: "/api/v1/b2b-exchange/partner/connections/:connectionID/inbox",
      method: "POST",
      status: "202",
    });
    moved("hanse_tenant_provisioning", { state: "succeeded" });
    moved("hanse_exchange_uploads", { status: "processed" });
    moved("hanse_exchange_deliveries", { status: "acknowledged" });
    moved("hanse_exchange_payload_reads_total", { outcome: "verified" });
    moved("hanse_exchange_lease_expiries_total");
    observed("hanse_job_run_duration_seconds", { job: "exchange.process-upload", outcome: "succeeded" });
    observed("hanse_job_run_duration_seconds", { job: "workflows.transition", outcome: "succeeded" });
    moved("hanse_transition_requests", { status: "succeeded" });
    observed("hanse_transition_request_completion_seconds", { status: "succeeded" });
    moved("hanse_entitlement_changes_total");
    moved("hanse_webhook_attempts_total", { outcome: "delivered" });
    moved("hanse_webhook_deliveries", { state: "delivered" });
    expect(value(after, "hanse_jobs", { job: "exchange.process-upload", state: "queued" })).toBe(0);
    expect(family(after, "hanse_jobs_oldest_due_age_seconds").type).toBe("GAUGE");
    expect(family(after, "hanse_exchange_oldest_ready_delivery_age_seconds").type).toBe("GAUGE");
    expect(family(after, "hanse_entitlement_feed_lag_seconds").type).toBe("GAUGE");
    expect(family(after, "hanse_webhook_delivery_lag_seconds").metrics.length).toBe(3);
    expect(family(after, "hanse_http_request_duration_seconds").type).toBe("HISTOGRAM");
    // The process defaults, event-loop lag among them.
    expect(family(after, "nodejs_eventloop_lag_seconds").type).toBe("GAUGE");
    expect(family(after, "process_cpu_user_seconds_total").type).toBe("COUNTER");
    if (onPostgres) expect(value(after, "hanse_db_pool_connections", { state: "max" })).toBeGreaterThan(0);

    // No label holds an id, a tenant's secret or a URL with ids: route templates only.
    for (const f of after) {
      for (const sample of f.metrics) {
        for (const labelValue of Object.values(sample.labels ?? {})) {
          expect(labelValue, f.name).not.toMatch(uuidLike);
        }
      }
    }
    for (const secret of [tenant.token, partner.token, claimed.claimToken, hook.subscription.secret]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toContain(partner.connectionId);
  });

  it("answers only GET /metrics", async () => {
    expect((await request(`${metricsServer.url}/`)).statusCode).toBe(404);
    expect((await request(`${metricsServer.url}/metrics`, { method: "POST" })).statusCode).toBe(405);
  });
});
