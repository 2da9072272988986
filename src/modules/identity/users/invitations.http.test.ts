import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../../platform/clock/clock.js";
import { expectSessionRouteDenials } from "../../../../test/support/auth-cases.js";
import { provisionTenant, type ProvisionedTenant } from "../../../../test/support/fixtures.js";
import { bearer, createTestApp, type TestApp } from "../../../../test/support/test-app.js";
import {
  acceptInvitation,
  addUser,
  expectProblem,
  inviteUser,
  patchUser,
  usersUrl,
  type InvitedUser,
} from "../../../../test/support/users.js";

/**
 * Issue 32 (docs/decisions.md "Inviting again"): `POST /api/v1/admin/users/{id}/invitation`
 * gives a user that is still `invited` a fresh invitation; the earlier ones stop working.
 */
const clock = createManualClock(new Date("2026-11-28T09:00:00.000Z"));
let t: TestApp;
let tenant: ProvisionedTenant;
beforeAll(async () => {
  t = await createTestApp({ clock, env: { HANSE_INVITATION_TTL_SECONDS: "60" } });
  tenant = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
});

// Short enough that the owner's session outlives an invitation.
const ttlMs = 60 * 1000;
const password = "a long passphrase for the second try";
let counter = 0;
const invite = async (role = "viewer") => {
  const response = await inviteUser(t, tenant.token, {
    email: `again-${String(counter++)}@example.test`,
    role,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<InvitedUser>();
};
const reissue = (id: string, token = tenant.token) =>
  t.inject({ method: "POST", url: `${usersUrl}/${id}/invitation`, headers: bearer(token) });
/** The user's invitations and the tenant's user.invited records: what a refused call must not add to. */
const counts = async (userId: string) => {
  const { rows } = await sql<{ invitations: number; records: number }>`SELECT
    (SELECT count(*)::int FROM user_invitations WHERE user_id = ${userId}) AS invitations,
    (SELECT count(*)::int FROM audit_events WHERE tenant_id = ${tenant.id} AND type = 'user.invited') AS records`.execute(
    t.container.database.db,
  );
  return rows[0];
};

describe("reissuing an invitation (POST /api/v1/admin/users/{id}/invitation)", () => {
  it("an expired invitation is replaced: 201 {token, expiresAt}; the new token is accepted, the old one stays refused", async () => {
    const user = await invite();
    clock.advance(ttlMs + 1000);
    expectProblem(
      await acceptInvitation(t, { token: user.invitation.token, password }),
      401,
      "ERR_UNAUTHENTICATED",
    );
    const again = await reissue(user.id);
    expect(again.statusCode, again.body).toBe(201);
    const body = again.json<{ token: string; expiresAt: string }>();
    expect(Object.keys(body).sort()).toEqual(["expiresAt", "token"]);
    expect(body.token).not.toBe(user.invitation.token);
    expect(Date.parse(body.expiresAt)).toBe(clock.now().getTime() + ttlMs);
    expectProblem(
      await acceptInvitation(t, { token: user.invitation.token, password }),
      401,
      "ERR_UNAUTHENTICATED",
    );
    const accepted = await acceptInvitation(t, { token: body.token, password });
    expect(accepted.statusCode, accepted.body).toBe(201);
    // Used up like any invitation.
    expectProblem(await acceptInvitation(t, { token: body.token, password }), 401, "ERR_UNAUTHENTICATED");
  });

  it("the earlier invitation tokens of the user stop working, even unexpired ones", async () => {
    const user = await invite("admin");
    const second = (await reissue(user.id)).json<{ token: string }>();
    const third = await reissue(user.id);
    expect(third.statusCode).toBe(201);
    for (const token of [user.invitation.token, second.token]) {
      expectProblem(await acceptInvitation(t, { token, password }), 401, "ERR_UNAUTHENTICATED");
    }
    const accepted = await acceptInvitation(t, { token: third.json<{ token: string }>().token, password });
    expect(accepted.statusCode, accepted.body).toBe(201);
    const read = await t.inject({
      method: "GET",
      url: `${usersUrl}/${user.id}`,
      headers: bearer(tenant.token),
    });
    expect(read.json()).toMatchObject({ status: "active", role: "admin" });
  });

  it("is audited as user.invited again (data.reissued), without the token", async () => {
    const user = await invite();
    clock.advance(1000);
    const again = await reissue(user.id);
    const { token } = again.json<{ token: string }>();
    const records = await t.inject({
      method: "GET",
      url: `/api/v1/admin/audit-events?type=user.invited&targetId=${user.id}`,
      headers: bearer(tenant.token),
    });
    const items = records.json<{ items: { data: Record<string, unknown>; principalKind: string }[] }>().items;
    expect(items).toHaveLength(2);
    expect(items[0]?.data).toEqual({ role: "viewer" });
    expect(items[1]).toMatchObject({ principalKind: "user", data: { role: "viewer", reissued: true } });
    expect(records.body).not.toContain(token);
    expect(t.logs.some((line) => line.includes(token))).toBe(false);
  });

  it("a user that is active or deactivated is 409 ERR_CONFLICT and nothing is created", async () => {
    const member = await addUser(t, tenant, "viewer");
    let before = await counts(member.id);
    expectProblem(await reissue(member.id), 409, "ERR_CONFLICT");
    expect(await counts(member.id)).toEqual(before);

    const user = await invite();
    expect((await patchUser(t, tenant.token, user.id, { status: "deactivated" })).statusCode).toBe(200);
    before = await counts(user.id);
    expectProblem(await reissue(user.id), 409, "ERR_CONFLICT");
    expect(await counts(user.id)).toEqual(before);
    // Its earlier invitation stays worthless.
    expectProblem(
      await acceptInvitation(t, { token: user.invitation.token, password }),
      401,
      "ERR_UNAUTHENTICATED",
    );
  });

  it("an unknown id, or another tenant's user, is 404; an admin or viewer is 403", async () => {
    const user = await invite();
    const other = await provisionTenant(t);
    expectProblem(await reissue(user.id, other.token), 404, "ERR_NOT_FOUND");
    expectProblem(await reissue("0190a0a0-0000-7000-8000-000000000000"), 404, "ERR_NOT_FOUND");
    for (const role of ["admin", "viewer"] as const) {
      const member = await addUser(t, tenant, role);
      expectProblem(await reissue(user.id, member.token), 403, "ERR_FORBIDDEN");
    }
    // The first invitation still works: none of the refused calls replaced it.
    const accepted = await acceptInvitation(t, { token: user.invitation.token, password });
    expect(accepted.statusCode, accepted.body).toBe(201);
  });

  it("refuses every credential that is not a session with users:write", async () => {
    const user = await invite();
    await expectSessionRouteDenials(t, {
      method: "POST",
      url: `${usersUrl}/${user.id}/invitation`,
      insufficientScopes: ["admin:read", "admin:write", "users:read"],
    });
  });
});
