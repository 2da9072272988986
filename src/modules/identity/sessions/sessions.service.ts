import { actorOf, anonymousActor, type AuditActor } from "../../../platform/audit/index.js";
import type { Principal, RequestOrigin } from "../../../platform/auth/index.js";
import {
  digestsEqual,
  hashPassword,
  unusablePasswordHash,
  verifyPassword,
} from "../../../platform/crypto/index.js";
import type { Database } from "../../../platform/db/database.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { readPage, toCreationPosition, type PageRequest } from "../../../platform/http/cursor.js";
import { hashSecret, invitationIdOf, passwordResetIdOf } from "../credential-format.js";
import * as repo from "../credentials.repository.js";
import * as users from "../users/index.js";
import type { IdentityDeps } from "../identity.deps.js";
import type { IdentityTables } from "../identity.tables.js";
import { identityAudit } from "../identity.audit.js";
import { openSession } from "./open-session.js";
import { createSignInThrottle, signInLimits } from "./sign-in-throttle.js";

const badInvitation = () =>
  new AppError("ERR_UNAUTHENTICATED", "The invitation is unknown, used or expired.");
const badPasswordReset = () =>
  new AppError("ERR_UNAUTHENTICATED", "The password reset is unknown, used or expired.");

/** 400 at `pointer` when `password` may not be a new password (users/password-policy.ts). */
function checkNewPassword(password: string, pointer: string): void {
  const problem = users.newPasswordProblem(password);
  if (problem) {
    throw new AppError("ERR_VALIDATION", `The password ${problem}.`, {
      errors: [{ pointer, message: problem }],
    });
  }
}

/** Sign-in with tenant, e-mail and password (or an invitation) for a session token, and sign-out. */
/** What an invitation or a password reset row holds that decides whether its token may be used. */
interface OneUseToken {
  secret_hash: Uint8Array;
  used_at: Date | null;
  expires_at: Date;
  user_status: string;
  tenant_status: string;
}

/**
 * A one-use token (an invitation, a password reset) may be used: its hash matches the presented
 * token's, it is unused and unexpired, its user has `userStatus` and its tenant is active.
 */
function oneUseTokenUsable(
  row: OneUseToken | undefined,
  presented: Buffer,
  now: Date,
  userStatus: "invited" | "active",
): boolean {
  return (
    row !== undefined &&
    digestsEqual(Buffer.from(row.secret_hash), presented) &&
    row.used_at === null &&
    row.expires_at > now &&
    row.user_status === userStatus &&
    row.tenant_status === "active"
  );
}

/** The user whose own sessions a principal may list or end: a user session's, else 403. */
function ownSessionsOf(principal: Principal, action: "list" | "end") {
  if (principal.kind !== "user") {
    throw new AppError("ERR_FORBIDDEN", `Only a user's session can ${action} its user's sessions.`);
  }
  return { tenantId: principal.tenant.id, id: principal.id };
}

export function createSessions(deps: IdentityDeps, database: Database<IdentityTables>) {
  /** What an open session is now: unexpired and used within the idle limit. */
  const openAt = () => {
    const now = deps.clock.now();
    return { now, idleSince: new Date(now.getTime() - deps.sessionIdleSeconds * 1000) };
  };
  const signInThrottle = createSignInThrottle(
    deps.clock,
    { ...signInLimits, perAccount: { ...signInLimits.perAccount, burst: deps.signInAccountFailures } },
    database,
  );
  const { db } = database;
  const audit = identityAudit(deps);

  return {
    /**
     * rules/contract §2a: any wrong part is the same 401, and an unknown user costs the same time.
     * Failed logins are throttled before the password hash is computed (sign-in-throttle.ts):
     * per account and client address, so that an attacker's address cannot lock the account
     * out, and per account with a ceiling that slows guessing without refusing the right password.
     */
    async createSession(input: { tenant: string; email: string; password: string }, origin?: RequestOrigin) {
      const clientAddress = origin?.sourceAddress ?? "";
      const account = `${input.tenant}\n${input.email.toLowerCase()}`;
      await signInThrottle.admit(account, clientAddress);
      const tenant = await repo.findTenantBySlug(db, input.tenant);
      const user =
        tenant && tenant.status === "active"
          ? await users.findUserByEmail(db, tenant.id, input.email)
          : undefined;
      const ok = await verifyPassword(input.password, user?.password_hash ?? unusablePasswordHash);
      if (!tenant || !user || !ok || user.disabled_at || user.status !== "active") {
        await signInThrottle.recordFailure(account, clientAddress);
        // In the tenant named (an unknown one has no trail); the user when the e-mail matched one.
        // Neither the e-mail nor the password is recorded: a password typed into the e-mail field
        // must not reach the trail.
        if (tenant) {
          await audit.record(
            db,
            tenant.id,
            anonymousActor(origin, user?.id ?? null),
            "session.failed",
            null,
            {
              data: { method: "password" },
            },
          );
        }
        throw new AppError("ERR_UNAUTHENTICATED", "The tenant, e-mail or password is wrong.");
      }
      return database.transaction((trx) =>
        openSession(deps, trx, user, tenant, deps.clock.now(), { method: "password", origin }),
      );
    },

    /**
     * rules/contract §7: an invitation's token and the user's new password → a session; the user
     * becomes active and the invitation is used up. The password policy is checked first (400 at
     * /password); an unknown, used or expired invitation, or one of a user deactivated since, is
     * the same 401. The invitation is locked while it is used, so that it is used once.
     */
    async acceptInvitation(input: { token: string; password: string }, origin?: RequestOrigin) {
      checkNewPassword(input.password, "/password");
      const id = invitationIdOf(input.token);
      const presented = hashSecret(input.token);
      const usable = (invitation: OneUseToken | undefined, now: Date) =>
        oneUseTokenUsable(invitation, presented, now, "invited");
      // Checked before the password is hashed, so a wrong token costs no scrypt.
      if (!id || !usable(await users.findInvitation(db, id), deps.clock.now())) throw badInvitation();
      const passwordHash = await hashPassword(input.password);
      return database.transaction(async (trx) => {
        const now = deps.clock.now();
        const invitation = await users.findInvitation(trx, id, true);
        if (!invitation || !usable(invitation, now)) throw badInvitation();
        await users.useInvitation(trx, invitation.id, now);
        const activated = await users.activateInvitedUser(trx, invitation.tenant_id, invitation.user_id, {
          password_hash: passwordHash,
          activated_at: now,
        });
        if (!activated) throw badInvitation();
        return openSession(
          deps,
          trx,
          { id: invitation.user_id, email: invitation.email, role: invitation.role },
          { id: invitation.tenant_id, type: invitation.tenant_type },
          now,
          { method: "invitation", origin },
        );
      });
    },

    /**
     * rules/contract §7: a user changes its own password with its current one; its other sessions end,
     * the calling one stays. Only a user session may (an access token is 403: it proves no
     * password). A wrong current password is 400 at /currentPassword and counts against the
     * account like a failed sign-in, from the same throttle (so a stolen session cannot guess the
     * password faster than a sign-in could); a bad new password is 400 at /newPassword.
     */
    async changePassword(principal: Principal, input: { currentPassword: string; newPassword: string }) {
      const clientAddress = principal.origin?.sourceAddress ?? "";
      if (principal.kind !== "user") {
        throw new AppError("ERR_FORBIDDEN", "Only a user's session can change its password.");
      }
      const tenantId = principal.tenant.id;
      const user = await users.findUserPassword(db, tenantId, principal.id);
      if (!user || user.status !== "active") {
        throw new AppError("ERR_UNAUTHENTICATED", "The session's user is not active.");
      }
      const account = `${principal.tenant.slug}\n${user.email.toLowerCase()}`;
      await signInThrottle.admit(account, clientAddress);
      if (!(await verifyPassword(input.currentPassword, user.password_hash))) {
        await signInThrottle.recordFailure(account, clientAddress);
        throw new AppError("ERR_VALIDATION", "The current password is wrong.", {
          errors: [{ pointer: "/currentPassword", message: "is wrong" }],
        });
      }
      checkNewPassword(input.newPassword, "/newPassword");
      const passwordHash = await hashPassword(input.newPassword);
      await database.transaction(async (trx) => {
        await users.updateUser(trx, tenantId, principal.id, { password_hash: passwordHash });
        const actor = actorOf(principal);
        await audit.record(trx, tenantId, actor, "user.password_changed", { type: "user", id: principal.id });
        const ended = await repo.revokeUserSessions(
          trx,
          tenantId,
          principal.id,
          deps.clock.now(),
          principal.credentialId,
        );
        await audit.sessionsEnded(trx, tenantId, actor, ended, "password_changed");
      });
    },

    /**
     * rules/contract §7: a password reset's token and the user's new password; every session of the user
     * ends and the reset is used up. The policy is checked first (400 at /password, the token
     * stays usable); an unknown, used or expired reset, or one of a user no longer active, is 401.
     */
    async usePasswordReset(input: { token: string; password: string }, origin?: RequestOrigin) {
      checkNewPassword(input.password, "/password");
      const id = passwordResetIdOf(input.token);
      const presented = hashSecret(input.token);
      const usable = (reset: OneUseToken | undefined, now: Date) =>
        oneUseTokenUsable(reset, presented, now, "active");
      if (!id || !usable(await users.findPasswordReset(db, id), deps.clock.now())) throw badPasswordReset();
      const passwordHash = await hashPassword(input.password);
      await database.transaction(async (trx) => {
        const now = deps.clock.now();
        const reset = await users.findPasswordReset(trx, id, true);
        if (!reset || !usable(reset, now)) throw badPasswordReset();
        await users.usePasswordReset(trx, reset.id, now);
        await users.updateUser(trx, reset.tenant_id, reset.user_id, { password_hash: passwordHash });
        // The reset's holder acts as its user (the token proves it), from the request's address.
        const actor: AuditActor = anonymousActor(origin, reset.user_id);
        await audit.record(
          trx,
          reset.tenant_id,
          actor,
          "user.password_changed",
          { type: "user", id: reset.user_id },
          { data: { method: "password-reset" } },
        );
        const ended = await repo.revokeUserSessions(trx, reset.tenant_id, reset.user_id, now);
        await audit.sessionsEnded(trx, reset.tenant_id, actor, ended, "password_reset");
      });
    },

    /**
     * rules/contract §7: the calling user's open sessions (not ended, expired or idle), oldest first;
     * `current` marks the one the request came with. Only a user session may (an access token is
     * 403: it has no sessions of its own).
     */
    async listSessions(principal: Principal, page: PageRequest) {
      const user = ownSessionsOf(principal, "list");
      const open = openAt();
      return readPage(deps.cursors, `sessions:${user.tenantId}:${user.id}`, page, {
        fetch: (after, order) =>
          repo.listUserSessions(db, user.tenantId, user.id, open, page.limit, after, order),
        position: toCreationPosition,
        view: (row) => ({
          id: row.id,
          createdAt: row.created_at.toISOString(),
          lastUsedAt: row.last_used_at.toISOString(),
          expiresAt: (row.expires_at ?? row.created_at).toISOString(),
          current: row.id === principal.credentialId,
          method: row.method,
        }),
      });
    },

    /**
     * rules/contract §7: ends one open session of the calling user; its token is refused from then on.
     * Another user's session, or one unknown or already ended, is 404 and nothing ends.
     */
    async endSession(principal: Principal, sessionId: string) {
      const user = ownSessionsOf(principal, "end");
      await database.transaction(async (trx) => {
        if (!(await repo.endUserSession(trx, user.tenantId, user.id, sessionId, openAt()))) {
          throw new AppError("ERR_NOT_FOUND", "No such session.");
        }
        await audit.sessionsEnded(trx, user.tenantId, actorOf(principal), [sessionId], "ended");
      });
    },

    async revokeSession(principal: Principal) {
      const tenantId = principal.tenant.id;
      await database.transaction(async (trx) => {
        const ended = await repo.revokeCredential(
          trx,
          tenantId,
          "session",
          principal.credentialId,
          deps.clock.now(),
        );
        if (ended)
          await audit.sessionsEnded(trx, tenantId, actorOf(principal), [principal.credentialId], "sign_out");
      });
    },
  };
}
