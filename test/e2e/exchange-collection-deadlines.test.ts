// remote mode: in-process only: a manual clock, runs the sweep and reads its own database and metrics
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { overdueSweepJobName, sweepOverdueDeliveries } from "../../src/modules/exchange/index.js";
import {
  acknowledge,
  claim,
  defaultProfile,
  readPayload,
  setupPartner,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { recurringJobKey } from "../../src/platform/jobs/index.js";
import type { Connection, Delivery } from "@hanse/client";
import { createCliRunner, type CliRun } from "../support/cli-runner.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { createTestApp, startWorker, type TestApp } from "../support/test-app.js";

/*
 * Issue 34 item 3 (rules/contract §8): collection deadlines. A connection has
 * `collectionDeadlineSeconds` (null, or 60–2592000; default 86400). A delivery not acknowledged
 * that long after it became ready is overdue: its operator view carries `overdue` and
 * `overdueSince`, and `exchange.delivery.overdue` is raised once (the sweep sets `overdue_since`
 * once, with one audit record). One recurring sweep, no job per delivery.
 */

let t: TestApp;
let tenant: ProvisionedTenant;
let clock: { now(): Date; advance(ms: number): void };
let n = 0;

/**
 * A tenant whose `token` is an access token (no expiry): the tests move the clock by days, past
 * any session's lifetime.
 */
async function tenantWithAccessToken(): Promise<ProvisionedTenant> {
  const provisioned = await provisionTenant(t);
  const r = await t.inject({
    method: "POST",
    url: "/api/v1/admin/access-tokens",
    headers: { authorization: `Bearer ${provisioned.token}` },
    payload: { name: "collection deadlines", scopes: ["admin:read", "admin:write"] },
  });
  expect(r.statusCode, r.body).toBe(201);
  return { ...provisioned, token: r.json<{ token: string }>().token };
}

beforeAll(async () => {
  t = await createTestApp({ manualClock: true });
  clock = t.container.clock as unknown as { now(): Date; advance(ms: number): void };
  tenant = await tenantWithAccessToken();
}, 120_000);
afterAll(async () => {
  await t.close();
});

const db = () => t.container.database.db;

async function call(method: "GET" | "POST" | "PATCH", url: string, payload?: unknown, token = tenant.token) {
  const r = await t.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  return { status: r.statusCode, body: r.json<Record<string, unknown>>(), raw: r.body };
}
const getConnection = async (id: string) =>
  (await call("GET", `/api/v1/admin/connections/${id}`)).body as unknown as Connection;
const getDelivery = async (id: string) =>
  (await call("GET", `/api/v1/admin/exchange-deliveries/${id}`)).body as unknown as Delivery;
const sweep = () => sweepOverdueDeliveries(db(), clock.now());

/** A partner whose connection has `deadline` (PATCHed after creation when given). */
async function partnerWith(deadline?: number | null, token = tenant.token): Promise<PartnerSetup> {
  const p = await setupPartner(t, token);
  if (deadline !== undefined) {
    const r = await call(
      "PATCH",
      `/api/v1/admin/connections/${p.connectionId}`,
      {
        collectionDeadlineSeconds: deadline,
      },
      token,
    );
    expect(r.status, r.raw).toBe(200);
  }
  return p;
}

/** A new upload of `p` processed: its one delivery (an ORDRSP) as the operator sees it. */
async function newDelivery(p: PartnerSetup, token = tenant.token): Promise<Delivery> {
  const r = await upload(t, p, validOrders(`CD${n}`), `deadline-${n++}`);
  expect(r.statusCode, r.body).toBe(202);
  await t.drainJobs();
  const { uploadId } = r.json<{ uploadId: string }>();
  const list = await call("GET", `/api/v1/admin/exchange-deliveries?uploadId=${uploadId}`, undefined, token);
  const [delivery] = (list.body.items as Delivery[]).filter((d) => d.messageType === "ORDRSP");
  if (!delivery) throw new Error("no delivery");
  return delivery;
}

const overdueAudits = async (deliveryId: string) =>
  (
    await sql<{
      type: string;
      data: Record<string, unknown>;
      connection_id: string;
      principal_id: string | null;
    }>`
      SELECT type, data, connection_id, principal_id FROM audit_events
      WHERE type = 'exchange.delivery.overdue' AND target_id = ${deliveryId}`.execute(db())
  ).rows;

describe("collectionDeadlineSeconds on connections (rules/contract §8)", () => {
  it("defaults to 86400; create and update take null (never overdue) or 60–2592000", async () => {
    const p = await setupPartner(t, tenant.token);
    expect((await getConnection(p.connectionId)).collectionDeadlineSeconds).toBe(86400);

    const created = await call("POST", "/api/v1/admin/connections", {
      partnerId: p.partnerId,
      profile: defaultProfile,
      collectionDeadlineSeconds: 60,
    });
    expect(created.status, created.raw).toBe(201);
    expect(created.body.collectionDeadlineSeconds).toBe(60);
    const none = await call("POST", "/api/v1/admin/connections", {
      partnerId: p.partnerId,
      profile: defaultProfile,
      collectionDeadlineSeconds: null,
    });
    expect(none.body.collectionDeadlineSeconds).toBeNull();

    for (const value of [2_592_000, null, 3600]) {
      clock.advance(1000);
      const r = await call("PATCH", `/api/v1/admin/connections/${p.connectionId}`, {
        collectionDeadlineSeconds: value,
      });
      expect(r.status, r.raw).toBe(200);
      expect(r.body.collectionDeadlineSeconds).toBe(value);
      expect((await getConnection(p.connectionId)).collectionDeadlineSeconds).toBe(value);
    }
    // The change is audited with the field's name.
    const { rows } = await sql<{ changes: string[] | null; data: Record<string, unknown> }>`
      SELECT changes, data FROM audit_events WHERE type = 'connection.updated' AND target_id = ${p.connectionId}
      ORDER BY occurred_at DESC, id DESC LIMIT 1`.execute(db());
    expect(rows[0]?.changes).toEqual(["collectionDeadlineSeconds"]);
    expect(rows[0]?.data).toMatchObject({ collectionDeadlineSeconds: 3600 });
  });

  it("bad deadlines (59, 2592001, 1.5, strings) are 400 ERR_VALIDATION at /collectionDeadlineSeconds and change nothing", async () => {
    const p = await partnerWith(3600);
    const count = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM exchange_connections`.execute(db())).rows[0]
        ?.n;
    const before = await count();
    for (const bad of [59, 2_592_001, 0, -60, 1.5, "3600", "none", true, {}]) {
      const patched = await call("PATCH", `/api/v1/admin/connections/${p.connectionId}`, {
        collectionDeadlineSeconds: bad,
      });
      expect(patched.status, JSON.stringify(bad)).toBe(400);
      expect(patched.body).toMatchObject({ code: "ERR_VALIDATION" });
      expect((patched.body.errors as { pointer: string }[]).map((e) => e.pointer)).toContain(
        "/collectionDeadlineSeconds",
      );
      const created = await call("POST", "/api/v1/admin/connections", {
        partnerId: p.partnerId,
        profile: defaultProfile,
        collectionDeadlineSeconds: bad,
      });
      expect(created.status, JSON.stringify(bad)).toBe(400);
      expect(created.body).toMatchObject({ code: "ERR_VALIDATION" });
    }
    expect(await count()).toBe(before);
    expect((await getConnection(p.connectionId)).collectionDeadlineSeconds).toBe(3600);
  });

  it("the OpenAPI document describes the field on create, update and the record, and the delivery's overdue fields and filter", async () => {
    const r = await t.inject({ method: "GET", url: "/openapi.json" });
    const text = r.body;
    expect(text).toContain("collectionDeadlineSeconds");
    expect(text).toContain("overdueSince");
    const doc = r.json<{
      paths: Record<string, Record<string, { parameters?: { name: string }[] }>>;
    }>();
    const params = doc.paths["/api/v1/admin/exchange-deliveries"]?.get?.parameters ?? [];
    expect(params.map((p) => p.name)).toContain("overdue");
  });
});

describe("overdue deliveries (rules/contract §8)", () => {
  it("a delivery not acknowledged the deadline after it became ready is overdue, not before; overdueSince is when the deadline passed", async () => {
    const p = await partnerWith(600);
    const d = await newDelivery(p);
    expect(d).toMatchObject({ status: "ready", overdue: false, overdueSince: null });

    clock.advance(599_000);
    await sweep();
    expect(await getDelivery(d.id)).toMatchObject({ overdue: false, overdueSince: null });

    clock.advance(1000);
    await sweep();
    const overdue = await getDelivery(d.id);
    expect(overdue).toMatchObject({ status: "ready", overdue: true });
    expect(overdue.overdueSince).toBe(new Date(Date.parse(d.createdAt) + 600_000).toISOString());

    // A claimed delivery is not acknowledged either: still overdue.
    const claimed = await claim(t, p, d.id);
    expect(claimed.statusCode, claimed.body).toBe(200);
    expect(await getDelivery(d.id)).toMatchObject({ status: "claimed", overdue: true });

    // Collected late: no longer overdue, overdueSince stays (it was late), out of the filter.
    const token = claimed.json<{ claimToken: string }>().claimToken;
    expect((await readPayload(t, p, d.id, token)).statusCode).toBe(200);
    expect((await acknowledge(t, p, d.id, token)).statusCode).toBe(200);
    expect(await getDelivery(d.id)).toMatchObject({
      status: "acknowledged",
      overdue: false,
      overdueSince: overdue.overdueSince,
    });
    const listed = await call(
      "GET",
      `/api/v1/admin/exchange-deliveries?overdue=true&connectionId=${p.connectionId}`,
    );
    expect(listed.body.items).toEqual([]);
  });

  it("an acknowledged delivery never becomes overdue", async () => {
    const p = await partnerWith(60);
    const d = await newDelivery(p);
    const claimed = await claim(t, p, d.id);
    const token = claimed.json<{ claimToken: string }>().claimToken;
    expect((await readPayload(t, p, d.id, token)).statusCode).toBe(200);
    expect((await acknowledge(t, p, d.id, token)).statusCode).toBe(200);

    clock.advance(3_600_000);
    await sweep();
    expect(await getDelivery(d.id)).toMatchObject({
      status: "acknowledged",
      overdue: false,
      overdueSince: null,
    });
    expect(await overdueAudits(d.id)).toEqual([]);
  });

  it("a connection without a deadline (null) has no overdue deliveries", async () => {
    const p = await partnerWith(null);
    const d = await newDelivery(p);
    clock.advance(2_592_001_000);
    await sweep();
    expect(await getDelivery(d.id)).toMatchObject({ status: "ready", overdue: false, overdueSince: null });
  });

  it("the sweep run twice (and concurrently) sets overdueSince once and writes one exchange.delivery.overdue audit record, ids only", async () => {
    const p = await partnerWith(120);
    const d = await newDelivery(p);
    clock.advance(120_000);
    await Promise.all([sweep(), sweep()]);
    const first = await getDelivery(d.id);
    expect(first.overdue).toBe(true);
    clock.advance(60_000);
    await sweep();
    expect((await getDelivery(d.id)).overdueSince).toBe(first.overdueSince);

    const audits = await overdueAudits(d.id);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ connection_id: p.connectionId, principal_id: null });
    expect(audits[0]?.data).toEqual({ overdueSince: expect.any(String) as unknown });
    // Through the audit API too.
    const listed = await call(
      "GET",
      `/api/v1/admin/audit-events?type=exchange.delivery.overdue&targetId=${d.id}`,
    );
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(1);
  });

  it("GET …/exchange-deliveries?overdue=true lists only the overdue deliveries; other values are 400", async () => {
    const p = await partnerWith(300);
    const late = await newDelivery(p);
    clock.advance(200_000);
    const early = await newDelivery(p);
    clock.advance(100_000);
    await sweep();
    const r = await call(
      "GET",
      `/api/v1/admin/exchange-deliveries?overdue=true&connectionId=${p.connectionId}`,
    );
    expect(r.status, r.raw).toBe(200);
    const items = r.body.items as Delivery[];
    expect(items.map((d) => d.id)).toEqual([late.id]);
    expect(items[0]).toMatchObject({ overdue: true });
    const all = await call("GET", `/api/v1/admin/exchange-deliveries?connectionId=${p.connectionId}`);
    expect((all.body.items as Delivery[]).map((d) => d.id)).toContain(early.id);

    for (const bad of ["false", "yes", "1", ""]) {
      const b = await call("GET", `/api/v1/admin/exchange-deliveries?overdue=${bad}`);
      expect(b.status, bad).toBe(400);
      expect((b.body.errors as { pointer: string }[]).map((e) => e.pointer)).toContain("/query/overdue");
    }
  });

  it("GET …/exchange-deliveries?partnerId= lists one partner's deliveries (with overdue=true, its overdue ones); a bad id is 400", async () => {
    const p = await partnerWith(300);
    const other = await partnerWith(300);
    const late = await newDelivery(p);
    const elsewhere = await newDelivery(other);
    clock.advance(400_000);
    const fresh = await newDelivery(p);
    await sweep();
    const ids = async (query: string) => {
      const r = await call("GET", `/api/v1/admin/exchange-deliveries?${query}`);
      expect(r.status, r.raw).toBe(200);
      return (r.body.items as Delivery[]).map((d) => d.id);
    };
    expect(await ids(`partnerId=${p.partnerId}`)).toEqual([late.id, fresh.id]);
    expect(await ids(`partnerId=${p.partnerId}&overdue=true`)).toEqual([late.id]);
    expect(await ids(`partnerId=${other.partnerId}&overdue=true`)).toEqual([elsewhere.id]);
    // Upper case is the same partner; a partner of no delivery has none.
    expect(await ids(`partnerId=${p.partnerId.toUpperCase()}&overdue=true`)).toEqual([late.id]);
    expect(await ids("partnerId=00000000-0000-4000-8000-000000000000")).toEqual([]);
    // A cursor of the partner's list is not one of another partner's.
    const first = await call("GET", `/api/v1/admin/exchange-deliveries?partnerId=${p.partnerId}&limit=1`);
    const cursor = (first.body.meta as { nextCursor: string }).nextCursor;
    expect(cursor).toBeTruthy();
    const next = await call(
      "GET",
      `/api/v1/admin/exchange-deliveries?partnerId=${p.partnerId}&limit=1&cursor=${encodeURIComponent(cursor)}`,
    );
    expect((next.body.items as Delivery[]).map((d) => d.id)).toEqual([fresh.id]);
    const crossed = await call(
      "GET",
      `/api/v1/admin/exchange-deliveries?partnerId=${other.partnerId}&limit=1&cursor=${encodeURIComponent(cursor)}`,
    );
    expect(crossed.status).toBe(400);

    for (const bad of ["not-a-uuid", "", "1234"]) {
      const b = await call("GET", `/api/v1/admin/exchange-deliveries?partnerId=${bad}`);
      expect(b.status, bad).toBe(400);
      expect((b.body.errors as { pointer: string }[]).map((e) => e.pointer)).toContain("/query/partnerId");
    }
  });

  it("runs as one recurring job (exchange.overdue-sweep, every minute), not a job per delivery", async () => {
    const p = await partnerWith(60);
    const d = await newDelivery(p);
    const jobsBefore = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM jobs WHERE name = ${overdueSweepJobName}`.execute(db());
    const worker = await startWorker(
      t,
      "overdue-a",
      t.container.jobs.filter((j) => j.name === overdueSweepJobName),
    );
    await worker.stop(1000);
    const { rows } = await sql<{ key: string; n: number }>`
      SELECT key, count(*)::int AS n FROM jobs WHERE name = ${overdueSweepJobName} GROUP BY key`.execute(
      db(),
    );
    expect(rows).toEqual([{ key: recurringJobKey(overdueSweepJobName), n: 1 }]);
    expect(jobsBefore.rows[0]?.n ?? 0).toBeLessThanOrEqual(1);

    clock.advance(61_000);
    const sweeper = await startWorker(
      t,
      "overdue-b",
      t.container.jobs.filter((j) => j.name === overdueSweepJobName),
    );
    await sweeper.drain();
    await sweeper.stop(1000);
    expect(await getDelivery(d.id)).toMatchObject({ overdue: true });
  });
});

describe("overdue metrics per tenant", () => {
  it("hanse_exchange_overdue_deliveries and the oldest ready delivery's age carry one label, the tenant", async () => {
    const other = await tenantWithAccessToken();
    const p = await partnerWith(60, other.token);
    await newDelivery(p, other.token);
    clock.advance(30_000);
    await newDelivery(p, other.token);
    clock.advance(45_000);
    await sweep();
    clock.advance(11_000); // the scrape cache (10 s of the app's clock)
    const text = await t.container.metrics.scrape();
    expect(text).toContain(`hanse_exchange_overdue_deliveries{tenant="${other.slug}"} 1`);
    expect(text).toContain(
      `hanse_exchange_tenant_oldest_ready_delivery_age_seconds{tenant="${other.slug}"} 86`,
    );
    for (const line of text.split("\n").filter((l) => l.startsWith("hanse_exchange_overdue_deliveries{"))) {
      expect(line).toMatch(/^hanse_exchange_overdue_deliveries\{tenant="[a-z0-9-]+"\} \d+$/);
    }
  });
});

describe("hanse connections create|update --collection-deadline, hanse deliveries list --overdue", () => {
  const env: Record<string, string> = {};
  const { hanse } = createCliRunner(() => env);
  const ok = (run: CliRun): string => {
    expect(run.exitCode, run.err).toBe(0);
    return run.out;
  };

  it("sets, changes and turns off the deadline; lists only overdue deliveries; refuses bad values before any request", async () => {
    env.HANSE_URL = await t.app.listen({ port: 0, host: "127.0.0.1" });
    env.HANSE_TOKEN = tenant.token;
    const p = await setupPartner(t, tenant.token);
    const created = JSON.parse(
      ok(
        await hanse([
          "connections",
          "create",
          "--partner",
          p.partnerId,
          "--their-id",
          "5412345000013:14",
          "--our-id",
          "4012345500004:14",
          "--collection-deadline",
          "120",
          "--json",
        ]),
      ),
    ) as Connection;
    expect(created.collectionDeadlineSeconds).toBe(120);
    expect(ok(await hanse(["connections", "update", created.id, "--collection-deadline", "none"]))).toContain(
      "none (deliveries are never overdue)",
    );
    expect((await getConnection(created.id)).collectionDeadlineSeconds).toBeNull();
    for (const bad of ["59", "2592001", "soon", "1.5"]) {
      const run = await hanse(["connections", "update", created.id, "--collection-deadline", bad]);
      expect(run.exitCode, bad).toBe(1);
      expect(run.err).toContain("--collection-deadline");
    }
    expect((await hanse(["connections", "update", created.id])).exitCode).toBe(1);
    expect((await getConnection(created.id)).collectionDeadlineSeconds).toBeNull();

    // The default connection of p (86400): one delivery overdue after a day.
    const d = await newDelivery(p);
    clock.advance(86_400_000);
    await sweep();
    const listed = JSON.parse(
      ok(await hanse(["deliveries", "list", "--overdue", "--connection", p.connectionId, "--json"])),
    ) as { items: Delivery[] };
    expect(listed.items.map((x) => x.id)).toEqual([d.id]);
    const table = ok(await hanse(["deliveries", "list", "--overdue", "--connection", p.connectionId]));
    expect(table).toContain("ready (overdue)");
    expect(ok(await hanse(["deliveries", "show", d.id]))).toMatch(/Overdue since:?\s+20\d\d-/);
  });
});
