// remote mode: in-process only: a fake clock and HANSE_FEED_RETENTION_SECONDS of its own
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { expectSessionRouteDenials } from "../support/auth-cases.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { bearer, createTestApp, runJobNow, type TestApp } from "../support/test-app.js";

const clock = createManualClock(new Date("2026-11-26T08:00:00.000Z"));
let t: TestApp;
let tenant: ProvisionedTenant;
let other: ProvisionedTenant;
let counter = 0;

interface HistoryPage {
  items: {
    sequence: number;
    eventId: string;
    entitlement: { actorId: string; status: string; plan: string; capabilities: string[]; sequence: number };
    occurredAt: string;
    changedBy: string | null;
  }[];
  meta: { hasMore: boolean; nextCursor: string | null; prunedThrough: number };
}

const admin = (method: "GET" | "POST" | "PUT", url: string, payload?: object, who = tenant) =>
  t.inject({ method, url, headers: bearer(who.token), ...(payload === undefined ? {} : { payload }) });

async function createApp(who = tenant) {
  const id = `hist-${counter++}`;
  const response = await admin(
    "POST",
    "/api/v1/admin/apps",
    { id, name: id, capabilities: ["read", "write"] },
    who,
  );
  expect(response.statusCode).toBe(201);
  return id;
}

const actorUrl = (appId: string, actorId: string) =>
  `/api/v1/admin/apps/${appId}/entitlements/${encodeURIComponent(actorId)}`;
const historyUrl = (appId: string, actorId: string) => `${actorUrl(appId, actorId)}/changes`;

async function set(appId: string, actorId: string, plan: string, status = "active", who = tenant) {
  const response = await admin(
    "PUT",
    actorUrl(appId, actorId),
    { status, plan, capabilities: ["read"] },
    who,
  );
  expect(response.statusCode).toBe(200);
  return response.json<{ sequence: number }>().sequence;
}

async function history(appId: string, actorId: string, query = "", who = tenant) {
  const response = await admin("GET", `${historyUrl(appId, actorId)}${query}`, undefined, who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<HistoryPage>();
}

beforeAll(async () => {
  t = await createTestApp({ clock, env: { HANSE_FEED_RETENTION_SECONDS: "60" } });
  tenant = await provisionTenant(t);
  other = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
});

describe("an actor's entitlement history (GET …/entitlements/{actorId}/changes)", () => {
  it("three PUTs give three entries, newest first, each with its sequence and the values after the change", async () => {
    const appId = await createApp();
    const s1 = await set(appId, "user-1", "free");
    const s2 = await set(appId, "user-1", "pro", "suspended");
    const s3 = await set(appId, "user-1", "team");
    expect([s1, s2, s3]).toEqual([1, 2, 3]);
    const page = await history(appId, "user-1");
    expect(page.items.map((c) => [c.sequence, c.entitlement.plan, c.entitlement.status])).toEqual([
      [3, "team", "active"],
      [2, "pro", "suspended"],
      [1, "free", "active"],
    ]);
    for (const item of page.items) {
      expect(item.entitlement.sequence).toBe(item.sequence);
      expect(item.entitlement.actorId).toBe("user-1");
      expect(item.entitlement.capabilities).toEqual(["read"]);
      expect(item.occurredAt).toBe(clock.now().toISOString());
      expect(item.eventId).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(page.meta).toEqual({ hasMore: false, nextCursor: null, prunedThrough: 0 });
    // Who changed it: the administrator's principal, as the audit event of the change names it.
    const audit = await admin("GET", "/api/v1/admin/audit-events?type=entitlement.changed&limit=1");
    const [event] = audit.json<{ items: { principalId: string }[] }>().items;
    expect(event?.principalId).toMatch(/^[0-9a-f-]{36}$/);
    for (const item of page.items) expect(item.changedBy).toBe(event?.principalId);
    // The newest entry is the entitlement the admin read shows.
    const current = await admin("GET", actorUrl(appId, "user-1"));
    expect(page.items[0]?.entitlement).toEqual(current.json());
  });

  it("pages with a bound cursor: limit 2 then the rest; a cursor of another actor's history is 400", async () => {
    const appId = await createApp();
    for (const plan of ["a", "b", "c", "d", "e"]) await set(appId, "pager", plan);
    const first = await history(appId, "pager", "?limit=2");
    expect(first.items.map((c) => c.sequence)).toEqual([5, 4]);
    expect(first.meta.hasMore).toBe(true);
    const cursor = encodeURIComponent(first.meta.nextCursor ?? "");
    const second = await history(appId, "pager", `?limit=2&cursor=${cursor}`);
    expect(second.items.map((c) => c.sequence)).toEqual([3, 2]);
    const third = await history(
      appId,
      "pager",
      `?limit=2&cursor=${encodeURIComponent(second.meta.nextCursor ?? "")}`,
    );
    expect(third.items.map((c) => c.sequence)).toEqual([1]);
    expect(third.meta).toMatchObject({ hasMore: false, nextCursor: null });

    const foreign = await admin("GET", `${historyUrl(appId, "someone-else")}?limit=2&cursor=${cursor}`);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json<{ code: string }>().code).toBe("ERR_VALIDATION");
    const otherTenant = await admin(
      "GET",
      `${historyUrl(appId, "pager")}?cursor=${cursor}`,
      undefined,
      other,
    );
    expect(otherTenant.statusCode).toBe(404);
  });

  it("shows only the actor's own changes: not another actor's, not another tenant's with the same ids", async () => {
    const appId = await createApp();
    await set(appId, "alice", "p1");
    await set(appId, "bob", "p1");
    await set(appId, "alice", "p2");
    // The other tenant has an app and an actor with the same ids.
    const response = await admin(
      "POST",
      "/api/v1/admin/apps",
      { id: appId, name: "x", capabilities: ["read"] },
      other,
    );
    expect(response.statusCode).toBe(201);
    await set(appId, "alice", "foreign", "active", other);

    const alice = await history(appId, "alice");
    expect(alice.items.map((c) => [c.sequence, c.entitlement.plan])).toEqual([
      [3, "p2"],
      [1, "p1"],
    ]);
    const bob = await history(appId, "bob");
    expect(bob.items.map((c) => c.sequence)).toEqual([2]);
    const foreign = await history(appId, "alice", "", other);
    expect(foreign.items.map((c) => [c.sequence, c.entitlement.plan])).toEqual([[1, "foreign"]]);
    // An actor without changes has an empty history.
    expect((await history(appId, "nobody")).items).toEqual([]);
  });

  it("an unknown app is 404, also another tenant's app", async () => {
    const unknown = await admin("GET", historyUrl("no-such-app", "user-1"));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json<{ code: string }>().code).toBe("ERR_NOT_FOUND");
    const theirs = await createApp(other);
    await set(theirs, "user-1", "p", "active", other);
    const hidden = await admin("GET", historyUrl(theirs, "user-1"));
    expect(hidden.statusCode).toBe(404);
    expect(hidden.body).not.toContain("user-1");
  });

  it("bad input: limit 0 and 101, a tampered cursor, an actor id over 128 characters — 400", async () => {
    const appId = await createApp();
    await set(appId, "user-1", "p");
    for (const query of ["?limit=0", "?limit=101", "?cursor=abc.def", "?extra=1"]) {
      const response = await admin("GET", `${historyUrl(appId, "user-1")}${query}`);
      expect(response.statusCode, query).toBe(400);
    }
    const long = await admin("GET", historyUrl(appId, "x".repeat(129)));
    expect(long.statusCode).toBe(400);
  });

  it("401 without credentials, 403 without admin:read", async () => {
    const appId = await createApp();
    await expectSessionRouteDenials(t, {
      method: "GET",
      url: historyUrl(appId, "user-1"),
      insufficientScopes: ["workflows:read"],
    });
  });

  it("nothing secret in the body: no token, no credential, no signing material", async () => {
    const appId = await createApp();
    const binding = await admin("POST", "/api/v1/admin/service-bindings", {
      appId,
      audience: `aud-${appId}`,
      requiredCapabilities: ["read"],
    });
    const { secret } = binding.json<{ secret: string }>();
    await set(appId, "user-1", "p");
    const response = await admin("GET", historyUrl(appId, "user-1"));
    expect(response.statusCode).toBe(200);
    for (const forbidden of [tenant.token, secret, "hanse_ss_", "hanse_sc_", "previous", "tenant_id"])
      expect(response.body).not.toContain(forbidden);
  });

  it("changes pruned from the feed are gone from the history too; meta.prunedThrough says up to which sequence", async () => {
    const appId = await createApp();
    await set(appId, "old", "p1");
    await set(appId, "old", "p2");
    clock.advance(120_000);
    await set(appId, "old", "p3");
    await runJobNow(t, "entitlements.housekeeping");
    const page = await history(appId, "old");
    expect(page.items.map((c) => [c.sequence, c.entitlement.plan])).toEqual([[3, "p3"]]);
    expect(page.meta.prunedThrough).toBe(2);
  });
});
