// remote mode: in-process only: a manual clock (lists by time)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectSessionRouteDenials } from "../support/auth-cases.js";
import type { TransitionRequestStatus as StatusDocument } from "../../packages/client/src/sdk/workflows.js";
import { createProduct, provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";

/*
 * Issue 25 item 4: the operator's list of transition requests with their status and outcome
 * (`GET /api/v1/admin/transition-requests`, admin:read), filtered by entity and status, with
 * cursors bound to the filter — over HTTP against the real server and database.
 */

const list = "/api/v1/admin/transition-requests";
const requests = "/api/v1/workflows/transition-requests";

interface Page {
  items: StatusDocument[];
  meta: { hasMore: boolean; nextCursor: string | null };
}

let t: TestApp;
let tenant: ProvisionedTenant;
let other: ProvisionedTenant;
let clock: { advance(ms: number): void };
let first: string;
let second: string;
let othersEntity: string;
/** The request ids in the order they were made. */
const made: string[] = [];
let keys = 0;

async function request(who: ProvisionedTenant, entityId: string, transition: string): Promise<string> {
  const r = await t.inject({
    method: "POST",
    url: requests,
    headers: { ...bearer(who.token), "x-tenant-id": who.id, "x-idempotency-key": `list-${keys++}` },
    payload: { entity: "product", entityId, transition },
  });
  expect(r.statusCode, r.body).toBe(202);
  clock.advance(1000);
  return r.json<{ requestId: string }>().requestId;
}

async function get(url: string, who = tenant) {
  const r = await t.inject({ method: "GET", url, headers: bearer(who.token) });
  return { status: r.statusCode, body: r.json<Record<string, unknown>>() };
}

/** Every item of the list with `query`, `limit` per page (1: every page boundary is crossed). */
async function allPages(query: Record<string, string> = {}, limit = 1, who = tenant) {
  const items: StatusDocument[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const params = new URLSearchParams({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    const r = await get(`${list}?${params.toString()}`, who);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const page = r.body as unknown as Page;
    items.push(...page.items);
    cursor = page.meta.nextCursor;
    expect(cursor !== null).toBe(page.meta.hasMore);
    if (!page.meta.hasMore) return items;
  }
  throw new Error("too many pages");
}

beforeAll(async () => {
  t = await createTestApp({ manualClock: true });
  clock = t.container.clock as unknown as { advance(ms: number): void };
  tenant = await provisionTenant(t);
  other = await provisionTenant(t);
  first = await createProduct(t, tenant);
  second = await createProduct(t, tenant);
  othersEntity = await createProduct(t, other);
  // first: submit succeeds, publish from in_review is not allowed (failed);
  // second: submit and approve succeed; then one more that stays pending (its job not run).
  made.push(await request(tenant, first, "submit"));
  await t.drainJobs();
  made.push(await request(tenant, first, "publish"));
  made.push(await request(tenant, second, "submit"));
  await t.drainJobs();
  made.push(await request(tenant, second, "approve"));
  await request(other, othersEntity, "submit");
  await t.drainJobs();
  made.push(await request(tenant, second, "retire"));
}, 120_000);
afterAll(async () => {
  await t.close();
});

describe("GET /api/v1/admin/transition-requests", () => {
  it("lists the tenant's requests in creation order, each with its status and outcome as its status document", async () => {
    const all = await allPages({}, 100);
    expect(all.map((r) => r.requestId)).toEqual(made);
    expect(all.map((r) => [r.transition, r.status])).toEqual([
      ["submit", "succeeded"],
      ["publish", "failed"],
      ["submit", "succeeded"],
      ["approve", "succeeded"],
      ["retire", "pending"],
    ]);
    expect(all[0]?.result).toEqual({ fromState: "draft", toState: "in_review" });
    expect(all[1]?.error?.code).toBe("ERR_WORKFLOW_TRANSITION_NOT_ALLOWED");
    expect(all[1]?.result).toBeNull();
    expect(all[4]?.completedAt).toBeNull();
    for (const item of all) {
      const status = await get(`${requests}/${item.requestId}`);
      expect(status.status).toBe(200);
      expect(item).toEqual(status.body);
    }
  });

  it("entityId narrows to one entity's requests, across pages", async () => {
    const all = await allPages({}, 100);
    for (const entityId of [first, second]) {
      const filtered = await allPages({ entityId });
      expect(filtered.map((r) => r.requestId)).toEqual(
        all.filter((r) => r.entityId === entityId).map((r) => r.requestId),
      );
      expect(filtered.length).toBeGreaterThan(1);
    }
    // An id written in capitals is the same entity.
    expect((await allPages({ entityId: first.toUpperCase() })).map((r) => r.requestId)).toEqual([
      made[0],
      made[1],
    ]);
  });

  it("status narrows to the requests in that status, across pages and together with entityId", async () => {
    expect((await allPages({ status: "succeeded" })).map((r) => r.requestId)).toEqual([
      made[0],
      made[2],
      made[3],
    ]);
    expect((await allPages({ status: "failed" })).map((r) => r.requestId)).toEqual([made[1]]);
    expect((await allPages({ status: "pending" })).map((r) => r.requestId)).toEqual([made[4]]);
    expect(await allPages({ status: "processing" })).toEqual([]);
    expect((await allPages({ status: "succeeded", entityId: second })).map((r) => r.requestId)).toEqual([
      made[2],
      made[3],
    ]);
  });

  it("a cursor issued for one filter is 400 with another filter or none", async () => {
    const page = await get(`${list}?status=succeeded&limit=1`);
    const cursor = (page.body as unknown as Page).meta.nextCursor ?? "";
    expect(cursor).not.toBe("");
    for (const query of [
      `status=failed&cursor=${cursor}`,
      `cursor=${cursor}`,
      `status=succeeded&entityId=${first}&cursor=${cursor}`,
    ]) {
      const r = await get(`${list}?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body).toMatchObject({ code: "ERR_VALIDATION", errors: [{ pointer: "/query/cursor" }] });
    }
    // With its own filter it continues the list.
    const next = await get(`${list}?status=succeeded&limit=1&cursor=${cursor}`);
    expect(next.status).toBe(200);
    expect((next.body as unknown as Page).items.map((r) => r.requestId)).toEqual([made[2]]);
  });

  it("an unknown status is 400 naming the allowed values; an entityId that is no UUID is 400", async () => {
    const r = await get(`${list}?status=done`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: "ERR_VALIDATION", errors: [{ pointer: "/query/status" }] });
    expect(String(r.body.detail)).toContain("pending, processing, succeeded, failed");
    const bad = await get(`${list}?entityId=not-an-id`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "ERR_VALIDATION" });
  });

  it("another tenant's requests are not visible, not even by its entity's id", async () => {
    const mine = await allPages({}, 100);
    expect(mine.every((r) => r.entityId !== othersEntity)).toBe(true);
    expect(await allPages({ entityId: othersEntity })).toEqual([]);
    const theirs = await allPages({}, 100, other);
    expect(theirs.map((r) => [r.entityId, r.transition, r.status])).toEqual([
      [othersEntity, "submit", "succeeded"],
    ]);
    // A cursor of one tenant's list is not valid in another's.
    const page = await get(`${list}?limit=1`);
    const cursor = (page.body as unknown as Page).meta.nextCursor ?? "";
    expect((await get(`${list}?cursor=${cursor}`, other)).status).toBe(400);
  });

  it("denies without credentials (401) and without admin:read (403)", async () => {
    await expectSessionRouteDenials(t, { method: "GET", url: list, insufficientScopes: ["workflows:read"] });
  });

  it("is published as the entrypoint admin.transitionRequests with its list action", async () => {
    const r = await get("/api/v1/profile/entrypoints");
    const entry = (
      r.body as unknown as { entrypoints: { id: string; href: string; actions: unknown[] }[] }
    ).entrypoints.find((e) => e.id === "admin.transitionRequests");
    expect(entry).toMatchObject({ href: list, actions: [{ id: "list", method: "GET", href: list }] });
  });
});
