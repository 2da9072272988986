import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectSessionRouteDenials } from "../../../test/support/auth-cases.js";
import { provisionTenant, systemToken, uniqueSlug } from "../../../test/support/fixtures.js";
import { adminHeaders, bearer, createTestApp, type TestApp } from "../../../test/support/test-app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const createTenant = (
  key: string | undefined,
  payload: unknown,
  headers: Record<string, string> = adminHeaders,
) =>
  t.inject({
    method: "POST",
    url: "/api/v1/system/tenants",
    headers: { ...headers, ...(key === undefined ? {} : { "idempotency-key": key }) },
    payload: payload as object,
  });

const tenantCount = async () =>
  (await t.inject({ method: "GET", url: "/api/v1/system/tenants?limit=100", headers: adminHeaders })).json<{
    items: unknown[];
  }>().items.length;

describe("POST /api/v1/system/tenants", () => {
  it("answers 202 with Location naming the new tenant, Retry-After and the status href", async () => {
    const slug = uniqueSlug();
    const response = await createTenant("key-1", { name: "Acme", slug });
    expect(response.statusCode).toBe(202);
    const body = response.json<{ tenantId: string; status: string; statusHref: string }>();
    expect(body.status).toBe("provisioning");
    expect(response.headers.location).toBe(`/api/v1/system/tenants/${body.tenantId}`);
    expect(response.headers["retry-after"]).toMatch(/^\d+$/);
    expect(body.statusHref).toBe(`/api/v1/system/tenants/${body.tenantId}/provisioning`);
    const tenant = await t.inject({
      method: "GET",
      url: response.headers.location,
      headers: adminHeaders,
    });
    expect(tenant.json()).toMatchObject({
      id: body.tenantId,
      slug,
      name: "Acme",
      type: "customer",
      status: "provisioning",
    });
  });

  it("issue 38 defect 6: the queued provisioning job carries the definition's 8 attempts, not the queue's default", async () => {
    const slug = uniqueSlug();
    const response = await createTenant(`key-${slug}`, { name: "Budget", slug });
    const { tenantId } = response.json<{ tenantId: string }>();
    const { rows } = await sql<{ max_attempts: number | string }>`SELECT max_attempts FROM jobs
      WHERE name = 'tenants.provision' AND tenant_id = ${tenantId}::uuid`.execute(t.container.database.db);
    expect(rows.map((row) => Number(row.max_attempts))).toEqual([8]);
  });

  it("provisioning runs as a job with named steps and ends succeeded; the tenant becomes active", async () => {
    const slug = uniqueSlug();
    const response = await createTenant(`key-${slug}`, {
      name: "Beta",
      slug,
      admin: { email: "boss@beta.test", password: "a long enough password" },
    });
    const { statusHref, tenantId } = response.json<{ statusHref: string; tenantId: string }>();
    const before = await t.inject({ method: "GET", url: statusHref, headers: adminHeaders });
    expect(before.json()).toMatchObject({ tenantId, state: "pending", terminal: false });
    expect(before.headers["retry-after"]).toBeDefined();
    await t.drainJobs();
    const after = await t.inject({ method: "GET", url: statusHref, headers: adminHeaders });
    expect(after.json()).toMatchObject({
      tenantId,
      state: "succeeded",
      terminal: true,
      error: null,
      steps: expect.arrayContaining([{ name: "create-administrator", state: "succeeded" }]) as unknown,
    });
    expect(after.headers["retry-after"]).toBeUndefined();
    const steps = after.json<{ steps: { state: string }[] }>().steps;
    expect(steps.every((step) => step.state === "succeeded")).toBe(true);
    const tenant = await t.inject({
      method: "GET",
      url: `/api/v1/system/tenants/${tenantId}`,
      headers: adminHeaders,
    });
    expect(tenant.json<{ status: string }>().status).toBe("active");
    // The first administrator can log in with every tenant scope.
    const session = await t.inject({
      method: "POST",
      url: "/api/v1/auth/sessions",
      payload: { tenant: slug, email: "boss@beta.test", password: "a long enough password" },
    });
    expect(session.statusCode).toBe(201);
    expect(session.json<{ scopes: string[] }>().scopes.sort()).toEqual(
      [
        "admin:read",
        "admin:write",
        "workflows:read",
        "workflows:transition",
        "users:read",
        "users:write",
      ].sort(),
    );
  });

  it("idempotency: the same key and body replay the same response; nothing new is created", async () => {
    const slug = uniqueSlug();
    const first = await createTenant("replay-key", { name: "Gamma", slug });
    const count = await tenantCount();
    const second = await createTenant("replay-key", { name: "Gamma", slug });
    expect(second.statusCode).toBe(202);
    expect(second.body).toBe(first.body);
    expect(second.headers.location).toBe(first.headers.location);
    expect(second.headers["idempotent-replayed"]).toBe("true");
    expect(await tenantCount()).toBe(count);
  });

  it("idempotency: the same key with another body is 409 ERR_IDEMPOTENCY_MISMATCH and creates nothing", async () => {
    const slug = uniqueSlug();
    await createTenant("mismatch-key", { name: "Delta", slug });
    const count = await tenantCount();
    const response = await createTenant("mismatch-key", { name: "Delta", slug: uniqueSlug() });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: "ERR_IDEMPOTENCY_MISMATCH", status: 409 });
    expect(await tenantCount()).toBe(count);
  });

  it("a missing or empty key is 400 ERR_IDEMPOTENCY_KEY_REQUIRED; a key over 255 characters is 400 ERR_VALIDATION", async () => {
    const count = await tenantCount();
    for (const key of [undefined, ""]) {
      const response = await createTenant(key, { name: "No key", slug: uniqueSlug() });
      expect(response.statusCode).toBe(400);
      expect(response.json<{ code: string }>().code).toBe("ERR_IDEMPOTENCY_KEY_REQUIRED");
    }
    const long = await createTenant("k".repeat(256), { name: "Long key", slug: uniqueSlug() });
    expect(long.statusCode).toBe(400);
    expect(long.json<{ code: string }>().code).toBe("ERR_VALIDATION");
    // rules/contract §3: visible ASCII only (a workflow key may hold any character; this one may not).
    const spaced = await createTenant("create acme", { name: "Spaced key", slug: uniqueSlug() });
    expect(spaced.statusCode).toBe(400);
    expect(spaced.json()).toMatchObject({
      code: "ERR_VALIDATION",
      errors: [{ pointer: "/headers/idempotency-key" }],
    });
    const max = await createTenant("k".repeat(255), { name: "Max key", slug: uniqueSlug() });
    expect(max.statusCode).toBe(202);
    expect(await tenantCount()).toBe(count + 1);
  });

  it("a slug that is taken is 409 ERR_CONFLICT", async () => {
    const slug = uniqueSlug();
    await createTenant("slug-1", { name: "First", slug });
    const count = await tenantCount();
    const response = await createTenant("slug-2", { name: "Second", slug });
    expect(response.statusCode).toBe(409);
    expect(response.json<{ code: string }>().code).toBe("ERR_CONFLICT");
    expect((await createTenant("slug-3", { name: "System again", slug: "system" })).statusCode).toBe(409);
    expect(await tenantCount()).toBe(count);
  });

  it("bad bodies are 400 ERR_VALIDATION with pointers, and create nothing", async () => {
    const count = await tenantCount();
    const cases: [unknown, string][] = [
      [{ slug: uniqueSlug() }, "/name"],
      [{ name: "x", slug: "Not A Slug" }, "/slug"],
      [{ name: 42, slug: uniqueSlug() }, "/name"],
      // An unknown field is named by the object that holds it: an error never repeats the request.
      [{ name: "x", slug: uniqueSlug(), unknown: true }, ""],
      [{ name: "x", slug: uniqueSlug(), admin: { email: "a@b.c", password: "short" } }, "/admin/password"],
      // rules/contract §7: the new-password policy (15 to 1024 characters, not a common password).
      [
        { name: "x", slug: uniqueSlug(), admin: { email: "a@b.c", password: "fourteen chars" } },
        "/admin/password",
      ],
      [
        { name: "x", slug: uniqueSlug(), admin: { email: "a@b.c", password: "x".repeat(1025) } },
        "/admin/password",
      ],
      [
        { name: "x", slug: uniqueSlug(), admin: { email: "a@b.c", password: "1qaz2wsx3edc4rfv" } },
        "/admin/password",
      ],
      [
        { name: "x", slug: uniqueSlug(), admin: { email: "a@b.c", password: "PasswordPassword" } },
        "/admin/password",
      ],
    ];
    for (const [payload, pointer] of cases) {
      const response = await createTenant(`bad-${pointer}`, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      const body = response.json<{ code: string; errors: { pointer: string }[] }>();
      expect(body.code).toBe("ERR_VALIDATION");
      expect(body.errors.map((e) => e.pointer)).toContain(pointer);
    }
    const malformed = await t.inject({
      method: "POST",
      url: "/api/v1/system/tenants",
      headers: { ...adminHeaders, "idempotency-key": "malformed", "content-type": "application/json" },
      payload: '{"name": "x", "slug":',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json<{ code: string }>().code).toBe("ERR_VALIDATION");
    expect(await tenantCount()).toBe(count);
  });

  it("denies without credentials (401), without tenants:create (403) and outside the system tenant (404)", async () => {
    await expectSessionRouteDenials(t, {
      method: "POST",
      url: "/api/v1/system/tenants",
      headers: { "idempotency-key": "denied" },
      payload: { name: "Denied", slug: uniqueSlug() },
      insufficientScopes: ["tenants:read", "tenants:list"],
      systemOnly: true,
    });
  });

  it("rules/interface B rule 3: a session with only tenants:create can start provisioning but need not read its status", async () => {
    const token = await systemToken(t, ["tenants:create"]);
    const response = await createTenant(
      "create-only",
      { name: "Create only", slug: uniqueSlug() },
      bearer(token),
    );
    expect(response.statusCode).toBe(202);
    const status = await t.inject({
      method: "GET",
      url: response.json<{ statusHref: string }>().statusHref,
      headers: bearer(token),
    });
    expect(status.statusCode).toBe(403);
  });
});

describe("GET /api/v1/system/tenants", () => {
  it("pages with an opaque cursor until hasMore is false", async () => {
    for (let i = 0; i < 3; i++)
      await createTenant(`page-${i}`, { name: `Page ${i}`, slug: uniqueSlug("page") });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : "?limit=2";
      const response = await t.inject({
        method: "GET",
        url: `/api/v1/system/tenants${query}`,
        headers: adminHeaders,
      });
      expect(response.statusCode).toBe(200);
      const body = response.json<{
        items: { id: string }[];
        meta: { hasMore: boolean; nextCursor: string | null };
      }>();
      expect(body.items.length).toBeLessThanOrEqual(2);
      seen.push(...body.items.map((i) => i.id));
      cursor = body.meta.hasMore ? body.meta.nextCursor : null;
      if (!body.meta.hasMore) expect(body.meta.nextCursor).toBeNull();
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(await tenantCount());
  });

  it("a tampered cursor or a cursor of another list is 400", async () => {
    const first = await t.inject({
      method: "GET",
      url: "/api/v1/system/tenants?limit=1",
      headers: adminHeaders,
    });
    const cursor = first.json<{ meta: { nextCursor: string } }>().meta.nextCursor;
    const [body, tag] = cursor.split(".") as [string, string];
    const flipped = Buffer.from(tag, "base64url");
    flipped[0] = (flipped[0] ?? 0) ^ 1; // a fixed suffix would leave the tag unchanged once in 256 runs
    const tampered = `${body}.${flipped.toString("base64url")}`;
    for (const c of [tampered, "garbage", `${cursor}.x`]) {
      const response = await t.inject({
        method: "GET",
        url: `/api/v1/system/tenants?cursor=${encodeURIComponent(c)}`,
        headers: adminHeaders,
      });
      expect(response.statusCode).toBe(400);
    }
    const foreign = await t.inject({
      method: "GET",
      url: `/api/v1/admin/access-tokens?cursor=${encodeURIComponent(cursor)}`,
      headers: adminHeaders,
    });
    expect(foreign.statusCode).toBe(400);
  });

  it("limit outside 1..100 is 400 ERR_VALIDATION pointing at /query/limit", async () => {
    for (const limit of ["0", "101", "abc"]) {
      const response = await t.inject({
        method: "GET",
        url: `/api/v1/system/tenants?limit=${limit}`,
        headers: adminHeaders,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        code: "ERR_VALIDATION",
        errors: [{ pointer: "/query/limit" }],
      });
    }
  });

  it("denies without credentials, without tenants:list and outside the system tenant", async () => {
    await expectSessionRouteDenials(t, {
      method: "GET",
      url: "/api/v1/system/tenants",
      insufficientScopes: ["tenants:read"],
      systemOnly: true,
    });
  });
});

describe("GET /api/v1/system/tenants/{id} and …/provisioning", () => {
  it("an unknown tenant is 404, and so is an id that cannot be one (as everywhere in the API)", async () => {
    for (const url of [
      "/api/v1/system/tenants/01900000-0000-7000-8000-000000000000",
      "/api/v1/system/tenants/01900000-0000-7000-8000-000000000000/provisioning",
      "/api/v1/system/tenants/not-a-tenant-id",
      "/api/v1/system/tenants/not-a-tenant-id/provisioning",
    ]) {
      const response = await t.inject({ method: "GET", url, headers: adminHeaders });
      expect(response.statusCode).toBe(404);
      expect(response.json<{ code: string }>().code).toBe("ERR_NOT_FOUND");
    }
  });

  it("read needs tenants:read; provisioning accepts tenants:read or system_diagnostics:read", async () => {
    const created = await createTenant("diag", { name: "Diag", slug: uniqueSlug() });
    const { tenantId } = created.json<{ tenantId: string }>();
    await expectSessionRouteDenials(t, {
      method: "GET",
      url: `/api/v1/system/tenants/${tenantId}`,
      insufficientScopes: ["tenants:list", "system_diagnostics:read"],
      systemOnly: true,
    });
    await expectSessionRouteDenials(t, {
      method: "GET",
      url: `/api/v1/system/tenants/${tenantId}/provisioning`,
      insufficientScopes: ["tenants:list", "tenants:create"],
      systemOnly: true,
    });
    const diagnostics = await systemToken(t, ["system_diagnostics:read"]);
    const status = await t.inject({
      method: "GET",
      url: `/api/v1/system/tenants/${tenantId}/provisioning`,
      headers: bearer(diagnostics),
    });
    expect(status.statusCode).toBe(200);
  });

  it("a customer tenant's administrator gets 404 from every /api/v1/system path", async () => {
    const customer = await provisionTenant(t);
    for (const url of ["/api/v1/system/tenants", `/api/v1/system/tenants/${customer.id}`]) {
      const response = await t.inject({ method: "GET", url, headers: bearer(customer.token) });
      expect(response.statusCode).toBe(404);
    }
  });
});
