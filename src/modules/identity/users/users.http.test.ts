import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../../platform/clock/clock.js";
import { sha256 } from "../../../platform/crypto/index.js";
import { expectSessionRouteDenials } from "../../../../test/support/auth-cases.js";
import { provisionTenant, type ProvisionedTenant } from "../../../../test/support/fixtures.js";
import { adminHeaders, bearer, createTestApp, type TestApp } from "../../../../test/support/test-app.js";
import { onPostgres } from "../../../../test/support/test-database.js";
import {
  acceptInvitation,
  addUser,
  inviteUser,
  patchUser,
  userIdOf,
  usersUrl,
  type InvitedUser,
  type UserBody,
} from "../../../../test/support/users.js";

const clock = createManualClock(new Date("2026-11-28T09:00:00.000Z"));
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(async () => {
  await t.close();
});

interface Problem {
  code: string;
  status: number;
  detail: string;
  errors?: { pointer: string; message: string }[];
}
interface Page {
  items: UserBody[];
  meta: { hasMore: boolean; nextCursor: string | null };
}

const problemOf = (response: {
  statusCode: number;
  headers: Record<string, unknown>;
  json: () => unknown;
}) => {
  expect(response.headers["content-type"]).toContain("application/problem+json");
  return response.json() as Problem;
};
/** A 400 ERR_VALIDATION problem with an error at `pointer`. */
const expectValidationAt = (response: Parameters<typeof problemOf>[0], pointer: string, sent: unknown) => {
  expect(response.statusCode, JSON.stringify(sent)).toBe(400);
  const problem = problemOf(response);
  expect(problem.code).toBe("ERR_VALIDATION");
  expect(
    problem.errors?.map((e) => e.pointer),
    JSON.stringify(sent),
  ).toContain(pointer);
};
const listUsers = async (token: string, query = "") => {
  const response = await t.inject({ method: "GET", url: `${usersUrl}${query}`, headers: bearer(token) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Page>();
};
const getUser = (token: string, id: string) =>
  t.inject({ method: "GET", url: `${usersUrl}/${id}`, headers: bearer(token) });
const whoami = (token: string) =>
  t.inject({ method: "GET", url: "/api/v1/profile/whoami", headers: bearer(token) });
const signIn = (tenant: ProvisionedTenant, email: string, password: string) =>
  t.inject({
    method: "POST",
    url: "/api/v1/auth/sessions",
    payload: { tenant: tenant.slug, email, password },
  });
const longPassword = "a perfectly long passphrase";
/** A new invited user of `tenant` (201), with its invitation. */
const invite = async (tenant: ProvisionedTenant, email: string, role = "viewer") => {
  const response = await inviteUser(t, tenant.token, { email, role });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<InvitedUser>();
};

describe("rules/contract §7: inviting a user (POST /api/v1/admin/users)", () => {
  it("answers 201 with the user (status invited) and invitation {token, expiresAt}; the token is shown only there and stored only as a hash", async () => {
    const tenant = await provisionTenant(t);
    const response = await inviteUser(t, tenant.token, {
      email: "Ops@Example.test",
      name: "Ops Team",
      role: "viewer",
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json<InvitedUser>();
    expect(Object.keys(body).sort()).toEqual(
      ["createdAt", "email", "id", "invitation", "lastSignInAt", "name", "role", "status"].sort(),
    );
    expect(body).toMatchObject({
      email: "Ops@Example.test",
      name: "Ops Team",
      role: "viewer",
      status: "invited",
      createdAt: clock.now().toISOString(),
      lastSignInAt: null,
    });
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    // HANSE_INVITATION_TTL_SECONDS, 259200 by default.
    expect(body.invitation.expiresAt).toBe(new Date(clock.now().getTime() + 259_200_000).toISOString());
    expect(body.invitation.token).toMatch(/^hanse_it_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);

    const read = await getUser(tenant.token, body.id);
    expect(read.statusCode).toBe(200);
    const { invitation, ...user } = body;
    expect(read.json()).toEqual(user);
    expect(read.body).not.toContain(invitation.token);
    const list = await listUsers(tenant.token);
    expect(list.items).toContainEqual(user);
    expect(JSON.stringify(list)).not.toContain(invitation.token);

    const { rows } = await sql<{ row: string; secret_hash: Buffer }>`
      SELECT to_json(i)::text AS row, i.secret_hash FROM user_invitations AS i
      WHERE i.tenant_id = ${tenant.id}`.execute(t.container.database.db);
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]?.secret_hash ?? []).equals(sha256(invitation.token))).toBe(true);
    expect(rows[0]?.row).not.toContain(invitation.token.slice(-43));
  });

  it("the name defaults to the e-mail address", async () => {
    const tenant = await provisionTenant(t);
    const response = await inviteUser(t, tenant.token, { email: "noname@example.test", role: "admin" });
    expect(response.statusCode).toBe(201);
    expect(response.json<InvitedUser>()).toMatchObject({ name: "noname@example.test", role: "admin" });
  });

  it("an e-mail address already used in the tenant, in any case, is 409 ERR_CONFLICT; another tenant may use it", async () => {
    const tenant = await provisionTenant(t);
    expect(
      (await inviteUser(t, tenant.token, { email: "dup@example.test", role: "viewer" })).statusCode,
    ).toBe(201);
    for (const email of ["dup@example.test", "DUP@Example.TEST", tenant.email.toUpperCase()]) {
      const again = await inviteUser(t, tenant.token, { email, role: "admin" });
      expect(again.statusCode, email).toBe(409);
      expect(problemOf(again).code).toBe("ERR_CONFLICT");
    }
    expect((await listUsers(tenant.token)).items).toHaveLength(2);
    const other = await provisionTenant(t);
    expect((await inviteUser(t, other.token, { email: "dup@example.test", role: "viewer" })).statusCode).toBe(
      201,
    );
  });

  it("every bad input is 400 ERR_VALIDATION naming the field, and nothing is created", async () => {
    const tenant = await provisionTenant(t);
    const cases: [unknown, string][] = [
      // An unknown field is reported at the object that holds it (the project's validation messages).
      [{ email: "a@example.test", role: "viewer", scopes: ["users:write"] }, ""],
      [{ email: "not-an-address", role: "viewer" }, "/email"],
      [{ email: "a b@example.test", role: "viewer" }, "/email"],
      [{ email: 42, role: "viewer" }, "/email"],
      [{ role: "viewer" }, "/email"],
      [{ email: "a@example.test", role: "superuser" }, "/role"],
      [{ email: "a@example.test", role: "Owner" }, "/role"],
      [{ email: "a@example.test" }, "/role"],
      [{ email: "a@example.test", role: "viewer", name: "" }, "/name"],
      [{ email: "a@example.test", role: "viewer", name: "n".repeat(201) }, "/name"],
      [{ email: "a@example.test", role: "viewer", status: "active" }, ""],
    ];
    for (const [payload, pointer] of cases) {
      expectValidationAt(await inviteUser(t, tenant.token, payload), pointer, payload);
    }
    const list = await listUsers(tenant.token);
    expect(list.items.map((u) => u.email)).toEqual([tenant.email]);
  });
});

describe("rules/contract §7: accepting an invitation (POST /api/v1/auth/invitations)", () => {
  it("answers 201 with a session {token, expiresAt, scopes}; the user becomes active and the invitation is used up", async () => {
    const tenant = await provisionTenant(t);
    const invited = await invite(tenant, "new@example.test", "viewer");
    clock.advance(60_000);
    const accepted = await acceptInvitation(t, { token: invited.invitation.token, password: longPassword });
    expect(accepted.statusCode, accepted.body).toBe(201);
    const session = accepted.json<{ token: string; expiresAt: string; scopes: string[] }>();
    expect(session.token).toMatch(/^hanse_st_/);
    expect(session.scopes.sort()).toEqual(["admin:read", "users:read", "workflows:read"]);
    expect(new Date(session.expiresAt).getTime()).toBeGreaterThan(clock.now().getTime());
    const me = (await whoami(session.token)).json<{ principal: { id: string; role: string } }>();
    expect(me.principal).toMatchObject({ id: invited.id, role: "viewer" });

    const user = (await getUser(tenant.token, invited.id)).json<UserBody>();
    expect(user).toMatchObject({ status: "active", lastSignInAt: clock.now().toISOString() });

    const again = await acceptInvitation(t, { token: invited.invitation.token, password: longPassword });
    expect(again.statusCode).toBe(401);
    expect(problemOf(again).code).toBe("ERR_UNAUTHENTICATED");
    // The password chosen signs in.
    expect((await signIn(tenant, "new@example.test", longPassword)).statusCode).toBe(201);
  });

  it("an unknown, used or expired invitation is 401 ERR_UNAUTHENTICATED and changes nothing", async () => {
    const tenant = await provisionTenant(t);
    const first = await invite(tenant, "e1@example.test", "admin");
    const second = await invite(tenant, "e2@example.test", "admin");
    const token = first.invitation.token;
    const unknown = [
      "nonsense",
      `hanse_it_${"0".repeat(32)}_${"A".repeat(43)}`,
      // The right id with another secret.
      `${token.slice(0, -43)}${"B".repeat(43)}`,
      // A session token is not an invitation.
      tenant.token,
    ];
    for (const bad of unknown) {
      const response = await acceptInvitation(t, { token: bad, password: longPassword });
      expect(response.statusCode, bad).toBe(401);
      expect(problemOf(response).code).toBe("ERR_UNAUTHENTICATED");
    }
    // Valid until HANSE_INVITATION_TTL_SECONDS have passed, not after.
    clock.advance(259_199_000);
    expect((await acceptInvitation(t, { token, password: longPassword })).statusCode).toBe(201);
    clock.advance(1_000);
    const expired = await acceptInvitation(t, { token: second.invitation.token, password: longPassword });
    expect(expired.statusCode).toBe(401);
    expect(problemOf(expired).code).toBe("ERR_UNAUTHENTICATED");
    // The owner's session of three days ago has expired too: a new one.
    const owner = (await signIn(tenant, tenant.email, tenant.password)).json<{ token: string }>().token;
    expect((await getUser(owner, second.id)).json<UserBody>().status).toBe("invited");
    expect((await signIn(tenant, "e2@example.test", longPassword)).statusCode).toBe(401);
  });

  it("a new password has at least 15 and at most 1024 characters, else 400 ERR_VALIDATION at /password; the invitation stays usable", async () => {
    const tenant = await provisionTenant(t);
    const invited = await invite(tenant, "pw@example.test", "viewer");
    const cases: [unknown, string][] = [
      ["p".repeat(14), "/password"],
      ["p".repeat(1025), "/password"],
      ["", "/password"],
      [123456789012345, "/password"],
    ];
    for (const [password, pointer] of cases) {
      const response = await acceptInvitation(t, { token: invited.invitation.token, password });
      expect(response.statusCode, String(password).slice(0, 20)).toBe(400);
      const problem = problemOf(response);
      expect(problem.code).toBe("ERR_VALIDATION");
      expect(problem.errors?.map((e) => e.pointer)).toEqual([pointer]);
    }
    for (const payload of [{ password: longPassword }, { token: invited.invitation.token }, {}]) {
      expect((await acceptInvitation(t, payload)).statusCode).toBe(400);
    }
    const extra = await acceptInvitation(t, {
      token: invited.invitation.token,
      password: longPassword,
      role: "owner",
    });
    expect(extra.statusCode).toBe(400);
    expect((await getUser(tenant.token, invited.id)).json<UserBody>().status).toBe("invited");
    const ok = await acceptInvitation(t, { token: invited.invitation.token, password: "p".repeat(15) });
    expect(ok.statusCode).toBe(201);
    const me = (await whoami(ok.json<{ token: string }>().token)).json<{ principal: { role: string } }>();
    expect(me.principal.role).toBe("viewer");
  });
});

describe("rules/contract §7: changing a user (PATCH /api/v1/admin/users/{id})", () => {
  it("answers 200 with the user; a role change applies from the user's next request on", async () => {
    const tenant = await provisionTenant(t);
    const viewer = await addUser(t, tenant, "viewer");
    const renamed = await patchUser(t, tenant.token, viewer.id, { name: "Night Shift" });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json<UserBody>()).toMatchObject({ id: viewer.id, name: "Night Shift", role: "viewer" });

    const promoted = await patchUser(t, tenant.token, viewer.id, { role: "admin" });
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json<UserBody>()).toMatchObject({ name: "Night Shift", role: "admin", status: "active" });
    const me = (await whoami(viewer.token)).json<{ principal: { role: string }; scopes: string[] }>();
    expect(me.principal.role).toBe("admin");
    expect(me.scopes).toContain("admin:write");
    expect(me.scopes).not.toContain("users:write");
    expect((await getUser(tenant.token, viewer.id)).json<UserBody>().role).toBe("admin");
  });

  it("deactivating ends the user's sessions at once and refuses its sign-in; reactivating allows sign-in again, the ended sessions stay ended", async () => {
    const tenant = await provisionTenant(t);
    const admin = await addUser(t, tenant, "admin");
    const second = (await signIn(tenant, admin.email, admin.password)).json<{ token: string }>().token;
    expect((await whoami(admin.token)).statusCode).toBe(200);

    const off = await patchUser(t, tenant.token, admin.id, { status: "deactivated" });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json<UserBody>().status).toBe("deactivated");
    for (const token of [admin.token, second]) {
      const refused = await whoami(token);
      expect(refused.statusCode).toBe(401);
      expect(problemOf(refused).code).toBe("ERR_UNAUTHENTICATED");
    }
    expect((await signIn(tenant, admin.email, admin.password)).statusCode).toBe(401);

    const on = await patchUser(t, tenant.token, admin.id, { status: "active" });
    expect(on.statusCode).toBe(200);
    expect(on.json<UserBody>().status).toBe("active");
    for (const token of [admin.token, second]) expect((await whoami(token)).statusCode).toBe(401);
    const again = await signIn(tenant, admin.email, admin.password);
    expect(again.statusCode).toBe(201);
    expect((await whoami(again.json<{ token: string }>().token)).statusCode).toBe(200);
  });

  it("password sign-in sets lastSignInAt", async () => {
    const tenant = await provisionTenant(t);
    const viewer = await addUser(t, tenant, "viewer");
    clock.advance(5_000);
    const at = clock.now().toISOString();
    expect((await signIn(tenant, viewer.email, viewer.password)).statusCode).toBe(201);
    expect((await getUser(tenant.token, viewer.id)).json<UserBody>().lastSignInAt).toBe(at);
    // A failed sign-in does not.
    clock.advance(5_000);
    expect((await signIn(tenant, viewer.email, `${viewer.password}!`)).statusCode).toBe(401);
    expect((await getUser(tenant.token, viewer.id)).json<UserBody>().lastSignInAt).toBe(at);
  });

  it("leaving a tenant without an active owner is 409 ERR_CONFLICT: demoting or deactivating the last active owner", async () => {
    const tenant = await provisionTenant(t);
    const ownerId = await userIdOf(t, tenant.token);
    // An invited owner is not an active one.
    const invited = await inviteUser(t, tenant.token, { email: "later-owner@example.test", role: "owner" });
    expect(invited.statusCode).toBe(201);
    for (const patch of [{ role: "admin" }, { role: "viewer" }, { status: "deactivated" }]) {
      const refused = await patchUser(t, tenant.token, ownerId, patch);
      expect(refused.statusCode, JSON.stringify(patch)).toBe(409);
      expect(problemOf(refused).code).toBe("ERR_CONFLICT");
    }
    expect((await getUser(tenant.token, ownerId)).json<UserBody>()).toMatchObject({
      role: "owner",
      status: "active",
    });
    // Renaming the last owner, or "changing" it to what it is, keeps an owner.
    expect(
      (await patchUser(t, tenant.token, ownerId, { name: "Still here", role: "owner" })).statusCode,
    ).toBe(200);

    // With a second active owner, the first can step down; then the second is the last.
    const second = await addUser(t, tenant, "owner");
    expect((await patchUser(t, second.token, ownerId, { role: "admin" })).statusCode).toBe(200);
    const last = await patchUser(t, second.token, second.id, { status: "deactivated" });
    expect(last.statusCode).toBe(409);
    expect(problemOf(last).code).toBe("ERR_CONFLICT");
    // A deactivated owner is not an active one either.
    expect((await patchUser(t, second.token, ownerId, { role: "owner" })).statusCode).toBe(200);
    expect((await patchUser(t, second.token, ownerId, { status: "deactivated" })).statusCode).toBe(200);
    expect((await patchUser(t, second.token, second.id, { role: "viewer" })).statusCode).toBe(409);
  });

  it("an invited user can be deactivated: its invitation is refused (401), and it cannot be made active but by accepting one (409)", async () => {
    const tenant = await provisionTenant(t);
    const invited = await invite(tenant, "gone@example.test", "viewer");
    const off = await patchUser(t, tenant.token, invited.id, { status: "deactivated" });
    expect(off.statusCode).toBe(200);
    expect(off.json<UserBody>().status).toBe("deactivated");
    const accept = await acceptInvitation(t, { token: invited.invitation.token, password: longPassword });
    expect(accept.statusCode).toBe(401);
    expect(problemOf(accept).code).toBe("ERR_UNAUTHENTICATED");
    const on = await patchUser(t, tenant.token, invited.id, { status: "active" });
    expect(on.statusCode).toBe(409);
    expect(problemOf(on).code).toBe("ERR_CONFLICT");
    const stillInvited = await invite(tenant, "pending@example.test", "viewer");
    expect((await patchUser(t, tenant.token, stillInvited.id, { status: "active" })).statusCode).toBe(409);
    expect((await getUser(tenant.token, stillInvited.id)).json<UserBody>().status).toBe("invited");
  });

  it("every bad input is 400 ERR_VALIDATION (an empty patch too) and changes nothing", async () => {
    const tenant = await provisionTenant(t);
    const viewer = await addUser(t, tenant, "viewer");
    const before = (await getUser(tenant.token, viewer.id)).json<UserBody>();
    const cases: [unknown, string][] = [
      [{}, ""],
      [{ email: "other@example.test" }, ""],
      [{ role: "root" }, "/role"],
      [{ role: null }, "/role"],
      [{ status: "invited" }, "/status"],
      [{ status: "suspended" }, "/status"],
      [{ name: "" }, "/name"],
      [{ name: "x".repeat(201) }, "/name"],
      [{ role: "admin", password: "sneaky-password-value" }, ""],
    ];
    for (const [payload, pointer] of cases) {
      const response = await patchUser(t, tenant.token, viewer.id, payload);
      expectValidationAt(response, pointer, payload);
      expect(response.body).not.toContain("sneaky-password-value");
    }
    // A malformed id names no user: 404, as on every admin route.
    const badId = await patchUser(t, tenant.token, "not-a-uuid", { role: "admin" });
    expect(badId.statusCode).toBe(404);
    expect((await getUser(tenant.token, viewer.id)).json<UserBody>()).toEqual(before);
  });
});

describe("rules/contract §7: who may read and change users", () => {
  it("a viewer can list and read users but not invite or change them; an admin neither (403 ERR_FORBIDDEN); nothing is created", async () => {
    const tenant = await provisionTenant(t);
    const viewer = await addUser(t, tenant, "viewer");
    const admin = await addUser(t, tenant, "admin");
    expect((await listUsers(viewer.token)).items).toHaveLength(3);
    expect((await getUser(viewer.token, admin.id)).statusCode).toBe(200);
    expect((await listUsers(admin.token)).items).toHaveLength(3);
    for (const caller of [viewer, admin]) {
      const invite = await inviteUser(t, caller.token, { email: "x@example.test", role: "owner" });
      expect(invite.statusCode).toBe(403);
      expect(problemOf(invite).code).toBe("ERR_FORBIDDEN");
      const promote = await patchUser(t, caller.token, caller.id, { role: "owner" });
      expect(promote.statusCode).toBe(403);
      expect(problemOf(promote).code).toBe("ERR_FORBIDDEN");
    }
    const list = await listUsers(tenant.token);
    expect(list.items.map((u) => u.email).sort()).toEqual([admin.email, tenant.email, viewer.email].sort());
    expect(list.items.find((u) => u.id === viewer.id)?.role).toBe("viewer");
    expect(list.items.find((u) => u.id === admin.id)?.role).toBe("admin");
  });

  it("another tenant's user id is 404 on read and change (and changes nothing); an unknown id is 404", async () => {
    const mine = await provisionTenant(t);
    const theirs = await provisionTenant(t);
    const theirUser = await addUser(t, theirs, "viewer");
    for (const id of [theirUser.id, "0190f2a0-0000-7000-8000-000000000000"]) {
      const read = await getUser(mine.token, id);
      expect(read.statusCode).toBe(404);
      expect(problemOf(read).code).toBe("ERR_NOT_FOUND");
      const change = await patchUser(t, mine.token, id, { status: "deactivated" });
      expect(change.statusCode).toBe(404);
      expect(problemOf(change).code).toBe("ERR_NOT_FOUND");
    }
    expect((await whoami(theirUser.token)).statusCode).toBe(200);
    expect((await listUsers(mine.token)).items.map((u) => u.email)).toEqual([mine.email]);
  });

  it("every route refuses a missing, malformed or unknown credential (401) and a token without its scope (403)", async () => {
    const id = "0190f2a0-0000-7000-8000-000000000000";
    await expectSessionRouteDenials(t, { method: "GET", url: usersUrl, insufficientScopes: ["admin:read"] });
    await expectSessionRouteDenials(t, {
      method: "GET",
      url: `${usersUrl}/${id}`,
      insufficientScopes: ["admin:read", "admin:write"],
    });
    await expectSessionRouteDenials(t, {
      method: "POST",
      url: usersUrl,
      payload: { email: "denied@example.test", role: "viewer" },
      insufficientScopes: ["users:read", "admin:write"],
    });
    await expectSessionRouteDenials(t, {
      method: "PATCH",
      url: `${usersUrl}/${id}`,
      payload: { role: "viewer" },
      insufficientScopes: ["users:read", "admin:write"],
    });
    // The bootstrap token holds users:write in the system tenant; nobody was invited above.
    const system = await t.inject({ method: "GET", url: usersUrl, headers: adminHeaders });
    expect(system.json<Page>().items.map((u) => u.email)).not.toContain("denied@example.test");
  });

  it("admin.users is a crud entrypoint whose actions follow the scopes; its metaHref serves the create and update schemas", async () => {
    const tenant = await provisionTenant(t);
    const viewer = await addUser(t, tenant, "viewer");
    const actionsOf = async (token: string) => {
      const response = await t.inject({
        method: "GET",
        url: "/api/v1/profile/entrypoints",
        headers: bearer(token),
      });
      expect(response.statusCode).toBe(200);
      const entry = response
        .json<{ entrypoints: { id: string; kind: string; metaHref?: string; actions: { id: string }[] }[] }>()
        .entrypoints.find((e) => e.id === "admin.users");
      return entry;
    };
    const owner = await actionsOf(tenant.token);
    expect(owner).toMatchObject({ kind: "crud", metaHref: "/api/v1/profile/entrypoints/admin.users/meta" });
    expect(owner?.actions.map((a) => a.id).sort()).toEqual([
      "create",
      "list",
      "passwordReset",
      "read",
      "reissueInvitation",
      "update",
    ]);
    expect((await actionsOf(viewer.token))?.actions.map((a) => a.id).sort()).toEqual(["list", "read"]);
    const meta = await t.inject({
      method: "GET",
      url: "/api/v1/profile/entrypoints/admin.users/meta",
      headers: bearer(tenant.token),
    });
    expect(meta.statusCode).toBe(200);
    const { schemas } = meta.json<{
      schemas: { create: { required: string[] }; update: { properties: object } };
    }>();
    expect(schemas.create.required.sort()).toEqual(["email", "role"]);
    expect(Object.keys(schemas.update.properties).sort()).toEqual(["name", "role", "status"]);
  });

  it("the list is paged with limit and cursor like every admin list; a cursor of another tenant is 400", async () => {
    const tenant = await provisionTenant(t);
    for (const n of [1, 2, 3]) {
      clock.advance(1);
      expect(
        (await inviteUser(t, tenant.token, { email: `p${String(n)}@example.test`, role: "viewer" }))
          .statusCode,
      ).toBe(201);
    }
    const first = await listUsers(tenant.token, "?limit=2");
    expect(first.items).toHaveLength(2);
    expect(first.meta.hasMore).toBe(true);
    const cursor = first.meta.nextCursor ?? "";
    const second = await listUsers(tenant.token, `?limit=2&cursor=${encodeURIComponent(cursor)}`);
    expect(second.meta).toEqual({ hasMore: false, nextCursor: null });
    expect([...first.items, ...second.items].map((u) => u.email)).toEqual([
      tenant.email,
      "p1@example.test",
      "p2@example.test",
      "p3@example.test",
    ]);
    const other = await provisionTenant(t);
    const foreign = await t.inject({
      method: "GET",
      url: `${usersUrl}?cursor=${encodeURIComponent(cursor)}`,
      headers: bearer(other.token),
    });
    expect(foreign.statusCode).toBe(400);
    expect(problemOf(foreign).code).toBe("ERR_VALIDATION");
    for (const query of ["?limit=0", "?limit=101", "?order=sideways", "?limit=1e2"]) {
      expect(
        (await t.inject({ method: "GET", url: `${usersUrl}${query}`, headers: bearer(tenant.token) }))
          .statusCode,
        query,
      ).toBe(400);
    }
  });
});

describe("rules/contract §1: invitation tokens and passwords never reach a log line or an error body", () => {
  it("inviting, accepting (wrongly and rightly) and signing in leave neither in any log line or answer but the invitation's", async () => {
    const tenant = await provisionTenant(t);
    const invited = await inviteUser(t, tenant.token, { email: "quiet@example.test", role: "admin" });
    const { invitation } = invited.json<InvitedUser>();
    const shortPassword = "short-secret-1";
    const password = "the-quiet-invited-passphrase";
    const bodies: string[] = [];
    const send = async (payload: unknown) => {
      const response = await acceptInvitation(t, payload);
      bodies.push(response.body);
      return response;
    };
    expect((await send({ token: invitation.token, password: shortPassword })).statusCode).toBe(400);
    expect((await send({ token: `${invitation.token}x`, password })).statusCode).toBe(401);
    expect((await send({ token: invitation.token, password, extra: invitation.token })).statusCode).toBe(400);
    expect((await send({ token: invitation.token, password: 42 })).statusCode).toBe(400);
    const accepted = await send({ token: invitation.token, password });
    expect(accepted.statusCode).toBe(201);
    bodies.pop();
    expect((await send({ token: invitation.token, password })).statusCode).toBe(401);
    const session = await signIn(tenant, "quiet@example.test", password);
    expect(session.statusCode).toBe(201);
    const secrets = [invitation.token, invitation.token.slice(-43), shortPassword, password];
    const logs = t.logs.join("\n");
    for (const secret of secrets) {
      expect(logs).not.toContain(secret);
      for (const body of bodies) expect(body).not.toContain(secret);
    }
  });
});

describe.runIf(onPostgres)("rules/contract §7: the last active owner under concurrency (PostgreSQL)", () => {
  it("two owners demoting or deactivating each other at once: exactly one succeeds, the other is 409", async () => {
    for (const change of [{ role: "admin" }, { status: "deactivated" }]) {
      for (let round = 0; round < 4; round++) {
        const tenant = await provisionTenant(t);
        const firstId = await userIdOf(t, tenant.token);
        const second = await addUser(t, tenant, "owner");
        // Access tokens keep their scopes when their creator is demoted, so both requests reach
        // the change (a session of the demoted owner would be refused earlier, 403).
        const [firstToken, secondToken] = await Promise.all(
          [tenant.token, second.token].map(async (session) => {
            const created = await t.inject({
              method: "POST",
              url: "/api/v1/admin/access-tokens",
              headers: bearer(session),
              payload: { name: "race", scopes: ["users:write"] },
            });
            expect(created.statusCode).toBe(201);
            return created.json<{ token: string }>().token;
          }),
        );
        const answers = await Promise.all([
          patchUser(t, firstToken ?? "", second.id, change),
          patchUser(t, secondToken ?? "", firstId, change),
        ]);
        expect(answers.map((a) => a.statusCode).sort(), JSON.stringify(change)).toEqual([200, 409]);
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM users
          WHERE tenant_id = ${tenant.id} AND role = 'owner' AND status = 'active'`.execute(
          t.container.database.db,
        );
        expect(rows[0]?.n).toBe(1);
      }
    }
  });
});
