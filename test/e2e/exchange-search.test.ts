// remote mode: in-process only: a manual clock and query plans read on its own database
import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  defaultProfile,
  ordersMessage,
  rejectedOrders,
  setupPartner,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { listPage } from "../../src/modules/exchange/partners/partners.repository.js";
import { connectionNamesFromPartners } from "../../src/platform/db/migrations/2026-11-28T1400-exchange-search.js";
import { overHttp } from "../support/http-injector.js";
import { provisionTenant, systemToken, type ProvisionedTenant } from "../support/fixtures.js";
import { createTestApp, type TestApp } from "../support/test-app.js";

/*
 * rules/contract §8, issue 34 item 2 ("names and finding things"): connections have names and the
 * operator views carry the partner's and the connection's; uploads are found by interchange
 * reference, document number (BGM 1004 of any message), partner, connection, status and time;
 * every admin list takes `order=asc|desc` with cursors bound to order and filter that stay
 * stable while rows are added — over HTTP against the real server.
 */

let t: TestApp;
let tenant: ProvisionedTenant;
let base: string;
let clock: { advance(ms: number): void };
const hour = 3600_000;
/** Partner "Globex AG" with two connections (one named), partner "Initech" with one. */
let globexId: string;
let initechId: string;
let g1: PartnerSetup;
let g2: PartnerSetup;
let i1: PartnerSetup;
/** Upload ids by name, and the time between the first three and the rest. */
const ids: Record<string, string> = {};
let middle: string;

const http = overHttp(() => base);

async function call(method: "GET" | "POST" | "PATCH", path: string, body?: unknown, token = tenant.token) {
  const r = await http.inject({
    method,
    url: path,
    headers: { authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
  });
  return { status: r.statusCode, body: r.json<Record<string, unknown>>() };
}
const get = (path: string, token?: string) => call("GET", path, undefined, token);

interface Row {
  id: string;
  connectionId?: string;
  partnerId?: string;
  partnerName?: string;
  connectionName?: string;
  status?: string;
  createdAt?: string;
}
interface Page {
  items: Row[];
  meta: { hasMore: boolean; nextCursor: string | null };
}

/** Every item of a list, `limit` per page; `between` runs after each page (rows added meanwhile). */
async function allPages(
  path: string,
  query: Record<string, string>,
  options: { limit?: number; token?: string; between?: () => Promise<void> } = {},
): Promise<Row[]> {
  const items: Row[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const params = new URLSearchParams({
      ...query,
      limit: String(options.limit ?? 1),
      ...(cursor ? { cursor } : {}),
    }).toString();
    const r = await get(`${path}?${params}`, options.token);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const page = r.body as unknown as Page;
    items.push(...page.items);
    cursor = page.meta.nextCursor;
    if (!page.meta.hasMore) return items;
    await options.between?.();
  }
  throw new Error("too many pages");
}

const uploads = "/api/v1/admin/exchange-uploads";
const deliveries = "/api/v1/admin/exchange-deliveries";

/** An ORDERS interchange of several messages, one per document number. */
const multiOrders = (ref: string, numbers: string[]) =>
  `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}'` +
  numbers.map((po, i) => ordersMessage(String(i + 1), po)).join("") +
  `UNZ+${numbers.length}+${ref}'`;

let sent = 0;
async function send(name: string, setup: PartnerSetup, body: string) {
  const r = await upload(http, setup, body, `search-${sent++}`);
  expect(r.statusCode, r.body).toBe(202);
  ids[name] = r.json<{ uploadId: string }>().uploadId;
  await t.drainJobs();
  clock.advance(hour);
}

beforeAll(async () => {
  t = await createTestApp({ manualClock: true });
  clock = t.container.clock as unknown as { advance(ms: number): void };
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  tenant = await provisionTenant(t);
  // The tests advance the clock by days: a long-lived access token outlives the session.
  const token = await call("POST", "/api/v1/admin/access-tokens", {
    name: "search tests",
    scopes: ["admin:read", "admin:write", "users:read"],
  });
  expect(token.status).toBe(201);
  tenant = { ...tenant, token: String(token.body.token) };
  globexId = ((await call("POST", "/api/v1/admin/partners", { name: "Globex AG" })).body as unknown as Row)
    .id;
  initechId = ((await call("POST", "/api/v1/admin/partners", { name: "Initech" })).body as unknown as Row).id;
  g1 = await setupPartner(http, tenant.token, { partnerId: globexId });
  g2 = await setupPartner(http, tenant.token, { partnerId: globexId });
  i1 = await setupPartner(http, tenant.token, { partnerId: initechId });
  expect(
    (await call("PATCH", `/api/v1/admin/connections/${g2.connectionId}`, { name: "Globex · EDI test" }))
      .status,
  ).toBe(200);

  await send("r1", g1, validOrders("R1")); // PO-R1
  await send("r2", g2, multiOrders("R2", ["PO4713", "PO4714", "PO4715"]));
  await send("r3", i1, validOrders("R3")); // PO-R3
  middle = new Date(t.container.clock.now().getTime() - 1).toISOString();
  await send("r4", i1, rejectedOrders("R4")); // rejected; its message's BGM is PO1
  await send("r5", g1, validOrders("R5")); // PO-R5
  await send("r6", i1, multiOrders("R6", ["PO-X", "PO4714"])); // PO4714 again, another partner
}, 180_000);
afterAll(async () => {
  await t.close();
});

describe("connection names (rules/contract §8)", () => {
  it("a connection is named after its partner unless given a name; the name is in its record and can be changed", async () => {
    const c = await call("GET", `/api/v1/admin/connections/${g1.connectionId}`);
    expect(c.body).toMatchObject({ id: g1.connectionId, partnerId: globexId, name: "Globex AG" });
    const named = await call("GET", `/api/v1/admin/connections/${g2.connectionId}`);
    expect(named.body).toMatchObject({ name: "Globex · EDI test", status: "active" });
    const created = await call("POST", "/api/v1/admin/connections", {
      partnerId: initechId,
      name: "Initech · AS2 backup",
      profile: defaultProfile,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ partnerId: initechId, name: "Initech · AS2 backup" });
    const list = await allPages("/api/v1/admin/connections", {});
    expect(list.find((r) => r.id === g2.connectionId)).toMatchObject({ name: "Globex · EDI test" });
  });

  it("bad names are 400 ERR_VALIDATION at /name and change nothing", async () => {
    for (const name of ["", " ", "x".repeat(201), 42]) {
      const r = await call("PATCH", `/api/v1/admin/connections/${g1.connectionId}`, { name });
      expect(r.status, JSON.stringify(name)).toBe(400);
      expect(r.body).toMatchObject({ code: "ERR_VALIDATION" });
      const pointers = (r.body.errors as { pointer: string }[]).map((e) => e.pointer);
      expect(pointers).toContain("/name");
      const created = await call("POST", "/api/v1/admin/connections", {
        partnerId: initechId,
        name,
        profile: defaultProfile,
      });
      expect(created.status).toBe(400);
    }
    const after = await call("GET", `/api/v1/admin/connections/${g1.connectionId}`);
    expect(after.body).toMatchObject({ name: "Globex AG" });
    const connections = await allPages("/api/v1/admin/connections", {}, { limit: 100 });
    expect(connections).toHaveLength(4);
    // 200 characters is a name.
    const long = "n".repeat(200);
    expect((await call("PATCH", `/api/v1/admin/connections/${i1.connectionId}`, { name: long })).status).toBe(
      200,
    );
    expect(
      (await call("PATCH", `/api/v1/admin/connections/${i1.connectionId}`, { name: "Initech" })).status,
    ).toBe(200);
  });

  it("the operator views of uploads and deliveries carry partnerName and connectionName", async () => {
    const list = await allPages(uploads, {}, { limit: 100 });
    const byId = new Map(list.map((u) => [u.id, u]));
    expect(byId.get(ids.r1 ?? "")).toMatchObject({
      partnerId: globexId,
      partnerName: "Globex AG",
      connectionName: "Globex AG",
    });
    expect(byId.get(ids.r2 ?? "")).toMatchObject({
      partnerName: "Globex AG",
      connectionName: "Globex · EDI test",
    });
    expect(byId.get(ids.r3 ?? "")).toMatchObject({
      partnerId: initechId,
      partnerName: "Initech",
      connectionName: "Initech",
    });
    const one = await get(`${uploads}/${ids.r2 ?? ""}`);
    expect(one.body).toMatchObject({ partnerName: "Globex AG", connectionName: "Globex · EDI test" });
    const outbound = await allPages(deliveries, { uploadId: ids.r2 ?? "" }, { limit: 100 });
    expect(outbound.length).toBeGreaterThan(0);
    for (const d of outbound) {
      expect(d).toMatchObject({
        connectionId: g2.connectionId,
        partnerName: "Globex AG",
        connectionName: "Globex · EDI test",
      });
    }
    const delivery = await get(`${deliveries}/${outbound[0]?.id ?? ""}`);
    expect(delivery.body).toMatchObject({ partnerId: globexId, connectionName: "Globex · EDI test" });
  });
});

describe("finding uploads (rules/contract §8 filters)", () => {
  const found = async (query: Record<string, string>) => (await allPages(uploads, query)).map((u) => u.id);
  const named = (...names: string[]) => names.map((n) => ids[n]);

  it("interchangeReference finds the upload of that UNB 0020", async () => {
    expect(await found({ interchangeReference: "R5" })).toEqual(named("r5"));
    expect(await found({ interchangeReference: "R4" })).toEqual(named("r4"));
    expect(await found({ interchangeReference: "NOPE" })).toEqual([]);
  });

  it("documentNumber finds every upload with a message of that BGM 1004, also the second and third message of an interchange", async () => {
    expect(await found({ documentNumber: "PO-R1" })).toEqual(named("r1"));
    expect(await found({ documentNumber: "PO4713" })).toEqual(named("r2"));
    expect(await found({ documentNumber: "PO4715" })).toEqual(named("r2"));
    expect(await found({ documentNumber: "PO4714" })).toEqual(named("r2", "r6"));
    // A rejected interchange's messages are searchable too.
    expect(await found({ documentNumber: "PO1" })).toEqual(named("r4"));
    expect(await found({ documentNumber: "PO4714", partnerId: initechId })).toEqual(named("r6"));
    expect(await found({ documentNumber: "PO47" })).toEqual([]);
  });

  it("partnerId finds the uploads of all the partner's connections; connectionId of one", async () => {
    expect(await found({ partnerId: globexId })).toEqual(named("r1", "r2", "r5"));
    expect(await found({ partnerId: initechId })).toEqual(named("r3", "r4", "r6"));
    expect(await found({ connectionId: g1.connectionId })).toEqual(named("r1", "r5"));
    expect(await found({ partnerId: initechId, connectionId: g1.connectionId })).toEqual([]);
  });

  it("status, from (inclusive) and to (exclusive) narrow on status and createdAt, combined with the others", async () => {
    expect(await found({ status: "rejected" })).toEqual(named("r4"));
    expect(await found({ from: middle })).toEqual(named("r4", "r5", "r6"));
    expect(await found({ to: middle })).toEqual(named("r1", "r2", "r3"));
    expect(await found({ partnerId: globexId, from: middle })).toEqual(named("r5"));
    expect(await found({ partnerId: initechId, status: "processed", order: "desc" })).toEqual(
      named("r6", "r3"),
    );
  });

  it("bad filter values are 400 ERR_VALIDATION with the pointer of the parameter", async () => {
    const cases: [string, string][] = [
      ["interchangeReference=", "/query/interchangeReference"],
      [`interchangeReference=${"9".repeat(36)}`, "/query/interchangeReference"],
      ["interchangeReference=R%201", "/query/interchangeReference"],
      ["documentNumber=", "/query/documentNumber"],
      ["documentNumber=%20%20", "/query/documentNumber"],
      [`documentNumber=${"9".repeat(71)}`, "/query/documentNumber"],
      ["partnerId=globex", "/query/partnerId"],
      ["connectionId=42", "/query/connectionId"],
      ["status=lost", "/query/status"],
      ["from=yesterday", "/query/from"],
      ["order=newest", "/query/order"],
    ];
    for (const [query, pointer] of cases) {
      const r = await get(`${uploads}?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body, query).toMatchObject({ code: "ERR_VALIDATION" });
      expect(
        (r.body.errors as { pointer: string }[]).map((e) => e.pointer),
        query,
      ).toContain(pointer);
    }
    const d = await get(`${deliveries}?order=up`);
    expect(d.status).toBe(400);
    expect((d.body.errors as { pointer: string }[]).map((e) => e.pointer)).toContain("/query/order");
  });

  it("a cursor is bound to the filter and to the order: another one is 400 at /query/cursor", async () => {
    const first = await get(`${uploads}?limit=1&partnerId=${globexId}`);
    const cursor = (first.body as unknown as Page).meta.nextCursor ?? "";
    expect(cursor).not.toBe("");
    const ok = await get(`${uploads}?limit=1&partnerId=${globexId}&cursor=${cursor}`);
    expect(ok.status).toBe(200);
    for (const other of [
      `partnerId=${initechId}`,
      `partnerId=${globexId}&documentNumber=PO4714`,
      `partnerId=${globexId}&order=desc`,
    ]) {
      const r = await get(`${uploads}?limit=1&${other}&cursor=${cursor}`);
      expect(r.status, other).toBe(400);
      expect(r.body.errors).toEqual([{ pointer: "/query/cursor", message: "invalid cursor" }]);
    }
  });

  /** The plan of the uploads list with `filter` in `order`, sequential scans priced out. */
  async function plan(filter: object, order: "asc" | "desc") {
    const query = listPage(
      t.container.database.db as never,
      "exchange_uploads",
      tenant.id,
      50,
      undefined,
      filter,
      order,
    ).compile();
    return t.container.database.transaction(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      const rows = await trx.executeQuery<{ "QUERY PLAN": string }>(
        CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]),
      );
      return rows.rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
  }

  it("an interchange reference or a connection, in either order, is one index range in list order (no Sort)", async () => {
    const cases: [object, string, RegExp][] = [
      [{ interchangeReference: "R5" }, "exchange_uploads_by_interchange", /interchange_id = /],
      [{ connectionId: g1.connectionId }, "exchange_uploads_by_connection", /connection_id = /],
    ];
    for (const [filter, index, condition] of cases) {
      for (const order of ["asc", "desc"] as const) {
        const text = await plan(filter, order);
        const scan = order === "desc" ? "Index Scan Backward" : "Index Scan";
        expect(text, text).toContain(`${scan} using ${index}`);
        expect(text, text).toMatch(new RegExp(`Index Cond: .*${condition.source}`));
        expect(text, text).not.toMatch(/Sort|Seq Scan/);
      }
    }
  });

  it("the document number lookup is an index range (exchange_upload_documents), not a scan", async () => {
    const text = await plan({ documentNumber: "PO4714" }, "desc");
    expect(text, text).toMatch(/Index (Only )?Scan (Backward )?using exchange_upload_documents_pkey/);
    expect(text, text).toMatch(/Index Cond: .*document_number = /);
    expect(text, text).not.toMatch(/Seq Scan/);
  });
});

describe("order=asc|desc on every admin list (rules/contract §8)", () => {
  it("order=desc lists the same rows as asc, reversed, on each admin list, one per page", async () => {
    const system = await systemToken(t, ["tenants:list"]);
    const revision = await call(
      "POST",
      `/api/v1/admin/connections/${g1.connectionId}/profile-revisions`,
      defaultProfile,
    );
    expect(revision.status).toBe(201);
    for (const name of ["ops-a", "ops-b"]) {
      expect(
        (await call("POST", "/api/v1/admin/access-tokens", { name, scopes: ["admin:read"] })).status,
      ).toBe(201);
    }
    const lists: [string, string | undefined][] = [
      ["/api/v1/admin/partners", undefined],
      ["/api/v1/admin/connections", undefined],
      [`/api/v1/admin/connections/${g1.connectionId}/profile-revisions`, undefined],
      ["/api/v1/admin/api-keys", undefined],
      ["/api/v1/admin/access-tokens", undefined],
      ["/api/v1/admin/users", undefined],
      [uploads, undefined],
      [deliveries, undefined],
      ["/api/v1/admin/workflow-definitions", undefined],
      ["/api/v1/admin/entities", undefined],
      ["/api/v1/admin/transition-requests", undefined],
      ["/api/v1/admin/lifecycle-adapters", undefined],
      ["/api/v1/admin/apps", undefined],
      ["/api/v1/admin/service-bindings", undefined],
      ["/api/v1/admin/webhook-subscriptions", undefined],
      ["/api/v1/system/tenants", system],
    ];
    const key = (r: Partial<Row> & { revision?: number; kind?: string }) => r.id ?? r.revision ?? r.kind;
    let nonTrivial = 0;
    for (const [path, token] of lists) {
      const asc = (await allPages(path, {}, { token: token ?? tenant.token })).map(key);
      const desc = (await allPages(path, { order: "desc" }, { token: token ?? tenant.token })).map(key);
      expect(desc, path).toEqual([...asc].reverse());
      expect(new Set(desc).size, path).toBe(desc.length);
      if (asc.length > 1) nonTrivial++;
    }
    expect(nonTrivial).toBeGreaterThanOrEqual(8);
  });

  it("paging newest first while uploads, deliveries and partners are added loses and repeats no row", async () => {
    const before = (await allPages(uploads, {}, { limit: 100 })).map((u) => u.id);
    let n = 0;
    const between = async () => {
      await send(`late-${n}`, g1, validOrders(`L${n}`));
      await call("POST", "/api/v1/admin/partners", { name: `Late ${n}` });
      n++;
    };
    const desc = (await allPages(uploads, { order: "desc" }, { limit: 2, between })).map((u) => u.id);
    expect(n).toBeGreaterThan(1);
    expect(desc).toEqual([...before].reverse());
    const beforeDeliveries = (await allPages(deliveries, {}, { limit: 100 })).map((u) => u.id);
    const descDeliveries = (await allPages(deliveries, { order: "desc" }, { limit: 2, between })).map(
      (u) => u.id,
    );
    expect(descDeliveries).toEqual([...beforeDeliveries].reverse());
    const beforePartners = (await allPages("/api/v1/admin/partners", {}, { limit: 100 })).map((u) => u.id);
    const descPartners = (await allPages("/api/v1/admin/partners", { order: "desc" }, { between })).map(
      (u) => u.id,
    );
    expect(descPartners).toEqual([...beforePartners].reverse());
    // Ascending, the rows added meanwhile come at the end, each once.
    const all = (await allPages(uploads, {}, { limit: 100 })).map((u) => u.id);
    const asc = (await allPages(uploads, {}, { limit: 3, between })).map((u) => u.id);
    expect(asc.slice(0, all.length)).toEqual(all);
    expect(new Set(asc).size).toBe(asc.length);
    // A filtered list newest first, with rows of the filter added between pages.
    const g1Before = (await allPages(uploads, { connectionId: g1.connectionId }, { limit: 100 })).map(
      (u) => u.id,
    );
    const g1Desc = (
      await allPages(uploads, { connectionId: g1.connectionId, order: "desc" }, { between })
    ).map((u) => u.id);
    expect(g1Desc).toEqual([...g1Before].reverse());
  }, 180_000);
});

describe("connections made before names existed (migration 2026-11-28T1400)", () => {
  it("get their partner's name", async () => {
    await sql`UPDATE exchange_connections SET name = 'before the migration' WHERE tenant_id = ${tenant.id}`.execute(
      t.container.database.db,
    );
    await sql.raw(connectionNamesFromPartners).execute(t.container.database.db);
    const names = (await allPages("/api/v1/admin/connections", {}, { limit: 100 })).map((c) => [
      c.id,
      (c as Row & { name: string }).name,
    ]);
    expect(names).toContainEqual([g1.connectionId, "Globex AG"]);
    expect(names).toContainEqual([g2.connectionId, "Globex AG"]);
    expect(names).toContainEqual([i1.connectionId, "Initech"]);
    expect(names.every(([, name]) => name !== "before the migration")).toBe(true);
  });
});
