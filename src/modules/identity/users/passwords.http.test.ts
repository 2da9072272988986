import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../../platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../../../../test/support/fixtures.js";
import { adminHeaders, bearer, createTestApp, type TestApp } from "../../../../test/support/test-app.js";
import {
  addUser,
  expectProblem,
  inviteUser,
  patchUser,
  usersUrl,
  whoamiStatus as whoamiOf,
  type InvitedUser,
} from "../../../../test/support/users.js";

/** The app's time: tests move it past a reset's expiry and the sign-in throttle's hold. */
const clock = createManualClock(new Date("2026-11-28T12:00:00.000Z"));
let t: TestApp;
beforeAll(async () => (t = await createTestApp({ clock })));
afterAll(() => t.close());

const changeUrl = "/api/v1/auth/password";
const resetsUrl = "/api/v1/auth/password-resets";
const newPassword = "a brand new long passphrase";
/** Every body these tests saw, for the log-capture test. */
const bodies: string[] = [];

const inject = async (options: Parameters<TestApp["inject"]>[0]) => {
  const response = await t.inject(options);
  bodies.push(response.body);
  return response;
};
const change = (token: string, payload: object) =>
  inject({ method: "POST", url: changeUrl, headers: bearer(token), payload });
const issueReset = (token: string, id: string) =>
  inject({ method: "POST", url: `${usersUrl}/${id}/password-reset`, headers: bearer(token) });
const useReset = (payload: object) => inject({ method: "POST", url: resetsUrl, payload });
const signIn = (tenant: ProvisionedTenant, email: string, password: string) =>
  inject({ method: "POST", url: "/api/v1/auth/sessions", payload: { tenant: tenant.slug, email, password } });
const whoamiStatus = (token: string) => whoamiOf(t, token);
const newSession = async (tenant: ProvisionedTenant, email: string, password: string) => {
  const response = await signIn(tenant, email, password);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ token: string }>().token;
};
const passwordHashOf = async (tenantId: string, userId: string) => {
  const { rows } = await sql<{ h: string }>`SELECT password_hash AS h FROM users
    WHERE tenant_id = ${tenantId} AND id = ${userId}`.execute(t.container.database.db);
  return rows[0]?.h;
};
const issued = async (token: string, id: string) => {
  const response = await issueReset(token, id);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ token: string; expiresAt: string }>();
};

describe("changing one's password (POST /api/v1/auth/password)", () => {
  it("sets the new password and ends the user's other sessions, not the calling one", async () => {
    const tenant = await provisionTenant(t);
    const user = await addUser(t, tenant, "viewer");
    const other = await newSession(tenant, user.email, user.password);
    const bystander = await addUser(t, tenant, "viewer");
    const response = await change(user.token, { currentPassword: user.password, newPassword });
    expect(response.statusCode, response.body).toBe(204);
    expect(await whoamiStatus(user.token)).toBe(200);
    expect(await whoamiStatus(other)).toBe(401);
    // Other users' sessions are untouched.
    expect(await whoamiStatus(bystander.token)).toBe(200);
    expect(await whoamiStatus(tenant.token)).toBe(200);
    expect((await signIn(tenant, user.email, user.password)).statusCode).toBe(401);
    expect((await signIn(tenant, user.email, newPassword)).statusCode).toBe(201);
  });

  it("refuses a wrong current password or a bad new one, at its pointer, and changes nothing", async () => {
    const tenant = await provisionTenant(t);
    const user = await addUser(t, tenant, "admin");
    const other = await newSession(tenant, user.email, user.password);
    const before = await passwordHashOf(tenant.id, user.id);
    const cases: [object, string][] = [
      [{ currentPassword: "not the password at all", newPassword }, "/currentPassword"],
      [{ currentPassword: "", newPassword }, "/currentPassword"],
      [{ currentPassword: user.password, newPassword: "too short" }, "/newPassword"],
      [{ currentPassword: user.password, newPassword: "x".repeat(1025) }, "/newPassword"],
      [{ currentPassword: user.password, newPassword: "😀".repeat(14) }, "/newPassword"],
      [{ currentPassword: user.password }, "/newPassword"],
      [{ newPassword }, "/currentPassword"],
      [{ currentPassword: user.password, newPassword: 123456789012345 }, "/newPassword"],
      [{ currentPassword: user.password, newPassword, extra: 1 }, ""],
    ];
    for (const [payload, pointer] of cases) {
      const problem = expectProblem(await change(user.token, payload), 400, "ERR_VALIDATION");
      if (pointer)
        expect(
          problem.errors?.map((e) => e.pointer),
          JSON.stringify(payload),
        ).toContain(pointer);
    }
    expect(await passwordHashOf(tenant.id, user.id)).toBe(before);
    expect(await whoamiStatus(other)).toBe(200);
    expect((await signIn(tenant, user.email, user.password)).statusCode).toBe(201);
    // 15 code points (emoji count as one each) are enough.
    const emoji = "😀".repeat(15);
    expect(
      (await change(user.token, { currentPassword: user.password, newPassword: emoji })).statusCode,
    ).toBe(204);
    expect((await signIn(tenant, user.email, emoji)).statusCode).toBe(201);
  });

  it("counts a wrong current password like a failed sign-in (429 after ten from one address)", async () => {
    const tenant = await provisionTenant(t);
    const user = await addUser(t, tenant, "viewer");
    const before = await passwordHashOf(tenant.id, user.id);
    for (let i = 0; i < 10; i++) {
      const wrong = await change(user.token, {
        currentPassword: `wrong guess number ${String(i)}`,
        newPassword,
      });
      expectProblem(wrong, 400, "ERR_VALIDATION");
    }
    const held = await change(user.token, { currentPassword: user.password, newPassword });
    expectProblem(held, 429, "ERR_RATE_LIMITED");
    // So is a sign-in to the account from the same address.
    expect((await signIn(tenant, user.email, user.password)).statusCode).toBe(429);
    expect(await passwordHashOf(tenant.id, user.id)).toBe(before);
    clock.advance(10 * 60 * 1000);
    expect((await change(user.token, { currentPassword: user.password, newPassword })).statusCode).toBe(204);
  });

  it("needs a user session: no credential is 401, an access token 403", async () => {
    const tenant = await provisionTenant(t);
    const anonymous = await inject({
      method: "POST",
      url: changeUrl,
      payload: { currentPassword: "x", newPassword },
    });
    expectProblem(anonymous, 401, "ERR_UNAUTHENTICATED");
    const created = await inject({
      method: "POST",
      url: "/api/v1/admin/access-tokens",
      headers: bearer(tenant.token),
      payload: { name: "program", scopes: ["admin:read"] },
    });
    expect(created.statusCode).toBe(201);
    const accessToken = created.json<{ token: string }>().token;
    expectProblem(
      await change(accessToken, { currentPassword: tenant.password, newPassword }),
      403,
      "ERR_FORBIDDEN",
    );
    expectProblem(
      await inject({
        method: "POST",
        url: changeUrl,
        headers: adminHeaders,
        payload: { currentPassword: "x", newPassword },
      }),
      403,
      "ERR_FORBIDDEN",
    );
    expect((await signIn(tenant, tenant.email, tenant.password)).statusCode).toBe(201);
  });
});

describe("password resets (POST /api/v1/admin/users/{id}/password-reset, /api/v1/auth/password-resets)", () => {
  it("issues a one-use token valid an hour; using it sets the password and ends every session", async () => {
    const tenant = await provisionTenant(t);
    const user = await addUser(t, tenant, "viewer");
    const other = await newSession(tenant, user.email, user.password);
    const reset = await issued(tenant.token, user.id);
    expect(reset.token).toMatch(/^hanse_rt_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    expect(reset.expiresAt).toBe(new Date(clock.now().getTime() + 3600 * 1000).toISOString());
    // Stored as a hash, never as the token.
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM password_resets
      WHERE user_id = ${user.id} AND secret_hash = sha256(convert_to(${reset.token}, 'UTF8'))`.execute(
      t.container.database.db,
    );
    expect(rows[0]?.n).toBe(1);
    // Issuing a reset changes nothing by itself.
    expect(await whoamiStatus(user.token)).toBe(200);
    expect((await useReset({ token: reset.token, password: newPassword })).statusCode).toBe(204);
    expect(await whoamiStatus(user.token)).toBe(401);
    expect(await whoamiStatus(other)).toBe(401);
    expect(await whoamiStatus(tenant.token)).toBe(200);
    expect((await signIn(tenant, user.email, user.password)).statusCode).toBe(401);
    const session = await newSession(tenant, user.email, newPassword);
    // Once only.
    expectProblem(
      await useReset({ token: reset.token, password: "yet another long passphrase" }),
      401,
      "ERR_UNAUTHENTICATED",
    );
    expect(await whoamiStatus(session)).toBe(200);
    expect((await signIn(tenant, user.email, newPassword)).statusCode).toBe(201);
  });

  it("refuses an expired, unknown or altered token (401) and a bad password (400, the token stays usable)", async () => {
    const tenant = await provisionTenant(t);
    const user = await addUser(t, tenant, "admin");
    const before = await passwordHashOf(tenant.id, user.id);
    const reset = await issued(tenant.token, user.id);
    for (const [password, pointer] of [
      ["short", "/password"],
      ["y".repeat(1025), "/password"],
    ] as const) {
      const problem = expectProblem(await useReset({ token: reset.token, password }), 400, "ERR_VALIDATION");
      expect(problem.errors?.map((e) => e.pointer)).toContain(pointer);
    }
    expectProblem(await useReset({ token: reset.token }), 400, "ERR_VALIDATION");
    expectProblem(await useReset({ password: newPassword }), 400, "ERR_VALIDATION");
    const altered = `${reset.token.slice(0, -1)}${reset.token.endsWith("A") ? "B" : "A"}`;
    const unknownId = `hanse_rt_${"0".repeat(32)}_${reset.token.slice(-43)}`;
    for (const token of [altered, unknownId, "nonsense", reset.token.replace("hanse_rt_", "hanse_it_")]) {
      expectProblem(await useReset({ token, password: newPassword }), 401, "ERR_UNAUTHENTICATED");
    }
    expect(await passwordHashOf(tenant.id, user.id)).toBe(before);
    expect(await whoamiStatus(user.token)).toBe(200);
    // Valid until the hour has passed, not after.
    const late = await issued(tenant.token, user.id);
    clock.advance(3600 * 1000);
    expectProblem(await useReset({ token: late.token, password: newPassword }), 401, "ERR_UNAUTHENTICATED");
    expectProblem(await useReset({ token: reset.token, password: newPassword }), 401, "ERR_UNAUTHENTICATED");
    expect(await passwordHashOf(tenant.id, user.id)).toBe(before);
    const fresh = await issued(tenant.token, user.id);
    clock.advance(3600 * 1000 - 1);
    expect((await useReset({ token: fresh.token, password: newPassword })).statusCode).toBe(204);
  });

  it("issues only for an active user of the caller's tenant, with users:write", async () => {
    const tenant = await provisionTenant(t);
    const elsewhere = await provisionTenant(t);
    const stranger = await addUser(t, elsewhere, "viewer");
    expectProblem(await issueReset(tenant.token, stranger.id), 404, "ERR_NOT_FOUND");
    expectProblem(
      await issueReset(tenant.token, "0190f2a0-7b1c-7d2e-8f3a-4b5c6d7e8f90"),
      404,
      "ERR_NOT_FOUND",
    );
    expectProblem(await issueReset(tenant.token, "not-a-uuid"), 404, "ERR_NOT_FOUND");
    const invited = await inviteUser(t, tenant.token, { email: "invited@reset.test", role: "viewer" });
    expect(invited.statusCode).toBe(201);
    expectProblem(await issueReset(tenant.token, invited.json<InvitedUser>().id), 409, "ERR_CONFLICT");
    const gone = await addUser(t, tenant, "viewer");
    const reset = await issued(tenant.token, gone.id);
    expect((await patchUser(t, tenant.token, gone.id, { status: "deactivated" })).statusCode).toBe(200);
    expectProblem(await issueReset(tenant.token, gone.id), 409, "ERR_CONFLICT");
    // A reset issued before the deactivation does not bring the user back.
    expectProblem(await useReset({ token: reset.token, password: newPassword }), 401, "ERR_UNAUTHENTICATED");
    const admin = await addUser(t, tenant, "admin");
    expectProblem(await issueReset(admin.token, gone.id), 403, "ERR_FORBIDDEN");
    expectProblem(
      await inject({ method: "POST", url: `${usersUrl}/${gone.id}/password-reset` }),
      401,
      "ERR_UNAUTHENTICATED",
    );
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM password_resets
      WHERE tenant_id = ${tenant.id}`.execute(t.container.database.db);
    expect(rows[0]?.n).toBe(1);
  });

  it("refuses a listed common password of 15 characters or more at invitation, reset and change", async () => {
    const tenant = await provisionTenant(t);
    const listed = ["1qaz2wsx3edc4rfv", "PasswordPassword", "QWERTYUIOP12345"];
    const invited = await inviteUser(t, tenant.token, { email: "common@passwords.test", role: "viewer" });
    expect(invited.statusCode).toBe(201);
    const invitation = invited.json<InvitedUser>().invitation;
    const user = await addUser(t, tenant, "viewer");
    const reset = await issued(tenant.token, user.id);
    const before = await passwordHashOf(tenant.id, user.id);
    for (const password of listed) {
      const pointers = [
        [
          await inject({
            method: "POST",
            url: "/api/v1/auth/invitations",
            payload: { token: invitation.token, password },
          }),
          "/password",
        ],
        [await useReset({ token: reset.token, password }), "/password"],
        [await change(user.token, { currentPassword: user.password, newPassword: password }), "/newPassword"],
      ] as const;
      for (const [response, pointer] of pointers) {
        const problem = expectProblem(response, 400, "ERR_VALIDATION");
        expect(problem.errors).toEqual([
          { pointer, message: "is one of the most common passwords; choose another" },
        ]);
      }
    }
    expect(await passwordHashOf(tenant.id, user.id)).toBe(before);
    expect(await whoamiStatus(user.token)).toBe(200);
    // The invitation and the reset are still usable.
    expect(
      (
        await inject({
          method: "POST",
          url: "/api/v1/auth/invitations",
          payload: { token: invitation.token, password: newPassword },
        })
      ).statusCode,
    ).toBe(201);
    expect((await useReset({ token: reset.token, password: newPassword })).statusCode).toBe(204);
  });

  it("never writes reset tokens or passwords to the logs or error bodies", async () => {
    const tenant = await provisionTenant(t);
    const user = await addUser(t, tenant, "viewer");
    const reset = await issued(tenant.token, user.id);
    const shortPassword = "tiny secret";
    const wrongCurrent = "the wrong current passphrase";
    await useReset({ token: reset.token, password: shortPassword });
    const unused = `${reset.token.slice(0, -2)}zz`;
    await useReset({ token: unused, password: newPassword });
    expect((await useReset({ token: reset.token, password: newPassword })).statusCode).toBe(204);
    await useReset({ token: reset.token, password: newPassword });
    const session = await newSession(tenant, user.email, newPassword);
    await change(session, { currentPassword: wrongCurrent, newPassword: "another fine passphrase" });
    await change(session, { currentPassword: newPassword, newPassword: shortPassword });
    expect(
      (await change(session, { currentPassword: newPassword, newPassword: "another fine passphrase" }))
        .statusCode,
    ).toBe(204);
    const errorBodies = bodies.filter((body) => body.includes('"code"'));
    const logs = t.logs.join("\n");
    for (const secret of [
      reset.token,
      reset.token.slice(-43),
      unused,
      shortPassword,
      wrongCurrent,
      newPassword,
      "another fine passphrase",
      user.password,
    ]) {
      expect(logs).not.toContain(secret);
      for (const body of errorBodies) expect(body).not.toContain(secret);
    }
  });
});
