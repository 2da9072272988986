// remote mode: in-process only: a fake clock and HANSE_FEED_RETENTION_SECONDS of its own
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Change, EntitlementSchema } from "../../src/modules/entitlements/entitlements.schemas.js";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { changeFeedJsonFromColumns } from "../../src/platform/db/migrations/2026-11-29T1200-entitlement-change-feed-json.js";
import type { ChangesPage, FeedEntitlement, SnapshotPage } from "../support/entitlement-feed.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { signedHeaders, type ServiceCredential } from "../support/service-signer.js";
import { bearer, createTestApp, runJobNow, type TestApp } from "../support/test-app.js";
import { onPostgres } from "../support/test-database.js";

const base = "/api/v1/public/v1/app-entitlements";
const clock = createManualClock(new Date("2026-11-26T08:00:00.000Z"));
let t: TestApp;
let tenant: ProvisionedTenant;
let counter = 0;

type Entitlement = FeedEntitlement;

const get = (credential: ServiceCredential, target: string) =>
  t.inject({
    method: "GET",
    url: target,
    headers: signedHeaders(credential, "GET", target, {
      timestamp: Math.floor(clock.now().getTime() / 1000),
    }),
  });

async function setup() {
  const appId = `feed-${counter++}`;
  const headers = bearer(tenant.token);
  await t.inject({
    method: "POST",
    url: "/api/v1/admin/apps",
    headers,
    payload: { id: appId, name: appId, capabilities: ["use", "b:x", "read.all"] },
  });
  const binding = await t.inject({
    method: "POST",
    url: "/api/v1/admin/service-bindings",
    headers,
    payload: { appId, audience: `aud-${appId}`, requiredCapabilities: [] },
  });
  const set = async (actorId: string, plan: string, more: Record<string, unknown> = {}) => {
    const response = await t.inject({
      method: "PUT",
      url: `/api/v1/admin/apps/${appId}/entitlements/${encodeURIComponent(actorId)}`,
      headers,
      payload: { status: "active", plan, capabilities: ["use"], ...more },
    });
    expect(response.statusCode, response.body).toBe(200);
  };
  return { appId, credential: binding.json<ServiceCredential>(), set };
}

/** What a sync service does (rules/interface C rules 1-2): snapshot, then changes; on 410 start again. */
async function synchronise(
  credential: ServiceCredential,
  projection: Map<string, Entitlement>,
  from: number,
) {
  let after = from;
  for (;;) {
    const response = await get(credential, `${base}/service/changes?afterSequence=${after}`);
    if (response.statusCode === 410) {
      expect(response.json<{ code: string }>().code).toBe("ERR_APP_ENTITLEMENT_CURSOR_EXPIRED");
      projection.clear();
      let page = (await get(credential, `${base}/service/snapshot?limit=2`)).json<SnapshotPage>();
      const asOf = page.asOfSequence;
      for (;;) {
        for (const item of page.items) projection.set(item.actorId, item);
        if (!page.meta.nextCursor) break;
        page = (
          await get(
            credential,
            `${base}/service/snapshot?limit=2&asOfSequence=${asOf}&cursor=${page.meta.nextCursor}`,
          )
        ).json<SnapshotPage>();
      }
      after = asOf;
      continue;
    }
    expect(response.statusCode).toBe(200);
    const page = response.json<ChangesPage>();
    for (const change of page.items) {
      if (change.entitlement) projection.set(change.actorId, change.entitlement);
      else projection.delete(change.actorId);
    }
    after = page.meta.lastSequence;
    if (!page.meta.hasMore) return after;
  }
}

/** The recurring entitlements.housekeeping job, run now (the worker would run it within a minute). */
const runHousekeeping = () => runJobNow(t, "entitlements.housekeeping");

beforeAll(async () => {
  t = await createTestApp({ clock, env: { HANSE_FEED_RETENTION_SECONDS: "60" } });
  tenant = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
});

describe("the change feed's JSON (issue 38)", () => {
  it("is serialised like every other response: its bytes are JSON.stringify of its value in the documented key order", async () => {
    const { appId, credential, set } = await setup();
    await set("a", "p1");
    await set("b", "p2");
    // What JSON must escape, and what the database writes in its own way (arrays, null, numbers).
    await set('c "quoted" \\ ü 😀', 'plan "x" \\ / ü', {
      capabilities: ["use", "b:x", "read.all"],
      validUntil: "2099-01-01T00:00:00.000Z",
    });
    await set("d", "p4 \n\t\u0001\u001f\u007f\u2028", { capabilities: [] });
    const response = await get(credential, `${base}/service/changes?afterSequence=0`);
    expect(response.statusCode).toBe(200);
    const page = response.json<{
      items: ({ entitlement: Record<string, unknown> } & Record<string, unknown>)[];
      meta: Record<string, unknown>;
    }>();
    const inOrder = (value: Record<string, unknown>, keys: string[]) =>
      Object.fromEntries(keys.map((key) => [key, value[key]]));
    const documented = {
      items: page.items.map((item) => ({
        ...inOrder(item, Object.keys(Change.properties)),
        entitlement: inOrder(item.entitlement, Object.keys(EntitlementSchema.properties)),
      })),
      meta: inOrder(page.meta, ["hasMore", "lastSequence", "latestSequence"]),
    };
    expect(page.items).toHaveLength(4);
    expect(page.items[2]?.actorId).toBe('c "quoted" \\ ü 😀');
    expect(page.items[2]?.entitlement.capabilities).toEqual(["use", "b:x", "read.all"]);
    expect(response.body).toBe(JSON.stringify(documented));
    // The same entitlement reads the same in the feed and in the admin API.
    const admin = await t.inject({
      method: "GET",
      url: `/api/v1/admin/apps/${appId}/entitlements/b`,
      headers: bearer(tenant.token),
    });
    expect(response.body).toContain(admin.body);
  });

  it("changes recorded without their feed text (before 2026-11-29T1200, or by the version before during a rolling upgrade) read the same bytes", async () => {
    const { appId, credential, set } = await setup();
    await set("a", "p1");
    await set('c "quoted" \\ ü 😀', 'plan "x" \\ / ü \n\t\u0001\u001f\u007f\u2028', {
      capabilities: ["use", "b:x", "read.all"],
      validUntil: "2099-01-01T00:00:00.000Z",
    });
    await set("d", "p4", { capabilities: [] });
    const target = `${base}/service/changes?afterSequence=0`;
    const written = await get(credential, target);
    expect(written.statusCode).toBe(200);
    const db = t.container.database.db;
    const only = sql`WHERE tenant_id = ${tenant.id} AND app_id = ${appId}`;
    // Recorded by the version before (a rolling upgrade): the page writes the text itself.
    await sql`UPDATE entitlement_changes SET feed_json = NULL ${only}`.execute(db);
    expect((await get(credential, target)).body).toBe(written.body);
    // A stored text is what the page sends.
    await sql`UPDATE entitlement_changes SET feed_json = '{}' ${only}`.execute(db);
    expect((await get(credential, target)).body).toContain('"items":[{},{},{}]');
    await sql`${sql.raw(changeFeedJsonFromColumns)} WHERE c.tenant_id = ${tenant.id} AND c.app_id = ${appId}`.execute(
      db,
    );
    const backfilled = await get(credential, target);
    expect(backfilled.body).toBe(written.body);
  });
});

describe("change feed retention (rules/contract §5, rules/interface C rule 2)", () => {
  it("rules/contract §5: 410 ERR_APP_ENTITLEMENT_CURSOR_EXPIRED exactly when a change after afterSequence was pruned", async () => {
    const { credential, set } = await setup();
    await set("a", "p1");
    await set("b", "p1");
    await set("c", "p1");
    clock.advance(120_000);
    await set("a", "p2");
    await set("d", "p1");
    await runHousekeeping();
    for (const after of [0, 1, 2]) {
      const response = await get(credential, `${base}/service/changes?afterSequence=${after}`);
      expect(response.statusCode, String(after)).toBe(410);
      expect(response.headers["content-type"]).toContain("application/problem+json");
    }
    const kept = (await get(credential, `${base}/service/changes?afterSequence=3`)).json<ChangesPage>();
    expect(kept.items.map((c) => c.sequence)).toEqual([4, 5]);
    // A snapshot pinned before the pruned changes cannot be served any more either.
    const stale = await get(credential, `${base}/service/snapshot?asOfSequence=2`);
    expect(stale.statusCode).toBe(410);
    const fresh = (await get(credential, `${base}/service/snapshot`)).json<SnapshotPage>();
    expect(fresh.asOfSequence).toBe(5);
  });

  it("rules/interface C rule 2: on 410 the client discards its projection, takes a new snapshot and follows the changes", async () => {
    const { credential, set } = await setup();
    await set("x", "p1");
    await set("y", "p1");
    const projection = new Map<string, Entitlement>();
    const seen = await synchronise(credential, projection, 0);
    expect(seen).toBe(2);
    projection.set("ghost", { actorId: "ghost", status: "active", plan: "stale", sequence: 0 });
    clock.advance(120_000);
    await set("x", "p2");
    await set("z", "p1");
    clock.advance(120_000);
    await set("y", "p3");
    await runHousekeeping();
    const after = await synchronise(credential, projection, seen);
    expect(after).toBe(5);
    expect([...projection.values()].map((e) => `${e.actorId}:${e.plan}`).sort()).toEqual([
      "x:p2",
      "y:p3",
      "z:p1",
    ]);
  });
});

describe("sequence numbers that are no sequence (issue 38 defect 1)", () => {
  // Sequences are bigint columns read as JavaScript numbers: a valid one is at most 2^53 − 1.
  const invalid = ["9223372036854775807", "9223372036854775808", "18446744073709551616", "9007199254740992"];

  it("afterSequence and asOfSequence of 2^53 and beyond are 400 ERR_VALIDATION pointing at the parameter", async () => {
    const { credential, set } = await setup();
    await set("a", "p1");
    for (const [path, name] of [
      ["changes", "afterSequence"],
      ["snapshot", "asOfSequence"],
    ] as const) {
      for (const value of invalid) {
        const response = await get(credential, `${base}/service/${path}?${name}=${value}`);
        expect(response.statusCode, `${name}=${value}`).toBe(400);
        expect(response.json()).toMatchObject({
          code: "ERR_VALIDATION",
          errors: [{ pointer: `/query/${name}` }],
        });
      }
    }
    const largest = await get(credential, `${base}/service/changes?afterSequence=${Number.MAX_SAFE_INTEGER}`);
    expect(largest.json()).toMatchObject({
      code: "ERR_VALIDATION",
      errors: [{ pointer: "/query/afterSequence" }],
    });
  });

  it("a webhook recovery from sequence 2^63 is 400 ERR_VALIDATION pointing at fromSequence", async () => {
    // The body is validated before the subscription is looked up: any id will do.
    const id = randomUUID();
    const response = await t.inject({
      method: "POST",
      url: `/api/v1/admin/webhook-subscriptions/${id}/recover`,
      headers: { ...bearer(tenant.token), "content-type": "application/json" },
      payload: '{"fromSequence":9223372036854775808}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "ERR_VALIDATION", errors: [{ pointer: "/fromSequence" }] });
  });
});

describe("credentials over time (rules/contract §5)", () => {
  it("rules/contract §5: a rotated-out secret is valid for HANSE_CREDENTIAL_OVERLAP_SECONDS, then refused", async () => {
    const { credential } = await setup();
    const bindingId = (
      await t.inject({
        method: "GET",
        url: "/api/v1/admin/service-bindings?limit=100",
        headers: bearer(tenant.token),
      })
    )
      .json<{ items: { id: string; credentialId: string }[] }>()
      .items.find((b) => b.credentialId === credential.credentialId)?.id;
    const rotated = await t.inject({
      method: "POST",
      url: `/api/v1/admin/service-bindings/${bindingId ?? ""}/rotate`,
      headers: bearer(tenant.token),
    });
    const fresh = rotated.json<ServiceCredential>();
    const target = `${base}/service/introspect/anyone`;
    clock.advance(3599_000);
    expect((await get(credential, target)).statusCode).toBe(200);
    clock.advance(2_000);
    const late = await get(credential, target);
    expect(late.statusCode).toBe(401);
    expect(late.json<{ code: string }>().code).toBe("ERR_SERVICE_AUTH_INVALID_CREDENTIAL");
    expect((await get(fresh, target)).statusCode).toBe(200);
  });

  it("rules/contract §5: a nonce store that cannot answer fails the request with 503, never lets it through", async () => {
    const { credential } = await setup();
    const target = `${base}/service/introspect/anyone`;
    await sql`ALTER TABLE service_nonces RENAME TO service_nonces_away`.execute(t.container.database.db);
    try {
      const response = await get(credential, target);
      expect(response.statusCode).toBe(503);
      expect(response.json<{ code: string }>().code).toBe("ERR_UNAVAILABLE");
      expect(response.headers["retry-after"]).toBeDefined();
    } finally {
      await sql`ALTER TABLE service_nonces_away RENAME TO service_nonces`.execute(t.container.database.db);
    }
    expect((await get(credential, target)).statusCode).toBe(200);
  });
});

describe.runIf(onPostgres)("sequences in commit order (issue 21 item 2, rules/contract §5)", () => {
  it("8 concurrent writers × 1,000 changes: a following reader sees every sequence once, in order, none late", async () => {
    const { credential, appId } = await setup();
    const headers = bearer(tenant.token);
    const writers = 8;
    const perWriter = 1000;
    const progress = { writing: true };
    const seen: number[] = [];
    const reader = (async () => {
      let after = 0;
      while (progress.writing || after < writers * perWriter) {
        const page = (
          await get(credential, `${base}/service/changes?afterSequence=${after}&limit=1000`)
        ).json<ChangesPage>();
        for (const change of page.items) seen.push(change.sequence);
        after = page.meta.lastSequence;
        if (page.items.length === 0) await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < perWriter; i++) {
          const response = await t.inject({
            method: "PUT",
            url: `/api/v1/admin/apps/${appId}/entitlements/w${w}-${i % 50}`,
            headers,
            payload: { status: "active", plan: `p${i}`, capabilities: [] },
          });
          expect(response.statusCode).toBe(200);
        }
      }),
    );
    progress.writing = false;
    await reader;
    expect(seen.length).toBe(writers * perWriter);
    expect(seen.every((sequence, i) => sequence === i + 1)).toBe(true);
  }, 300_000);
});
