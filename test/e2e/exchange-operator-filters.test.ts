// remote mode: in-process only: a manual clock (filters by time)
import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claim,
  listMailbox,
  rejectedOrders,
  setupPartner,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { listPage } from "../../src/modules/exchange/partners/partners.repository.js";
import { overHttp } from "../support/http-injector.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { createTestApp, type TestApp } from "../support/test-app.js";

/*
 * Issue 24 item 2 (contract 24-2, `filters`): the operator's lists of uploads and deliveries
 * filtered by connection, status, time range, upload and message type, with cursors bound to the
 * filter — over HTTP against the real server. The lists of connections and API keys filtered by
 * partner, the same way.
 */

let t: TestApp;
let tenant: ProvisionedTenant;
let base: string;
let clock: { advance(ms: number): void };
let c1: PartnerSetup;
let c2: PartnerSetup;
const hour = 3600_000;
/** The time between the first and the second half of the uploads. */
let middle: string;

/** The fixtures' requests, sent over a real port instead of `inject`. */
const http = overHttp(() => base);

async function get(path: string) {
  const r = await http.inject({
    method: "GET",
    url: path,
    headers: { authorization: `Bearer ${tenant.token}` },
  });
  return { status: r.statusCode, body: r.json<Record<string, unknown>>() };
}

interface Row {
  id: string;
  connectionId: string;
  status: string;
  createdAt: string;
  uploadId?: string;
  messageType?: string;
  /** Connections and API keys. */
  partnerId?: string;
}

/** Every item of a list, one item per page (so every page boundary is crossed with the filter). */
async function allPages(path: string, query: Record<string, string>, limit = 1): Promise<Row[]> {
  const items: Row[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const params = new URLSearchParams({
      ...query,
      limit: String(limit),
      ...(cursor ? { cursor } : {}),
    }).toString();
    const r = await get(`${path}?${params}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const page = r.body as { items: Row[]; meta: { hasMore: boolean; nextCursor: string | null } };
    items.push(...page.items);
    cursor = page.meta.nextCursor;
    if (!page.meta.hasMore) return items;
  }
  throw new Error("too many pages");
}

const uploads = "/api/v1/admin/exchange-uploads";
const deliveries = "/api/v1/admin/exchange-deliveries";

beforeAll(async () => {
  t = await createTestApp({ manualClock: true });
  clock = t.container.clock as unknown as { advance(ms: number): void };
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  tenant = await provisionTenant(t);
  c1 = await setupPartner(http, tenant.token);
  c2 = await setupPartner(http, tenant.token, { profile: { responses: { contrl: "always" } } });
  // Per connection: a processed and a rejected upload, an hour apart; the second half after
  // `middle`; one upload of c2 stays `received` (its job not run).
  let n = 0;
  const send = async (setup: PartnerSetup, body: string) => {
    const r = await upload(http, setup, body, `f-${n++}`);
    expect(r.statusCode, r.body).toBe(202);
    await t.drainJobs();
    clock.advance(hour);
  };
  await send(c1, validOrders("A1"));
  await send(c2, validOrders("B1"));
  await send(c1, rejectedOrders("A2"));
  const [last] = (await allPages(uploads, {}, 100)).slice(-1);
  middle = new Date(Date.parse(last?.createdAt ?? "") + 1).toISOString();
  clock.advance(hour);
  await send(c2, rejectedOrders("B2"));
  await send(c1, validOrders("A3"));
  await send(c2, validOrders("B3"));
  const late = await upload(http, c2, validOrders("B4"), `f-${n++}`);
  expect(late.statusCode).toBe(202);
}, 120_000);
afterAll(async () => {
  await t.close();
});

describe("filters on the operator's upload list (contract 24-2)", () => {
  let all: Row[];
  beforeAll(async () => {
    all = await allPages(uploads, {}, 100);
    expect(all).toHaveLength(7);
  });

  it("connectionId narrows the list to that connection's uploads, in creation order, across pages", async () => {
    for (const setup of [c1, c2]) {
      const filtered = await allPages(uploads, { connectionId: setup.connectionId });
      expect(filtered.map((u) => u.id)).toEqual(
        all.filter((u) => u.connectionId === setup.connectionId).map((u) => u.id),
      );
      expect(filtered.length).toBeGreaterThan(2);
    }
  });

  it("status narrows to one status, or to several separated by commas", async () => {
    const rejected = await allPages(uploads, { status: "rejected" });
    expect(rejected.map((u) => u.id)).toEqual(all.filter((u) => u.status === "rejected").map((u) => u.id));
    expect(rejected).toHaveLength(2);
    const two = await allPages(uploads, { status: "received,rejected" });
    expect(two.map((u) => u.id)).toEqual(
      all.filter((u) => u.status === "rejected" || u.status === "received").map((u) => u.id),
    );
    expect(two).toHaveLength(3);
  });

  it("from (inclusive) and to (exclusive) narrow to a time range on createdAt", async () => {
    const after = await allPages(uploads, { from: middle });
    expect(after.map((u) => u.id)).toEqual(all.filter((u) => u.createdAt >= middle).map((u) => u.id));
    expect(after).toHaveLength(4);
    const before = await allPages(uploads, { to: middle });
    expect(before.map((u) => u.id)).toEqual(all.filter((u) => u.createdAt < middle).map((u) => u.id));
    const first = all[0] as Row;
    const exactly = await allPages(uploads, {
      from: first.createdAt,
      to: new Date(Date.parse(first.createdAt) + 1).toISOString(),
    });
    expect(exactly.map((u) => u.id)).toEqual([first.id]);
  });

  it("filters combine: a connection's rejected uploads after a time", async () => {
    const combined = await allPages(uploads, {
      connectionId: c2.connectionId,
      status: "rejected",
      from: middle,
    });
    expect(combined.map((u) => u.id)).toEqual(
      all
        .filter((u) => u.connectionId === c2.connectionId && u.status === "rejected" && u.createdAt >= middle)
        .map((u) => u.id),
    );
    expect(combined).toHaveLength(1);
  });
});

describe("filters on the operator's delivery list (contract 24-2)", () => {
  let all: Row[];
  beforeAll(async () => {
    // One delivery claimed, the others ready.
    const [first] = (await listMailbox(http, c1)).items;
    expect((await claim(http, c1, first?.deliveryAttemptId ?? "")).statusCode).toBe(200);
    all = await allPages(deliveries, {}, 100);
    expect(new Set(all.map((d) => d.messageType))).toEqual(new Set(["CONTRL", "ORDRSP"]));
  });

  it("connectionId, status, uploadId and messageType each narrow the list, across pages", async () => {
    const cases: [Record<string, string>, (d: Row) => boolean][] = [
      [{ connectionId: c1.connectionId }, (d) => d.connectionId === c1.connectionId],
      [{ connectionId: c2.connectionId }, (d) => d.connectionId === c2.connectionId],
      [{ status: "ready" }, (d) => d.status === "ready"],
      [{ status: "claimed" }, (d) => d.status === "claimed"],
      [{ status: "claimed,acknowledged" }, (d) => d.status === "claimed"],
      [{ messageType: "CONTRL" }, (d) => d.messageType === "CONTRL"],
      [{ messageType: "ORDRSP" }, (d) => d.messageType === "ORDRSP"],
      [{ from: middle }, (d) => d.createdAt >= middle],
      [{ to: middle }, (d) => d.createdAt < middle],
      [
        { connectionId: c2.connectionId, messageType: "CONTRL" },
        (d) => d.connectionId === c2.connectionId && d.messageType === "CONTRL",
      ],
    ];
    for (const [query, keep] of cases) {
      const filtered = await allPages(deliveries, query);
      const expected = all.filter(keep).map((d) => d.id);
      expect(
        filtered.map((d) => d.id),
        JSON.stringify(query),
      ).toEqual(expected);
      expect(expected.length, JSON.stringify(query)).toBeGreaterThan(0);
      expect(expected.length, JSON.stringify(query)).toBeLessThan(all.length);
    }
    // An upload with two outbound messages (c2 always sends a CONTRL): both, nothing else.
    const uploadId =
      all.find((d, i) => all.findIndex((e) => e.uploadId === d.uploadId) !== i)?.uploadId ?? "";
    const produced = all.filter((d) => d.uploadId === uploadId);
    expect(produced).toHaveLength(2);
    const filtered = await allPages(deliveries, { uploadId });
    expect(filtered.map((d) => d.id)).toEqual(produced.map((d) => d.id));
  });

  it("no delivery matches: an empty page, no cursor", async () => {
    const r = await get(`${deliveries}?status=failed`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: [], meta: { hasMore: false, nextCursor: null } });
  });
});

describe("a cursor is bound to its filter (contract 24-2)", () => {
  async function firstCursor(path: string, query: string) {
    const r = await get(`${path}?limit=1&${query}`);
    expect(r.status).toBe(200);
    const cursor = (r.body.meta as { nextCursor: string | null }).nextCursor;
    expect(cursor).not.toBeNull();
    return encodeURIComponent(cursor ?? "");
  }
  const refused = (r: { status: number; body: Record<string, unknown> }) => {
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: "ERR_VALIDATION",
      detail: "The cursor is not valid for this list.",
      errors: [{ pointer: "/query/cursor", message: "invalid cursor" }],
    });
    expect(r.body).not.toHaveProperty("items");
  };

  it("a cursor used with another filter, with no filter, or on the other list is 400 and no data", async () => {
    const c1Cursor = await firstCursor(uploads, `connectionId=${c1.connectionId}`);
    refused(await get(`${uploads}?limit=1&connectionId=${c2.connectionId}&cursor=${c1Cursor}`));
    refused(await get(`${uploads}?limit=1&cursor=${c1Cursor}`));
    refused(
      await get(`${uploads}?limit=1&connectionId=${c1.connectionId}&status=processed&cursor=${c1Cursor}`),
    );
    refused(await get(`${deliveries}?limit=1&connectionId=${c1.connectionId}&cursor=${c1Cursor}`));
    const unfiltered = await firstCursor(deliveries, "");
    refused(await get(`${deliveries}?limit=1&messageType=CONTRL&cursor=${unfiltered}`));
    const ranged = await firstCursor(deliveries, `from=${middle}`);
    refused(
      await get(
        `${deliveries}?limit=1&from=${encodeURIComponent(new Date(Date.parse(middle) + 1).toISOString())}&cursor=${ranged}`,
      ),
    );
    // The same filter, written another way (statuses reordered, upper-case id), is the same filter.
    const statuses = await firstCursor(uploads, "status=rejected,processed");
    expect((await get(`${uploads}?limit=1&status=processed,rejected&cursor=${statuses}`)).status).toBe(200);
    const id = await firstCursor(uploads, `connectionId=${c1.connectionId}`);
    expect(
      (await get(`${uploads}?limit=1&connectionId=${c1.connectionId.toUpperCase()}&cursor=${id}`)).status,
    ).toBe(200);
  });
});

describe("bad filter values are 400 naming what is allowed (contract 24-2)", () => {
  const errorsOf = async (path: string) => {
    const r = await get(path);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.code).toBe("ERR_VALIDATION");
    expect(r.body).not.toHaveProperty("items");
    return r.body.errors;
  };

  it("a status outside the collection's statuses names them", async () => {
    expect(await errorsOf(`${uploads}?status=done`)).toEqual([
      {
        pointer: "/query/status",
        message:
          "status must be one of received, processing, processed, rejected, failed, or several of them separated by commas",
      },
    ]);
    expect(await errorsOf(`${deliveries}?status=ready,,failed`)).toEqual([
      {
        pointer: "/query/status",
        message:
          "status must be one of ready, claimed, acknowledged, failed, or several of them separated by commas",
      },
    ]);
    // An upload status is no delivery status.
    expect(await errorsOf(`${deliveries}?status=rejected`)).toHaveLength(1);
  });

  it("a time that is no RFC 3339 date-time, or a range that ends before it starts", async () => {
    expect(await errorsOf(`${uploads}?from=yesterday`)).toEqual([
      { pointer: "/query/from", message: "from must be a date-time such as 2026-01-31T12:00:00Z (RFC 3339)" },
    ]);
    expect(await errorsOf(`${deliveries}?to=2026-11-27`)).toEqual([
      { pointer: "/query/to", message: "to must be a date-time such as 2026-01-31T12:00:00Z (RFC 3339)" },
    ]);
    expect(await errorsOf(`${uploads}?from=2026-11-27T10:00:00Z&to=2026-11-27T10:00:00Z`)).toEqual([
      { pointer: "/query/to", message: "to must be later than from" },
    ]);
  });

  it("an id that is no UUID, a message type that does not exist", async () => {
    expect(await errorsOf(`${uploads}?connectionId=c1`)).toEqual([
      { pointer: "/query/connectionId", message: "connectionId must be a UUID" },
    ]);
    expect(await errorsOf(`${deliveries}?uploadId=42`)).toEqual([
      { pointer: "/query/uploadId", message: "uploadId must be a UUID" },
    ]);
    expect(await errorsOf(`${deliveries}?messageType=INVOIC`)).toEqual([
      { pointer: "/query/messageType", message: "messageType must be one of CONTRL, APERAK, ORDRSP" },
    ]);
    // uploadId and messageType belong to deliveries only.
    expect(await errorsOf(`${uploads}?messageType=CONTRL`)).toEqual([
      { pointer: "/query", message: "unknown field" },
    ]);
  });
});

describe("a filtered page is an index range (migration 2026-11-27T1210)", () => {
  /** The plan of the list's query with `filter`, sequential scans priced out so the indexes show. */
  async function plan(
    table: "exchange_uploads" | "exchange_deliveries" | "exchange_connections",
    filter: object,
  ): Promise<string> {
    const query = listPage(
      t.container.database.db as never,
      table,
      tenant.id,
      50,
      undefined,
      filter,
    ).compile();
    return t.container.database.transaction(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      const rows = await trx.executeQuery<{ "QUERY PLAN": string }>(
        CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]),
      );
      return rows.rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
  }

  it("each filter is an Index Cond of its own index, in list order (no Sort)", async () => {
    const cases: [Parameters<typeof plan>[0], object, string, RegExp][] = [
      [
        "exchange_uploads",
        { connectionId: c1.connectionId },
        "exchange_uploads_by_connection",
        /connection_id =/,
      ],
      ["exchange_uploads", { statuses: ["rejected"] }, "exchange_uploads_by_status", /status =/],
      ["exchange_uploads", { from: new Date(middle) }, "exchange_uploads_paging", /created_at >=/],
      [
        "exchange_deliveries",
        { connectionId: c1.connectionId },
        "exchange_deliveries_by_connection",
        /connection_id =/,
      ],
      ["exchange_deliveries", { statuses: ["failed"] }, "exchange_deliveries_by_status", /status =/],
      ["exchange_deliveries", { messageType: "ORDRSP" }, "exchange_deliveries_by_type", /message_type =/],
      [
        "exchange_deliveries",
        { connectionId: c1.connectionId, from: new Date(middle), to: new Date() },
        "exchange_deliveries_by_connection",
        /connection_id = .*created_at >= .*created_at </,
      ],
    ];
    for (const [table, filter, index, condition] of cases) {
      const text = await plan(table, filter);
      expect(text, text).toContain(`Index Scan using ${index}`);
      expect(text, text).toMatch(new RegExp(`Index Cond: .*${condition.source}`));
      expect(text, text).not.toMatch(/Sort|Seq Scan/);
    }
    // Several statuses: a range of the status index per status, merged in list order.
    const text = await plan("exchange_uploads", { statuses: ["failed", "rejected"] });
    expect(text, text).toContain("Merge Append");
    expect(text.match(/Index Scan using exchange_uploads_by_status/g), text).toHaveLength(2);
    expect(text, text).toMatch(/Index Cond: .*status = 'failed'/);
    expect(text, text).toMatch(/Index Cond: .*status = 'rejected'/);
    expect(text, text).not.toMatch(/->\s+Sort|Seq Scan|Filter:/);
  });

  it("a partner's connections are a range of exchange_connections_by_partner (migration 2026-11-29T0800)", async () => {
    const text = await plan("exchange_connections", { partnerId: c1.partnerId });
    expect(text, text).toContain("Index Scan using exchange_connections_by_partner");
    expect(text, text).toMatch(/Index Cond: .*partner_id =/);
    expect(text, text).not.toMatch(/Sort|Seq Scan/);
  });
});

describe("partnerId on the operator's lists of connections and API keys", () => {
  const connections = "/api/v1/admin/connections";
  const apiKeys = "/api/v1/admin/api-keys";
  let allConnections: Row[];
  let allKeys: Row[];
  beforeAll(async () => {
    // c1's partner gets a second connection and key: two of each, c2's partner one of each.
    await setupPartner(http, tenant.token, { partnerId: c1.partnerId });
    allConnections = await allPages(connections, {}, 100);
    allKeys = await allPages(apiKeys, {}, 100);
  });

  it("narrows each list to one partner's, in creation order, across pages (one item a page)", async () => {
    for (const [path, all] of [
      [connections, allConnections],
      [apiKeys, allKeys],
    ] as const) {
      for (const setup of [c1, c2]) {
        const filtered = await allPages(path, { partnerId: setup.partnerId });
        const expected = all.filter((r) => r.partnerId === setup.partnerId).map((r) => r.id);
        expect(
          filtered.map((r) => r.id),
          path,
        ).toEqual(expected);
        expect(expected.length, path).toBe(setup === c1 ? 2 : 1);
      }
      // Newest first, too; upper case is the same partner.
      const desc = await allPages(path, { partnerId: c1.partnerId.toUpperCase(), order: "desc" });
      expect(
        desc.map((r) => r.id),
        path,
      ).toEqual(
        all
          .filter((r) => r.partnerId === c1.partnerId)
          .map((r) => r.id)
          .reverse(),
      );
    }
  });

  it("a partner of none (unknown, well formed) is an empty page, no cursor", async () => {
    for (const path of [connections, apiKeys]) {
      const r = await get(`${path}?partnerId=00000000-0000-4000-8000-000000000000`);
      expect(r.status, path).toBe(200);
      expect(r.body, path).toEqual({ items: [], meta: { hasMore: false, nextCursor: null } });
    }
  });

  it("a partnerId that is no UUID is 400 naming it, and no data", async () => {
    for (const path of [connections, apiKeys]) {
      for (const bad of ["not-a-uuid", "1234", ""]) {
        const r = await get(`${path}?partnerId=${bad}`);
        expect(r.status, `${path} ${bad}`).toBe(400);
        expect(r.body, `${path} ${bad}`).toMatchObject({
          code: "ERR_VALIDATION",
          errors: [{ pointer: "/query/partnerId", message: "partnerId must be a UUID" }],
        });
        expect(r.body).not.toHaveProperty("items");
      }
      // The lists take no other filter.
      const other = await get(`${path}?connectionId=${c1.connectionId}`);
      expect(other.status, path).toBe(400);
      expect(other.body.errors, path).toEqual([{ pointer: "/query", message: "unknown field" }]);
    }
  });

  it("a cursor is bound to its partnerId: another partner's, none, or another list's is 400", async () => {
    const refused = (r: { status: number; body: Record<string, unknown> }, what: string) => {
      expect(r.status, what).toBe(400);
      expect(r.body, what).toMatchObject({
        code: "ERR_VALIDATION",
        errors: [{ pointer: "/query/cursor", message: "invalid cursor" }],
      });
      expect(r.body, what).not.toHaveProperty("items");
    };
    for (const [path, elsewhere] of [
      [connections, apiKeys],
      [apiKeys, connections],
    ]) {
      const first = await get(`${path}?limit=1&partnerId=${c1.partnerId}`);
      const cursor = encodeURIComponent((first.body.meta as { nextCursor: string }).nextCursor);
      expect(cursor, path).toBeTruthy();
      refused(await get(`${path}?limit=1&partnerId=${c2.partnerId}&cursor=${cursor}`), `${path} c2`);
      refused(await get(`${path}?limit=1&cursor=${cursor}`), `${path} unfiltered`);
      refused(
        await get(`${elsewhere}?limit=1&partnerId=${c1.partnerId}&cursor=${cursor}`),
        `${path} on ${elsewhere}`,
      );
      refused(
        await get(`${deliveries}?limit=1&partnerId=${c1.partnerId}&cursor=${cursor}`),
        `${path} on deliveries`,
      );
      // An unfiltered cursor is not one of a partner's list.
      const unfiltered = await get(`${path}?limit=1`);
      const plain = encodeURIComponent((unfiltered.body.meta as { nextCursor: string }).nextCursor);
      refused(await get(`${path}?limit=1&partnerId=${c1.partnerId}&cursor=${plain}`), `${path} plain`);
      // The same partner written in upper case is the same filter.
      const same = await get(`${path}?limit=1&partnerId=${c1.partnerId.toUpperCase()}&cursor=${cursor}`);
      expect(same.status, path).toBe(200);
    }
  });
});
