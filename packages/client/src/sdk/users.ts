/**
 * Operators (rules/contract §7): the tenant's users (`admin.users`), its single sign-on setting
 * (`admin.sso`) and the signed-in user's own password (public `auth.password`). Every call goes
 * through a published entry (rules/interface B: no path is guessed).
 */
import type { Entrypoint } from "../protocol/index.js";
import type { RequestBody, ResponseBody } from "./api.js";
import type { Transport } from "./http.js";
import { createPublishedCall, type ListQuery } from "./published-call.js";
import type { Page } from "./types.js";

export const usersEntryId = "admin.users";
export const ssoEntryId = "admin.sso";
export const authPasswordEntryId = "auth.password";

/** owner: every tenant scope; admin: the same without users:write; viewer: reads. */
export type UserRole = User["role"];
export type UserStatus = User["status"];

export type User = ResponseBody<"getUser">;

/** A one-time token (an invitation, a password reset): shown only in the answer that issues it. */
export type OneTimeToken = ResponseBody<"issuePasswordReset", 201>;

/** A user as invited: `invitation.token` is shown only here. */
export type InvitedUser = ResponseBody<"inviteUser", 201>;

export type InviteUserInput = RequestBody<"inviteUser">;

/** At least one field; a change that leaves the tenant without an active owner is 409. */
export type UpdateUserInput = RequestBody<"updateUser">;

export interface UsersApi {
  /** Oldest first (`order: "desc"` newest first). */
  list(query?: ListQuery): Promise<Page<User>>;
  get(id: string): Promise<User>;
  /** 201 with the user (`invited`) and its invitation; an e-mail address in use is 409. */
  invite(input: InviteUserInput): Promise<InvitedUser>;
  update(id: string, patch: UpdateUserInput): Promise<User>;
  /** A one-use reset token for an active user (409 otherwise). */
  resetPassword(id: string): Promise<OneTimeToken>;
  /** A fresh invitation for a user still `invited`; its earlier ones stop working (409 otherwise). */
  reissueInvitation(id: string): Promise<OneTimeToken>;
}

export type SsoAutoCreate = NonNullable<SsoSettings["autoCreate"]>;

/** The tenant's single sign-on setting: never its client secret. */
export type SsoSettings = ResponseBody<"getSsoSettings">;

export type SsoSettingsInput = RequestBody<"setSsoSettings">;

export interface SsoApi {
  /** 404 (HanseApiError) when the tenant has none. */
  get(): Promise<SsoSettings>;
  /** Creates or replaces it; the issuer's discovery document is read now (400 at /issuer). */
  set(input: SsoSettingsInput): Promise<SsoSettings>;
  /** Turns it off (open sessions stay); 404 when there is none. */
  remove(): Promise<void>;
}

export interface PasswordApi {
  /**
   * Changes the signed-in user's password (a user session only: an access token is 403). A wrong
   * current password is 400 at /currentPassword; the user's other sessions end.
   */
  change(input: RequestBody<"changePassword">): Promise<void>;
}

export function createUsersApi(
  transport: Transport,
  findEntry: (id: string) => Promise<Entrypoint>,
): UsersApi {
  const run = createPublishedCall(transport, findEntry);
  const e = usersEntryId;
  return {
    list: (query = {}) => run(e, "list", {}, { query }),
    get: (id) => run(e, "read", { id }),
    invite: (input) => run(e, "create", {}, { body: input }),
    update: (id, patch) => run(e, "update", { id }, { body: patch }),
    resetPassword: (id) => run(e, "passwordReset", { id }),
    reissueInvitation: (id) => run(e, "reissueInvitation", { id }),
  };
}

export function createSsoApi(transport: Transport, findEntry: (id: string) => Promise<Entrypoint>): SsoApi {
  const run = createPublishedCall(transport, findEntry);
  return {
    get: () => run(ssoEntryId, "read"),
    set: (input) => run(ssoEntryId, "set", {}, { body: input }),
    async remove() {
      await run<unknown>(ssoEntryId, "delete");
    },
  };
}

export function createPasswordApi(
  transport: Transport,
  findPublicEntry: (id: string) => Promise<Entrypoint>,
): PasswordApi {
  const run = createPublishedCall(transport, findPublicEntry);
  return {
    async change(input) {
      await run<unknown>(authPasswordEntryId, "change", {}, { body: input });
    },
  };
}
