import { expect } from "vitest";
import { bearer, type TestApp } from "./test-app.js";
import type { ProvisionedTenant } from "./fixtures.js";

let counter = 0;

/** A user of a tenant as these tests see it (rules/contract §7). */
export interface UserBody {
  id: string;
  email: string;
  name: string;
  role: string;
  status: string;
  createdAt: string;
  lastSignInAt: string | null;
}

export interface InvitedUser extends UserBody {
  invitation: { token: string; expiresAt: string };
}

export interface MemberUser {
  id: string;
  email: string;
  password: string;
  /** A session of the user, from accepting its invitation. */
  token: string;
}

export const usersUrl = "/api/v1/admin/users";
export const invitationsUrl = "/api/v1/auth/invitations";

export const inviteUser = (t: TestApp, token: string, payload: unknown) =>
  t.inject({ method: "POST", url: usersUrl, headers: bearer(token), payload: payload as object });

export const acceptInvitation = (t: TestApp, payload: unknown) =>
  t.inject({ method: "POST", url: invitationsUrl, payload: payload as object });

export const patchUser = (t: TestApp, token: string, id: string, payload: unknown) =>
  t.inject({ method: "PATCH", url: `${usersUrl}/${id}`, headers: bearer(token), payload: payload as object });

/** A new user of `tenant` with `role`, invited by the tenant's first administrator, who accepted. */
export async function addUser(
  t: TestApp,
  tenant: ProvisionedTenant,
  role: "owner" | "admin" | "viewer",
): Promise<MemberUser> {
  const email = `${role}-${String(counter++)}@${tenant.slug}.test`;
  const invited = await inviteUser(t, tenant.token, { email, role });
  expect(invited.statusCode, invited.body).toBe(201);
  const { id, invitation } = invited.json<InvitedUser>();
  const password = `a ${role}'s long passphrase ${String(counter)}`;
  const accepted = await acceptInvitation(t, { token: invitation.token, password });
  expect(accepted.statusCode, accepted.body).toBe(201);
  return { id, email, password, token: accepted.json<{ token: string }>().token };
}

/** The id of the user whose session `token` is. */
export async function userIdOf(t: TestApp, token: string): Promise<string> {
  const whoami = await t.inject({ method: "GET", url: "/api/v1/profile/whoami", headers: bearer(token) });
  expect(whoami.statusCode).toBe(200);
  return whoami.json<{ principal: { id: string } }>().principal.id;
}

/** The status of `GET /api/v1/profile/whoami` with `token`: 200 while the session lives, then 401. */
export const whoamiStatus = async (t: TestApp, token: string): Promise<number> =>
  (await t.inject({ method: "GET", url: "/api/v1/profile/whoami", headers: bearer(token) })).statusCode;

export interface Problem {
  code: string;
  errors?: { pointer: string; message: string }[];
}

/** Checks an answer's status and problem code; the problem. */
export function expectProblem(
  response: { statusCode: number; json: () => unknown },
  status: number,
  code: string,
): Problem {
  expect(response.statusCode).toBe(status);
  const problem = response.json() as Problem;
  expect(problem.code).toBe(code);
  return problem;
}
