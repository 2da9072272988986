import type { Principal } from "../../../platform/auth/index.js";
import { unusablePasswordHash, verifyPassword } from "../../../platform/crypto/index.js";
import type { Database } from "../../../platform/db/database.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { hashSecret, newSessionToken } from "../credential-format.js";
import * as repo from "../credentials.repository.js";
import * as users from "../users/index.js";
import type { IdentityDeps } from "../identity.deps.js";
import type { IdentityTables } from "../identity.tables.js";
import { createSignInThrottle, signInLimits } from "./sign-in-throttle.js";

/** Sign-in with tenant, e-mail and password for a session token, and sign-out. */
export function createSessions(deps: IdentityDeps, database: Database<IdentityTables>) {
  const signInThrottle = createSignInThrottle(
    deps.clock,
    { ...signInLimits, perAccount: { ...signInLimits.perAccount, burst: deps.signInAccountFailures } },
    database,
  );
  const { db } = database;

  return {
    /**
     * CONTRACT §2a: any wrong part is the same 401, and an unknown user costs the same time.
     * Failed logins are throttled before the password hash is computed (sign-in-throttle.ts):
     * per account and client address, so that an attacker's address cannot lock the account
     * out, and per account with a ceiling that slows guessing without refusing the right password.
     */
    async createSession(input: { tenant: string; email: string; password: string }, clientAddress = "") {
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
        throw new AppError("ERR_UNAUTHENTICATED", "The tenant, e-mail or password is wrong.");
      }
      const id = deps.newId();
      const token = newSessionToken(id);
      const now = deps.clock.now();
      const scopes = [...users.scopesOfRole(user.role, tenant.type)];
      const expiresAt = new Date(now.getTime() + deps.sessionTtlSeconds * 1000);
      await repo.insertCredential(db, {
        id,
        tenant_id: tenant.id,
        kind: "session",
        principal_id: user.id,
        name: user.email,
        secret_hash: hashSecret(token),
        // As issued, for the record; a session's scopes are read from the role on each request.
        scopes,
        connection_ids: null,
        created_by: user.id,
        created_at: now,
        expires_at: expiresAt,
        revoked_at: null,
      });
      return {
        id,
        token,
        expiresAt: expiresAt.toISOString(),
        scopes,
        createdAt: now.toISOString(),
      };
    },

    async revokeSession(principal: Principal) {
      await repo.revokeCredential(
        db,
        principal.tenant.id,
        "session",
        principal.credentialId,
        deps.clock.now(),
      );
    },
  };
}
