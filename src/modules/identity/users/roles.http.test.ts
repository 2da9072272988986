import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionTenant, type ProvisionedTenant } from "../../../../test/support/fixtures.js";
import { adminHeaders, bearer, createTestApp, type TestApp } from "../../../../test/support/test-app.js";
import { addUser, patchUser, userIdOf, type MemberUser } from "../../../../test/support/users.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

interface Whoami {
  principal: { id: string; kind: string; role: string | null };
  scopes: string[];
}
const createToken = (token: string, payload: { name: string; scopes: string[] }) =>
  t.inject({ method: "POST", url: "/api/v1/admin/access-tokens", headers: bearer(token), payload });
const whoami = (token: string) =>
  t.inject({ method: "GET", url: "/api/v1/profile/whoami", headers: bearer(token) });

/**
 * Changes the tenant's first administrator's role or status over HTTP (PATCH admin.users), as a
 * second owner, so that the tenant keeps an active owner (rules/contract §7) whatever the first becomes.
 */
const coOwners = new Map<string, MemberUser>();
const firstAdministrators = new Map<string, string>();
const setUser = async (tenant: ProvisionedTenant, column: "role" | "status", value: string) => {
  let coOwner = coOwners.get(tenant.id);
  if (!coOwner) {
    coOwner = await addUser(t, tenant, "owner");
    coOwners.set(tenant.id, coOwner);
  }
  const id = firstAdministrators.get(tenant.id) ?? (await userIdOf(t, tenant.token));
  firstAdministrators.set(tenant.id, id);
  const response = await patchUser(t, coOwner.token, id, { [column]: value });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json<{ role: string; status: string }>()[column]).toBe(value);
};
describe("rules/contract §7: roles", () => {
  it("a tenant's first administrator is an owner with every tenant scope except the partner ones; whoami shows the role", async () => {
    const tenant = await provisionTenant(t);
    const response = await whoami(tenant.token);
    expect(response.statusCode).toBe(200);
    const body = response.json<Whoami>();
    expect(body.principal).toMatchObject({ kind: "user", role: "owner" });
    expect(body.scopes.sort()).toEqual(
      [
        "admin:read",
        "admin:write",
        "users:read",
        "users:write",
        "workflows:read",
        "workflows:transition",
      ].sort(),
    );
  });

  it("the bootstrap administrator is an owner; its access token has no role in whoami (role null)", async () => {
    const body = (
      await t.inject({ method: "GET", url: "/api/v1/profile/whoami", headers: adminHeaders })
    ).json<Whoami>();
    expect(body.principal).toMatchObject({ kind: "access_token", role: null });
    const { rows } = await sql<{ role: string; status: string }>`
      SELECT u.role, u.status FROM users AS u JOIN tenants AS t ON t.id = u.tenant_id
      WHERE t.type = 'system'`.execute(t.container.database.db);
    expect(rows).toEqual([{ role: "owner", status: "active" }]);
  });

  it("a session's scopes follow its user's current role: a demotion applies from the next request on", async () => {
    const tenant = await provisionTenant(t);
    await setUser(tenant, "role", "viewer");
    const body = (await whoami(tenant.token)).json<Whoami>();
    expect(body.principal.role).toBe("viewer");
    expect(body.scopes.sort()).toEqual(["admin:read", "users:read", "workflows:read"]);
    // A viewer's session cannot write, though it was opened by an owner.
    const create = await t.inject({
      method: "POST",
      url: "/api/v1/admin/partners",
      headers: bearer(tenant.token),
      payload: { name: "Nordwind" },
    });
    expect(create.statusCode).toBe(403);
    expect(create.json<{ code: string }>().code).toBe("ERR_FORBIDDEN");
    const transition = await t.inject({
      method: "POST",
      url: "/api/v1/workflows/transition-requests",
      headers: {
        ...bearer(tenant.token),
        "x-tenant-id": tenant.id,
        "x-idempotency-key": "demoted-1",
      },
      payload: { entity: "product", entityId: "0190f2a0-0000-7000-8000-000000000001", transition: "submit" },
    });
    expect(transition.statusCode).toBe(403);
    await setUser(tenant, "role", "admin");
    const admin = (await whoami(tenant.token)).json<Whoami>();
    expect(admin.principal.role).toBe("admin");
    expect(admin.scopes).not.toContain("users:write");
    expect(admin.scopes).toContain("admin:write");
  });

  it("a deactivated user's sessions end at once (their next request is 401) and the user cannot sign in", async () => {
    const tenant = await provisionTenant(t);
    await setUser(tenant, "status", "deactivated");
    const response = await whoami(tenant.token);
    expect(response.statusCode).toBe(401);
    expect(response.json<{ code: string }>().code).toBe("ERR_UNAUTHENTICATED");
    const signIn = await t.inject({
      method: "POST",
      url: "/api/v1/auth/sessions",
      payload: { tenant: tenant.slug, email: tenant.email, password: tenant.password },
    });
    expect(signIn.statusCode).toBe(401);
  });

  it("access tokens keep the scopes they were issued with, cannot exceed the creator's and name createdBy (listed with it)", async () => {
    const tenant = await provisionTenant(t);
    const me = (await whoami(tenant.token)).json<Whoami>();
    const created = await createToken(tenant.token, { name: "ci", scopes: ["admin:read", "admin:write"] });
    expect(created.statusCode).toBe(201);
    const token = created.json<{ id: string; token: string; createdBy: string }>();
    expect(token.createdBy).toBe(me.principal.id);
    const list = await t.inject({
      method: "GET",
      url: "/api/v1/admin/access-tokens",
      headers: bearer(tenant.token),
    });
    expect(list.json<{ items: { id: string; createdBy: string }[] }>().items).toContainEqual(
      expect.objectContaining({ id: token.id, createdBy: me.principal.id }),
    );
    const tooMuch = await createToken(tenant.token, { name: "root", scopes: ["tenants:create"] });
    expect(tooMuch.statusCode).toBe(403);
    // The creator's demotion does not change what the token was issued with.
    await setUser(tenant, "role", "viewer");
    expect((await whoami(token.token)).json<Whoami>().scopes.sort()).toEqual(["admin:read", "admin:write"]);
    const viewerToken = await createToken(tenant.token, { name: "more", scopes: ["admin:read"] });
    // A viewer lacks admin:write, which creating a token takes.
    expect(viewerToken.statusCode).toBe(403);
  });
});
