import type { Scope } from "@hanse/client/protocol";
import { actorOf } from "../../../platform/audit/index.js";
import type { Principal } from "../../../platform/auth/index.js";
import { unusablePasswordHash } from "../../../platform/crypto/index.js";
import { isUniqueViolation } from "../../../platform/db/errors.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { readPage, toCreationPosition, type PageRequest } from "../../../platform/http/cursor.js";
import { hashSecret, newInvitationToken, newPasswordResetToken } from "../credential-format.js";
import * as credentials from "../credentials.repository.js";
import type { Executor, IdentityDeps } from "../identity.deps.js";
import type { IdentityTables, UsersTable } from "../identity.tables.js";
import { identityAudit } from "../identity.audit.js";
import type { Database } from "../../../platform/db/database.js";
import { scopesOfRole, type Role } from "./roles.js";
import * as users from "./users.repository.js";

export interface UserView {
  id: string;
  email: string;
  name: string;
  role: Role;
  status: UsersTable["status"];
  createdAt: string;
  lastSignInAt: string | null;
}

type UserRow = NonNullable<Awaited<ReturnType<typeof users.findUser>>>;

const toUserView = (row: UserRow): UserView => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  status: row.status,
  createdAt: row.created_at.toISOString(),
  lastSignInAt: row.last_sign_in_at ? row.last_sign_in_at.toISOString() : null,
});

const notFound = () => new AppError("ERR_NOT_FOUND", "No such user.");
const emailTaken = () =>
  new AppError("ERR_CONFLICT", "A user with this e-mail address exists in the tenant.");

/** A tenant's users (rules/contract §7): invited by an owner, managed over HTTP (admin.users). */
export function createUsers(deps: IdentityDeps, database: Database<IdentityTables>) {
  const { db } = database;
  const audit = identityAudit(deps);

  /**
   * A new invitation of `userId` (its hash stored, valid HANSE_INVITATION_TTL_SECONDS) and its
   * `user.invited` record, in the caller's transaction; the token for the answer only.
   */
  async function issueInvitation(
    trx: Executor,
    principal: Principal,
    userId: string,
    now: Date,
    data: Record<string, string | boolean>,
  ) {
    const invitationId = deps.newId();
    const token = newInvitationToken(invitationId);
    const expiresAt = new Date(now.getTime() + deps.invitationTtlSeconds * 1000);
    await users.insertInvitation(trx, {
      id: invitationId,
      tenant_id: principal.tenant.id,
      user_id: userId,
      secret_hash: hashSecret(token),
      created_at: now,
      expires_at: expiresAt,
      used_at: null,
    });
    await audit.record(
      trx,
      principal.tenant.id,
      actorOf(principal),
      "user.invited",
      { type: "user", id: userId },
      { data },
    );
    return { token, expiresAt: expiresAt.toISOString() };
  }

  return {
    /** Creates a tenant's user inside the caller's transaction (provisioning). Idempotent by e-mail. */
    async ensureUser(
      trx: Executor,
      input: { tenantId: string; email: string; name: string; passwordHash: string; scopes: Scope[] },
    ) {
      const existing = await users.findUserByEmail(trx, input.tenantId, input.email);
      if (existing) return existing.id;
      const id = deps.newId();
      const now = deps.clock.now();
      await users.insertUser(trx, {
        tenant_id: input.tenantId,
        id,
        email: input.email,
        name: input.name,
        password_hash: input.passwordHash,
        scopes: input.scopes,
        // A tenant's first administrator is its owner (rules/contract §2).
        role: "owner",
        status: "active",
        created_at: now,
        disabled_at: null,
        last_sign_in_at: null,
        activated_at: now,
      });
      return id;
    },

    async listUsers(principal: Principal, page: PageRequest) {
      const tenantId = principal.tenant.id;
      return readPage(deps.cursors, `users:${tenantId}`, page, {
        fetch: (after, order) => users.listUsers(db, tenantId, page.limit, after, order),
        position: toCreationPosition,
        view: toUserView,
      });
    },

    async getUser(principal: Principal, id: string): Promise<UserView> {
      const row = await users.findUser(db, principal.tenant.id, id);
      if (!row) throw notFound();
      return toUserView(row);
    },

    /**
     * rules/contract §7: an invited user and its invitation, whose token is in this answer only (stored
     * as its SHA-256 hash, like every bearer secret). An e-mail address already used in the
     * tenant, in any case, is 409 (the unique index on `lower(email)` decides, also under races).
     */
    async inviteUser(principal: Principal, input: { email: string; name?: string | undefined; role: Role }) {
      const tenantId = principal.tenant.id;
      const now = deps.clock.now();
      const id = deps.newId();
      const row: UsersTable = {
        tenant_id: tenantId,
        id,
        email: input.email,
        name: input.name ?? input.email,
        password_hash: unusablePasswordHash,
        scopes: [...scopesOfRole(input.role, principal.tenant.type)],
        role: input.role,
        status: "invited",
        created_at: now,
        disabled_at: null,
        last_sign_in_at: null,
        activated_at: null,
      };
      try {
        const invitation = await database.transaction(async (trx) => {
          if (await users.findUserByEmail(trx, tenantId, input.email)) throw emailTaken();
          await users.insertUser(trx, row);
          return issueInvitation(trx, principal, id, now, { role: input.role });
        });
        return { ...toUserView(row), invitation };
      } catch (error) {
        if (isUniqueViolation(error)) throw emailTaken();
        throw error;
      }
    },

    /**
     * A fresh invitation for a user that is still `invited` (its invitation expired, or was lost):
     * the user's earlier invitations stop working in the same transaction, the new token is in
     * this answer only (stored as its hash). The invitations are withdrawn before the user is
     * read, in the order accepting one takes (invitation, then user): an acceptance that got in
     * first has made the user active (409), one that comes after finds its invitation expired.
     * An active or deactivated user is 409; an unknown id, or another tenant's, 404.
     */
    async reissueInvitation(principal: Principal, id: string) {
      const tenantId = principal.tenant.id;
      const now = deps.clock.now();
      return database.transaction(async (trx) => {
        await users.withdrawInvitations(trx, tenantId, id, now);
        const user = await users.findUser(trx, tenantId, id);
        if (!user) throw notFound();
        if (user.status !== "invited") {
          throw new AppError(
            "ERR_CONFLICT",
            user.status === "active"
              ? "This user has accepted its invitation already."
              : "This user is deactivated; its invitation cannot be renewed.",
          );
        }
        return issueInvitation(trx, principal, id, now, { role: user.role, reissued: true });
      });
    },

    /**
     * rules/contract §7: a one-use password reset for an active user of the tenant, valid
     * HANSE_PASSWORD_RESET_TTL_SECONDS; its token is in this answer only (stored as its hash). An
     * invited user has no password to reset (it accepts its invitation) and a deactivated one
     * cannot sign in: both 409. Earlier resets of the user stay usable until they expire.
     */
    async issuePasswordReset(principal: Principal, id: string) {
      const tenantId = principal.tenant.id;
      const user = await users.findUser(db, tenantId, id);
      if (!user) throw notFound();
      if (user.status !== "active") {
        throw new AppError(
          "ERR_CONFLICT",
          user.status === "invited"
            ? "This user has not accepted its invitation; it sets its password by accepting one."
            : "This user is deactivated; reactivate it first.",
        );
      }
      const now = deps.clock.now();
      const resetId = deps.newId();
      const token = newPasswordResetToken(resetId);
      const expiresAt = new Date(now.getTime() + deps.passwordResetTtlSeconds * 1000);
      await database.transaction(async (trx) => {
        await users.insertPasswordReset(trx, {
          id: resetId,
          tenant_id: tenantId,
          user_id: id,
          secret_hash: hashSecret(token),
          created_by: principal.id,
          created_at: now,
          expires_at: expiresAt,
          used_at: null,
        });
        await audit.record(trx, tenantId, actorOf(principal), "user.password_reset_issued", {
          type: "user",
          id,
        });
      });
      return { token, expiresAt: expiresAt.toISOString() };
    },

    /**
     * rules/contract §7: a user's name, role or status. Deactivating ends the user's sessions in the
     * same transaction (reactivating does not bring them back). A change that would leave the
     * tenant without an active owner is 409: the active owners are locked first (in id order),
     * so two owners demoting each other at once cannot both succeed.
     */
    async updateUser(
      principal: Principal,
      id: string,
      patch: {
        name?: string | undefined;
        role?: Role | undefined;
        status?: "active" | "deactivated" | undefined;
      },
    ): Promise<UserView> {
      const tenantId = principal.tenant.id;
      return database.transaction(async (trx) => {
        const owners = await users.lockActiveOwners(trx, tenantId);
        const user = await users.lockUser(trx, tenantId, id);
        if (!user) throw notFound();
        const role = patch.role ?? user.role;
        const status = patch.status ?? user.status;
        if (patch.status === "active" && user.status !== "active" && !user.activated_at) {
          throw new AppError(
            "ERR_CONFLICT",
            "This user never accepted its invitation; it becomes active by accepting one.",
          );
        }
        const activeOwnerBefore = user.role === "owner" && user.status === "active";
        const activeOwnerAfter = role === "owner" && status === "active";
        if (activeOwnerBefore && !activeOwnerAfter && owners.every((owner) => owner === id)) {
          throw new AppError("ERR_CONFLICT", "The tenant would be left without an active owner.");
        }
        const now = deps.clock.now();
        const name = patch.name ?? user.name;
        await users.updateUser(trx, tenantId, id, {
          name,
          role,
          status,
          scopes: [...scopesOfRole(role, principal.tenant.type)],
        });
        const actor = actorOf(principal);
        const changes = [
          ...(name !== user.name ? ["name"] : []),
          ...(role !== user.role ? ["role"] : []),
          ...(status !== user.status ? ["status"] : []),
        ];
        // A PATCH that changes nothing is no act: no record.
        if (changes.length > 0) {
          await audit.record(trx, tenantId, actor, "user.updated", { type: "user", id }, { changes });
        }
        if (status === "deactivated" && user.status !== "deactivated") {
          const ended = await credentials.revokeUserSessions(trx, tenantId, id, now);
          await audit.sessionsEnded(trx, tenantId, actor, ended, "deactivated");
        }
        return toUserView({ ...user, name, role, status });
      });
    },
  };
}
