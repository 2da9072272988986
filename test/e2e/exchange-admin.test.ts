import { Readable } from "node:stream";
/* eslint-disable @typescript-eslint/no-unsafe-assignment -- vitest asymmetric matchers are typed any */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { adminHeaders, createTestApp, type TestApp } from "../support/test-app.js";
import { inProcessOnly, ownDatabaseOnly } from "../support/remote-app.js";
import {
  allPartnerScopes,
  defaultProfile,
  listMailbox,
  partnerUrl,
  setupPartner,
  upload,
  validOrders,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";

// Skipped in the remote mode (test/support/remote-app.ts), each printing why:
const readsLogs = inProcessOnly("reads the server's log lines");
const readsUploadRow = ownDatabaseOnly("reads the upload's row and its job in its database");
const countsUploads = ownDatabaseOnly("counts the uploads in its database (nothing created)");
const countsCreated = ownDatabaseOnly(
  "counts the partners, connections and keys in its database (nothing created)",
);

let t: TestApp;
let tenant: ProvisionedTenant;
let other: ProvisionedTenant;
beforeAll(async () => {
  t = await createTestApp();
  tenant = await provisionTenant(t);
  other = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
});

const as = (token: string) => ({ authorization: `Bearer ${token}` });
const code = (r: { json: () => unknown }) => (r.json() as { code: string }).code;
const count = async (table: string) =>
  (
    await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(
      t.container.database.db,
    )
  ).rows[0]?.n ?? 0;

describe("admin API (rules/contract §2a)", () => {
  it("partners, connections with profile revisions, api keys: exact shapes", async () => {
    const partner = await t.inject({
      method: "POST",
      url: "/api/v1/admin/partners",
      headers: as(tenant.token),
      payload: { name: "Buyer AG" },
    });
    expect(partner.statusCode).toBe(201);
    const { id: partnerId } = partner.json<{ id: string }>();
    expect(partner.json()).toMatchObject({
      id: partnerId,
      name: "Buyer AG",
      createdAt: expect.stringMatching(/\.\d{3}Z$/),
    });

    const connection = await t.inject({
      method: "POST",
      url: "/api/v1/admin/connections",
      headers: as(tenant.token),
      payload: { partnerId, profile: defaultProfile },
    });
    expect(connection.statusCode, connection.body).toBe(201);
    const c = connection.json<{ id: string; activeProfileRevision: { revision: number } }>();
    expect(c).toMatchObject({
      tenantId: tenant.id,
      partnerId,
      apiVersion: "api.v1",
      status: "active",
      activeProfileRevision: { ...defaultProfile, revision: 1 },
    });

    const revisions = `/api/v1/admin/connections/${c.id}/profile-revisions`;
    const created = await t.inject({
      method: "POST",
      url: revisions,
      headers: as(tenant.token),
      payload: { ...defaultProfile, directory: "D25A" },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ revision: 2, directory: "D25A", active: false });
    const list = await t.inject({ method: "GET", url: revisions, headers: as(tenant.token) });
    expect(list.json<{ items: { revision: number }[] }>().items.map((r) => r.revision)).toEqual([1, 2]);
    expect(
      (await t.inject({ method: "GET", url: `${revisions}/2`, headers: as(tenant.token) })).json(),
    ).toMatchObject({ revision: 2 });
    expect(
      (await t.inject({ method: "GET", url: `${revisions}/9`, headers: as(tenant.token) })).statusCode,
    ).toBe(404);
    const activated = await t.inject({
      method: "POST",
      url: `${revisions}/2/activate`,
      headers: as(tenant.token),
    });
    expect(activated.statusCode).toBe(200);
    expect(activated.json()).toMatchObject({ revision: 2, active: true });
    const read = await t.inject({
      method: "GET",
      url: `/api/v1/admin/connections/${c.id}`,
      headers: as(tenant.token),
    });
    expect(read.json()).toMatchObject({ activeProfileRevision: { revision: 2, directory: "D25A" } });
    // Revisions are immutable: revision 1 is unchanged.
    expect(
      (await t.inject({ method: "GET", url: `${revisions}/1`, headers: as(tenant.token) })).json(),
    ).toMatchObject({ directory: "D96A" });

    const key = await t.inject({
      method: "POST",
      url: "/api/v1/admin/api-keys",
      headers: as(tenant.token),
      payload: { partnerId, scopes: allPartnerScopes },
    });
    expect(key.statusCode).toBe(201);
    const k = key.json<{
      id: string;
      apiKeyId: string;
      token: string;
      scopes: string[];
      partnerId: string;
      createdAt: string;
    }>();
    expect(k.token).toMatch(new RegExp(`^${k.apiKeyId}:`));
    expect(k).toMatchObject({ id: k.apiKeyId, scopes: allPartnerScopes, partnerId });
    const readKey = await t.inject({
      method: "GET",
      url: `/api/v1/admin/api-keys/${k.id}`,
      headers: as(tenant.token),
    });
    expect(readKey.json()).not.toHaveProperty("token");
    expect(readKey.body).not.toContain(k.token.split(":")[1]);
  });

  it("crud entrypoints with metaHref and the b2b.exchange.partner capability", async () => {
    const entrypoints = await t.inject({
      method: "GET",
      url: "/api/v1/profile/entrypoints",
      headers: as(tenant.token),
    });
    const entries = entrypoints.json<{
      entrypoints: { id: string; kind: string; href: string; metaHref?: string }[];
    }>().entrypoints;
    for (const id of ["admin.partners", "admin.connections", "admin.apiKeys", "admin.auditEvents"]) {
      const entry = entries.find((e) => e.id === id);
      expect(entry?.kind, id).toBe("crud");
      const meta = await t.inject({ method: "GET", url: entry?.metaHref ?? "", headers: as(tenant.token) });
      expect(meta.statusCode, id).toBe(200);
      expect(meta.json()).toMatchObject({
        id,
        schemas: { create: expect.any(Object), item: expect.any(Object) },
      });
    }
    const discovery = await t.inject({ method: "GET", url: "/api/v1/meta/discovery" });
    expect(discovery.json<{ capabilities: string[] }>().capabilities).toContain("b2b.exchange.partner");
  });

  it("operator views: uploads and deliveries are listed and read by admin:read, another tenant's are 404", async () => {
    const p = await setupPartner(t, tenant.token);
    const sent = await upload(t, p, validOrders("OPV"), "operator-view");
    const { uploadId } = sent.json<{ uploadId: string }>();
    await t.drainJobs();
    const reader = await t.inject({
      method: "POST",
      url: "/api/v1/admin/access-tokens",
      headers: as(tenant.token),
      payload: { name: "operator", scopes: ["admin:read"] },
    });
    const readOnly = as(reader.json<{ token: string }>().token);
    const uploads = await t.inject({
      method: "GET",
      url: "/api/v1/admin/exchange-uploads?limit=100",
      headers: readOnly,
    });
    expect(uploads.statusCode).toBe(200);
    const item = uploads.json<{ items: { uploadId: string }[] }>().items.find((u) => u.uploadId === uploadId);
    expect(item).toMatchObject({
      connectionId: p.connectionId,
      interchangeId: "OPV",
      status: "processed",
      profileRevision: 1,
    });
    const one = await t.inject({
      method: "GET",
      url: `/api/v1/admin/exchange-uploads/${uploadId}`,
      headers: readOnly,
    });
    expect(one.json()).toMatchObject({ id: uploadId, status: "processed", completedAt: expect.any(String) });

    const deliveries = await t.inject({
      method: "GET",
      url: "/api/v1/admin/exchange-deliveries?limit=100",
      headers: readOnly,
    });
    const mine = deliveries
      .json<{ items: { uploadId: string; deliveryAttemptId: string; messageType: string }[] }>()
      .items.filter((d) => d.uploadId === uploadId);
    expect(mine.map((d) => d.messageType)).toEqual(["ORDRSP"]);
    const delivery = await t.inject({
      method: "GET",
      url: `/api/v1/admin/exchange-deliveries/${mine[0]?.deliveryAttemptId ?? ""}`,
      headers: readOnly,
    });
    expect(delivery.json()).toMatchObject({ status: "ready", attempts: 0, inboundInterchangeId: "OPV" });
    // Read-only: no requeue; another tenant sees none of it.
    const requeue = await t.inject({
      method: "POST",
      url: `/api/v1/admin/exchange-deliveries/${mine[0]?.deliveryAttemptId ?? ""}/requeue`,
      headers: readOnly,
    });
    expect(requeue.statusCode).toBe(403);
    for (const url of [
      `/api/v1/admin/exchange-uploads/${uploadId}`,
      `/api/v1/admin/exchange-deliveries/${mine[0]?.deliveryAttemptId ?? ""}`,
    ]) {
      expect((await t.inject({ method: "GET", url, headers: as(other.token) })).statusCode, url).toBe(404);
    }
    const entries = (
      await t.inject({ method: "GET", url: "/api/v1/profile/entrypoints", headers: readOnly })
    ).json<{
      entrypoints: { id: string; kind: string; href: string; metaHref?: string; actions: { id: string }[] }[];
    }>().entrypoints;
    for (const href of ["/api/v1/admin/exchange-uploads", "/api/v1/admin/exchange-deliveries"]) {
      const entry = entries.find((e) => e.href === href);
      expect(entry?.kind, href).toBe("crud");
      // Read-only: the reads of the collection and of a stored interchange (issue 24), no requeue.
      expect(entry?.actions.map((a) => a.id).sort(), href).toEqual(["content", "list", "read", "segments"]);
      const meta = await t.inject({ method: "GET", url: entry?.metaHref ?? "", headers: readOnly });
      expect(meta.statusCode, href).toBe(200);
    }
  });

  const bad: [string, string, unknown][] = [
    ["partner without name", "/api/v1/admin/partners", {}],
    ["partner with unknown field", "/api/v1/admin/partners", { name: "x", extra: 1 }],
    [
      "connection with unknown directory",
      "/api/v1/admin/connections",
      {
        partnerId: "01a20031-0000-7000-8000-000000000000",
        profile: { ...defaultProfile, directory: "D01B" },
      },
    ],
    [
      "connection with syntax version 5",
      "/api/v1/admin/connections",
      { partnerId: "01a20031-0000-7000-8000-000000000000", profile: { ...defaultProfile, syntaxVersion: 5 } },
    ],
    [
      "connection of an unknown partner",
      "/api/v1/admin/connections",
      { partnerId: "01a20031-0000-7000-8000-000000000000", profile: defaultProfile },
    ],
    [
      "api key with a non-partner scope",
      "/api/v1/admin/api-keys",
      { partnerId: "01a20031-0000-7000-8000-000000000000", scopes: ["admin:write"] },
    ],
    [
      "api key without scopes",
      "/api/v1/admin/api-keys",
      { partnerId: "01a20031-0000-7000-8000-000000000000", scopes: [] },
    ],
    [
      "api key of an unknown partner",
      "/api/v1/admin/api-keys",
      { partnerId: "01a20031-0000-7000-8000-000000000000", scopes: allPartnerScopes },
    ],
  ];
  for (const [name, url, payload] of bad) {
    it(`bad input: ${name} → 400 ERR_VALIDATION, nothing created`, async ({ skip }) => {
      skip(countsCreated);
      const before = [
        await count("exchange_partners"),
        await count("exchange_connections"),
        await count("credentials"),
      ];
      const r = await t.inject({
        method: "POST",
        url,
        headers: as(tenant.token),
        payload: payload as object,
      });
      expect(r.statusCode, r.body).toBe(400);
      expect(code(r)).toBe("ERR_VALIDATION");
      expect([
        await count("exchange_partners"),
        await count("exchange_connections"),
        await count("credentials"),
      ]).toEqual(before);
    });
  }

  it("admin routes: a partner API key is 401, another tenant's ids are 404", async () => {
    const p = await setupPartner(t, tenant.token);
    const r = await t.inject({ method: "GET", url: "/api/v1/admin/partners", headers: as(p.token) });
    expect(r.statusCode).toBe(401);
    const foreign = await t.inject({
      method: "GET",
      url: `/api/v1/admin/connections/${p.connectionId}`,
      headers: as(other.token),
    });
    expect(foreign.statusCode).toBe(404);
    const key = await t.inject({
      method: "POST",
      url: "/api/v1/admin/api-keys",
      headers: as(other.token),
      payload: { partnerId: p.partnerId, scopes: allPartnerScopes },
    });
    expect(key.statusCode).toBe(400);
  });
});

describe("Authentication (rules/interface A, rules/contract §4): 401 vs 404", () => {
  // The inbox twice: a body with Content-Length (a small upload, whose key its accept statement
  // checks) and a chunked one (authenticated before the body is read); both must answer alike.
  const routes = (connectionId: string) => [
    {
      method: "POST" as const,
      url: partnerUrl(connectionId, "/inbox"),
      scope: "b2b_exchange_partner_inbox:create",
    },
    {
      method: "POST" as const,
      url: partnerUrl(connectionId, "/inbox"),
      scope: "b2b_exchange_partner_inbox:create",
      chunked: true,
    },
    {
      method: "GET" as const,
      url: partnerUrl(connectionId, "/mailbox"),
      scope: "b2b_exchange_partner_mailbox:list",
    },
    {
      method: "POST" as const,
      url: partnerUrl(connectionId, "/mailbox/01a20031-0000-7000-8000-000000000000/claim"),
      scope: "b2b_exchange_partner_mailbox:claim",
    },
    {
      method: "GET" as const,
      url: partnerUrl(connectionId, "/mailbox/01a20031-0000-7000-8000-000000000000/payload"),
      scope: "b2b_exchange_partner_mailbox:payload_read",
    },
    {
      method: "POST" as const,
      url: partnerUrl(connectionId, "/mailbox/01a20031-0000-7000-8000-000000000000/acknowledge"),
      scope: "b2b_exchange_partner_mailbox:acknowledge",
    },
  ];
  const send = (
    route: { method: "GET" | "POST"; url: string; chunked?: boolean },
    headers: Record<string, string>,
    body = validOrders("AUTH"),
  ) =>
    t.inject({
      method: route.method,
      url: route.url,
      headers: {
        "content-type": "application/edifact",
        "idempotency-key": "auth-case",
        "x-b2b-claim-token": "A".repeat(43),
        ...headers,
      },
      ...(route.method === "POST"
        ? { payload: route.chunked ? Readable.from([Buffer.from(body)]) : body }
        : {}),
    });

  it("no credential, malformed, unknown key, session, access token, revoked key → 401 ERR_B2B_EXCHANGE_UNAUTHENTICATED on every route", async () => {
    const p = await setupPartner(t, tenant.token);
    const revoked = await setupPartner(t, tenant.token, { partnerId: p.partnerId });
    const rv = await t.inject({
      method: "POST",
      url: `/api/v1/admin/api-keys/${revoked.apiKeyId}/revoke`,
      headers: as(tenant.token),
    });
    expect(rv.statusCode).toBe(200);
    expect(rv.json()).toMatchObject({ revokedAt: expect.any(String) });
    const credentials: Record<string, string>[] = [
      {},
      { authorization: "Basic eDp5" },
      { authorization: `Bearer ${p.apiKeyId}:hanse_pk_${"A".repeat(43)}` },
      as(tenant.token),
      adminHeaders,
      as(revoked.token),
    ];
    for (const route of routes(p.connectionId)) {
      for (const headers of credentials) {
        const r = await send(route, headers);
        expect(r.statusCode, `${route.url} ${JSON.stringify(headers).slice(0, 40)}`).toBe(401);
        expect(code(r)).toBe("ERR_B2B_EXCHANGE_UNAUTHENTICATED");
        expect(r.headers["www-authenticate"]).toMatch(/^Bearer/);
      }
    }
  });

  it("Authentication table: each operation needs its exact scope; a key with all the others is 404", async () => {
    const p = await setupPartner(t, tenant.token);
    for (const route of routes(p.connectionId)) {
      const key = await t.inject({
        method: "POST",
        url: "/api/v1/admin/api-keys",
        headers: as(tenant.token),
        payload: { partnerId: p.partnerId, scopes: allPartnerScopes.filter((s) => s !== route.scope) },
      });
      const r = await send(route, as(key.json<{ token: string }>().token));
      expect(r.statusCode, route.url).toBe(404);
      expect(code(r)).toBe("ERR_B2B_EXCHANGE_NOT_FOUND");
    }
  });

  it("a connection of another partner, of another tenant, a suspended one, one outside the key's connectionIds or a malformed id → 404", async ({
    skip,
  }) => {
    skip(countsUploads);
    const before = await count("exchange_uploads");
    const p = await setupPartner(t, tenant.token);
    const otherPartner = await setupPartner(t, tenant.token);
    const otherTenant = await setupPartner(t, other.token);
    const sibling = await setupPartner(t, tenant.token, { partnerId: p.partnerId, restrict: true });
    const suspended = await setupPartner(t, tenant.token, { partnerId: p.partnerId });
    const s = await t.inject({
      method: "PATCH",
      url: `/api/v1/admin/connections/${suspended.connectionId}`,
      headers: as(tenant.token),
      payload: { status: "suspended" },
    });
    expect(s.json()).toMatchObject({ status: "suspended" });
    const cases: [string, string, string][] = [
      ["another partner", otherPartner.connectionId, p.token],
      ["another tenant", otherTenant.connectionId, p.token],
      ["suspended", suspended.connectionId, p.token],
      ["outside connectionIds", p.connectionId, sibling.token],
      ["malformed id", "not-a-uuid", p.token],
    ];
    for (const [name, connectionId, token] of cases) {
      for (const route of routes(connectionId)) {
        const r = await send(route, as(token));
        expect(r.statusCode, `${name} ${route.url}`).toBe(404);
        expect(code(r)).toBe("ERR_B2B_EXCHANGE_NOT_FOUND");
      }
    }
    // The restricted key works on its own connection.
    expect((await upload(t, sibling, validOrders("SIB"), "sib")).statusCode).toBe(202);
    expect((await listMailbox(t, sibling)).items).toEqual([]);
    expect(await count("exchange_uploads")).toBe(before + 1);
  });

  it("a small upload's own faults come after 401 and 404: bad headers or a body that is not one interchange", async ({
    skip,
  }) => {
    skip(countsUploads);
    const p = await setupPartner(t, tenant.token);
    const otherPartner = await setupPartner(t, tenant.token);
    const before = await count("exchange_uploads");
    const inbox = routes(p.connectionId)[0] as { method: "POST"; url: string };
    const foreign = routes(otherPartner.connectionId)[0] as { method: "POST"; url: string };
    const faults: [string, Record<string, string>, string][] = [
      ["content type", { "content-type": "text/plain" }, validOrders("F1")],
      ["key", { "idempotency-key": "has spaces" }, validOrders("F2")],
      ["body", {}, "not an interchange"],
    ];
    for (const [fault, headers, body] of faults) {
      const wrongSecret = { authorization: `Bearer ${p.apiKeyId}:hanse_pk_${"B".repeat(43)}` };
      const unauthenticated = await send(inbox, { ...headers, ...wrongSecret }, body);
      expect(unauthenticated.statusCode, fault).toBe(401);
      expect(code(unauthenticated)).toBe("ERR_B2B_EXCHANGE_UNAUTHENTICATED");
      const hidden = await send(foreign, { ...headers, ...as(p.token) }, body);
      expect(hidden.statusCode, fault).toBe(404);
      expect(code(hidden)).toBe("ERR_B2B_EXCHANGE_NOT_FOUND");
      const own = await send(inbox, { ...headers, ...as(p.token) }, body);
      expect(own.statusCode, fault).toBe(400);
      expect(code(own)).toBe("ERR_B2B_EXCHANGE_INVALID_REQUEST");
    }
    expect(await count("exchange_uploads")).toBe(before);
  });

  it("a small upload checked by its own statement records the key's partner, the connection's revision and one job", async ({
    skip,
  }) => {
    skip(readsUploadRow);
    const p = await setupPartner(t, tenant.token);
    const r = await send(routes(p.connectionId)[0] as { method: "POST"; url: string }, as(p.token));
    expect(r.statusCode).toBe(202);
    const { uploadId } = r.json<{ uploadId: string }>();
    const db = t.container.database.db;
    const row = (
      await sql<{
        principal_id: string;
        profile_revision: number;
        tenant_id: string;
      }>`SELECT principal_id, profile_revision, tenant_id FROM exchange_uploads WHERE id = ${uploadId}`.execute(
        db,
      )
    ).rows[0];
    expect(row).toMatchObject({ principal_id: p.partnerId, profile_revision: 1, tenant_id: tenant.id });
    const jobs = await sql<{
      payload: { tenantId: string; uploadId: string };
    }>`SELECT payload FROM jobs WHERE payload ->> 'uploadId' = ${uploadId}`.execute(db);
    expect(jobs.rows.map((j) => j.payload)).toEqual([{ tenantId: tenant.id, uploadId }]);
    // The upload belongs to the partner; its audit record names the key that acted (rules/contract §7).
    const audit = await sql<{
      principal_id: string;
      principal_kind: string;
    }>`SELECT principal_id, principal_kind FROM audit_events
      WHERE upload_id = ${uploadId} AND type = 'upload.received'`.execute(db);
    expect(audit.rows).toEqual([{ principal_id: p.apiKeyId, principal_kind: "partner_api_key" }]);
  });

  it("errors expose no secrets, SQL or paths", async ({ skip }) => {
    skip(readsLogs);
    const p = await setupPartner(t, tenant.token);
    const r = await upload(t, p, "x", "leak-check");
    const body = r.body;
    expect(body).not.toContain(p.token);
    expect(body).not.toMatch(/exchange_|SELECT|\/work\//);
    expect(t.logs.join("\n")).not.toContain(p.token.split(":")[1]);
  });
});
