import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../platform/clock/clock.js";
import { legacyDerivedCredentialId as legacyId } from "./credential-format.js";
import { expectSessionRouteDenials } from "../../../test/support/auth-cases.js";
import { provisionTenant, systemToken } from "../../../test/support/fixtures.js";
import {
  adminHeaders,
  bearer,
  bootstrapToken,
  createTestApp,
  type TestApp,
} from "../../../test/support/test-app.js";

const clock = createManualClock(new Date());
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(async () => {
  await t.close();
});

/** Access tokens stored, in every tenant. */
const tokenCount = async () => {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM credentials WHERE kind = 'access_token'`.execute(t.container.database.db);
  return rows[0]?.n ?? 0;
};

const whoami = (headers: Record<string, string>) =>
  t.inject({ method: "GET", url: "/api/v1/profile/whoami", headers });

describe("bootstrap (rules/contract §0)", () => {
  it("HANSE_BOOTSTRAP_TOKEN is the system administrator's access token with every system scope", async () => {
    const response = await whoami(adminHeaders);
    expect(response.statusCode).toBe(200);
    const body = response.json<{
      principal: { kind: string };
      tenant: { slug: string; type: string };
      scopes: string[];
    }>();
    expect(body.principal.kind).toBe("access_token");
    expect(body.tenant).toMatchObject({ slug: "system", type: "system" });
    expect(body.scopes.sort()).toEqual(
      [
        "admin:read",
        "admin:write",
        "system_diagnostics:read",
        "tenants:create",
        "tenants:list",
        "tenants:read",
        "tenants:write",
        "users:read",
        "users:write",
        "workflows:read",
        "workflows:transition",
      ].sort(),
    );
  });

  it("rules/contract §1: the bootstrap administrator's id is a UUID version 7 like every other id", async () => {
    const body = (await whoami(adminHeaders)).json<{ principal: { id: string } }>();
    expect(body.principal.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it("a bootstrap token stored by an earlier release (unversioned id) is re-keyed at the next start", async () => {
    const db = t.container.database.db;
    const current = (await whoami(adminHeaders)).json<{ principal: { id: string } }>().principal.id;
    const legacy = legacyId(bootstrapToken);
    await sql`UPDATE credentials SET id = ${legacy}::uuid, principal_id = ${legacy}::uuid
      WHERE id = ${current}::uuid`.execute(db);
    expect((await whoami(adminHeaders)).statusCode).toBe(401);
    const identity = t.container.modules.find((m) => m.name === "identity") as unknown as {
      service: { bootstrap(input: { token: string; email: string }): Promise<unknown> };
    };
    await identity.service.bootstrap({ token: bootstrapToken, email: "admin@example.test" });
    const after = await whoami(adminHeaders);
    expect(after.statusCode).toBe(200);
    expect(after.json<{ principal: { id: string } }>().principal.id).toBe(current);
  });
});

describe("POST /api/v1/auth/sessions", () => {
  it("issues a prefixed session token of at least 256 bits; whoami shows the user", async () => {
    const tenant = await provisionTenant(t);
    expect(tenant.token).toMatch(/^hanse_st_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    const response = await whoami(bearer(tenant.token));
    expect(response.json()).toMatchObject({
      principal: { kind: "user", name: tenant.email },
      tenant: { id: tenant.id, slug: tenant.slug, type: "customer" },
    });
  });

  it("wrong tenant, e-mail or password is the same 401 ERR_UNAUTHENTICATED", async () => {
    const tenant = await provisionTenant(t);
    const bodies = [
      { tenant: tenant.slug, email: tenant.email, password: "wrong password!" },
      { tenant: tenant.slug, email: "nobody@example.test", password: tenant.password },
      { tenant: "no-such-tenant", email: tenant.email, password: tenant.password },
    ];
    const details = new Set<string>();
    for (const payload of bodies) {
      const response = await t.inject({ method: "POST", url: "/api/v1/auth/sessions", payload });
      expect(response.statusCode).toBe(401);
      const body = response.json<{ code: string; detail: string }>();
      expect(body.code).toBe("ERR_UNAUTHENTICATED");
      details.add(body.detail);
    }
    expect(details.size).toBe(1);
  });

  it("failed logins from one address are throttled per account before the password is checked: the eleventh is 429 with Retry-After", async () => {
    const tenant = await provisionTenant(t);
    const login = (payload: object) => t.inject({ method: "POST", url: "/api/v1/auth/sessions", payload });
    const wrong = { tenant: tenant.slug, email: tenant.email, password: "wrong password!" };
    for (let i = 0; i < 10; i++) expect((await login(wrong)).statusCode).toBe(401);
    // Even the right password waits: the answer may not tell a guesser when it has found it.
    const limited = await login({ ...wrong, password: tenant.password });
    expect(limited.statusCode).toBe(429);
    expect(limited.json<{ code: string }>().code).toBe("ERR_RATE_LIMITED");
    expect(limited.headers["retry-after"]).toBe("30");
    // Another account is not affected (the address allows a hundred failures); another address
    // is not either (sign-in-throttle.test.ts).
    const other = await login({ tenant: tenant.slug, email: "someone.else@example.test", password: "x" });
    expect(other.statusCode).toBe(401);
    clock.advance(30_000);
    expect((await login({ ...wrong, password: tenant.password })).statusCode).toBe(201);
  });

  it("a login body over 16 KiB is 413; validation lists at most 20 problems, unknown fields as one without their names", async () => {
    const big = await t.inject({
      method: "POST",
      url: "/api/v1/auth/sessions",
      payload: { tenant: "x", email: "a@b.c", password: "p".repeat(17 * 1024) },
    });
    expect(big.statusCode).toBe(413);
    const fields = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`f${String(i)}`, 1]));
    const many = await t.inject({ method: "POST", url: "/api/v1/auth/sessions", payload: fields });
    expect(many.statusCode).toBe(400);
    const errors = many.json<{ errors: { pointer: string; message: string }[] }>().errors;
    expect(errors.length).toBeLessThanOrEqual(20);
    expect(errors.filter((e) => e.message === "unknown field")).toEqual([
      { pointer: "", message: "unknown field" },
    ]);
    expect(many.body).not.toContain("f499");
  });

  it("malformed bodies are 400 ERR_VALIDATION", async () => {
    for (const payload of [
      {},
      { tenant: "x", email: "a@b.c" },
      { tenant: "x", email: "a@b.c", password: "p", extra: 1 },
    ]) {
      const response = await t.inject({ method: "POST", url: "/api/v1/auth/sessions", payload });
      expect(response.statusCode).toBe(400);
      expect(response.json<{ code: string }>().code).toBe("ERR_VALIDATION");
    }
  });

  it("an expired session is 401; a logged-out session is 401", async () => {
    const tenant = await provisionTenant(t);
    clock.advance(t.config.HANSE_SESSION_TTL_SECONDS * 1000 + 1);
    expect((await whoami(bearer(tenant.token))).statusCode).toBe(401);
    const fresh = await t.inject({
      method: "POST",
      url: "/api/v1/auth/sessions",
      payload: { tenant: tenant.slug, email: tenant.email, password: tenant.password },
    });
    const token = fresh.json<{ token: string }>().token;
    expect((await whoami(bearer(token))).statusCode).toBe(200);
    const logout = await t.inject({
      method: "DELETE",
      url: "/api/v1/auth/sessions/current",
      headers: bearer(token),
    });
    expect(logout.statusCode).toBe(204);
    expect((await whoami(bearer(token))).statusCode).toBe(401);
  });
});

describe("access tokens (admin API)", () => {
  const create = (headers: Record<string, string>, payload: unknown) =>
    t.inject({ method: "POST", url: "/api/v1/admin/access-tokens", headers, payload: payload as object });

  it("creates a prefixed token shown once; list and read never show it", async () => {
    const response = await create(adminHeaders, { name: "ci", scopes: ["tenants:list"] });
    expect(response.statusCode).toBe(201);
    const created = response.json<{ id: string; token: string; scopes: string[] }>();
    expect(created.token).toMatch(/^hanse_at_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    expect(created.scopes).toEqual(["tenants:list"]);
    const read = await t.inject({
      method: "GET",
      url: `/api/v1/admin/access-tokens/${created.id}`,
      headers: adminHeaders,
    });
    expect(read.statusCode).toBe(200);
    expect(read.body).not.toContain(created.token);
    expect(read.json()).not.toHaveProperty("token");
    const list = await t.inject({ method: "GET", url: "/api/v1/admin/access-tokens", headers: adminHeaders });
    expect(list.body).not.toContain(created.token);
    expect(list.json<{ items: { id: string }[] }>().items.map((i) => i.id)).toContain(created.id);
    const me = await whoami(bearer(created.token));
    expect(me.json()).toMatchObject({
      principal: { id: created.id, kind: "access_token", name: "ci" },
      scopes: ["tenants:list"],
    });
  });

  it("rules/contract §2: a token can only carry scopes its creator holds, else 403; an unknown scope name is 400", async () => {
    const before = await tokenCount();
    const limited = await systemToken(t, ["admin:write"]);
    const afterSetup = await tokenCount();
    const escalation = await create(bearer(limited), { name: "escalate", scopes: ["tenants:create"] });
    expect(escalation.statusCode).toBe(403);
    expect(escalation.json<{ code: string }>().code).toBe("ERR_FORBIDDEN");
    // A scope the creator's tenant cannot have, or a partner scope, is one the creator does not hold.
    const customer = await provisionTenant(t);
    const foreign = await create(bearer(customer.token), { name: "system scope", scopes: ["tenants:list"] });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json<{ code: string }>().code).toBe("ERR_FORBIDDEN");
    const partner = await create(adminHeaders, {
      name: "partner",
      scopes: ["b2b_exchange_partner_inbox:create"],
    });
    expect(partner.statusCode).toBe(403);
    const unknown = await create(adminHeaders, { name: "typo", scopes: ["tenants:lst"] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json<{ code: string }>().code).toBe("ERR_VALIDATION");
    expect(afterSetup).toBe(before + 1);
    expect(await tokenCount()).toBe(afterSetup);
  });

  it("an empty body with Content-Type: application/json is no body: revoke is 200, a create that needs one is 400", async () => {
    const headers = { ...adminHeaders, "content-type": "application/json" };
    const created = await create(adminHeaders, { name: "empty-body", scopes: ["admin:read"] });
    const id = created.json<{ id: string }>().id;
    const revoked = await t.inject({
      method: "POST",
      url: `/api/v1/admin/access-tokens/${id}/revoke`,
      headers,
      payload: "",
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json<{ revokedAt: string | null }>().revokedAt).not.toBeNull();
    const before = await tokenCount();
    const empty = await t.inject({
      method: "POST",
      url: "/api/v1/admin/access-tokens",
      headers,
      payload: "",
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json<{ code: string }>().code).toBe("ERR_VALIDATION");
    expect(await tokenCount()).toBe(before);
  });

  it("a revoked token is 401 everywhere; revoke is idempotent", async () => {
    const created = (await create(adminHeaders, { name: "to revoke", scopes: ["admin:read"] })).json<{
      id: string;
      token: string;
    }>();
    expect((await whoami(bearer(created.token))).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) {
      const revoked = await t.inject({
        method: "POST",
        url: `/api/v1/admin/access-tokens/${created.id}/revoke`,
        headers: adminHeaders,
      });
      expect(revoked.statusCode).toBe(200);
      expect(revoked.json<{ revokedAt: string | null }>().revokedAt).not.toBeNull();
    }
    expect((await whoami(bearer(created.token))).statusCode).toBe(401);
  });

  it("an expired token is 401; expiresAt in the past is 400", async () => {
    const expiresAt = new Date(clock.now().getTime() + 60_000).toISOString();
    const created = (await create(adminHeaders, { name: "short", scopes: ["admin:read"], expiresAt })).json<{
      token: string;
    }>();
    expect((await whoami(bearer(created.token))).statusCode).toBe(200);
    clock.advance(60_001);
    expect((await whoami(bearer(created.token))).statusCode).toBe(401);
    const past = await create(adminHeaders, { name: "past", scopes: ["admin:read"], expiresAt });
    expect(past.statusCode).toBe(400);
  });

  it("another tenant's token id is 404", async () => {
    const created = (await create(adminHeaders, { name: "system only", scopes: ["admin:read"] })).json<{
      id: string;
    }>();
    const customer = await provisionTenant(t);
    const response = await t.inject({
      method: "GET",
      url: `/api/v1/admin/access-tokens/${created.id}`,
      headers: bearer(customer.token),
    });
    expect(response.statusCode).toBe(404);
  });

  it("list and create deny without credentials and without admin scopes", async () => {
    await expectSessionRouteDenials(t, {
      method: "GET",
      url: "/api/v1/admin/access-tokens",
      insufficientScopes: ["tenants:list"],
    });
    await expectSessionRouteDenials(t, {
      method: "POST",
      url: "/api/v1/admin/access-tokens",
      payload: { name: "x", scopes: ["admin:read"] },
      insufficientScopes: ["admin:read"],
    });
  });
});

describe("credential handling", () => {
  it("the bootstrap token compared by hash: a token differing in one character is 401", async () => {
    const wrong = `${bootstrapToken.slice(0, -1)}${bootstrapToken.endsWith("p") ? "q" : "p"}`;
    expect((await whoami(bearer(wrong))).statusCode).toBe(401);
  });

  it("lookups that arrive together share a statement, and each request is judged by its own credential", async () => {
    const tokens = await Promise.all(
      ["alpha", "beta", "revoked"].map(async (name) => {
        const created = await t.inject({
          method: "POST",
          url: "/api/v1/admin/access-tokens",
          headers: adminHeaders,
          payload: { name: `together-${name}`, scopes: ["admin:read"] },
        });
        expect(created.statusCode).toBe(201);
        return created.json<{ id: string; token: string }>();
      }),
    );
    const [alpha, beta, revoked] = tokens as [(typeof tokens)[0], (typeof tokens)[0], (typeof tokens)[0]];
    const revoke = await t.inject({
      method: "POST",
      url: `/api/v1/admin/access-tokens/${revoked.id}/revoke`,
      headers: adminHeaders,
    });
    expect(revoke.statusCode).toBe(200);
    const wrongSecret = `${alpha.token.slice(0, -1)}${alpha.token.endsWith("A") ? "B" : "A"}`;
    const cases: [string, string, number, string | undefined][] = [];
    for (let i = 0; i < 8; i++) {
      cases.push(
        ["alpha", alpha.token, 200, alpha.id],
        ["beta", beta.token, 200, beta.id],
        ["revoked", revoked.token, 401, undefined],
        ["wrong secret", wrongSecret, 401, undefined],
        ["unknown", `not-a-token-we-issued-${i}`, 401, undefined],
      );
    }
    const answers = await Promise.all(cases.map(([, token]) => whoami(bearer(token))));
    answers.forEach((answer, i) => {
      const [label, , status, id] = cases[i] as (typeof cases)[0];
      expect(answer.statusCode, label).toBe(status);
      if (id) expect(answer.json<{ principal: { id: string } }>().principal.id, label).toBe(id);
    });
  });
});
