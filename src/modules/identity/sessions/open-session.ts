import { anonymousActor } from "../../../platform/audit/index.js";
import type { RequestOrigin } from "../../../platform/auth/index.js";
import type { TenantType } from "@hanse/client/protocol";
import { hashSecret, newSessionToken } from "../credential-format.js";
import * as repo from "../credentials.repository.js";
import { identityAudit } from "../identity.audit.js";
import type { Executor, IdentityDeps } from "../identity.deps.js";
import type { SessionMethod } from "../identity.tables.js";
import * as users from "../users/index.js";

/** A session as it is handed out once: its token is shown only here. */
export interface OpenedSession {
  id: string;
  token: string;
  expiresAt: string;
  scopes: string[];
  createdAt: string;
}

/**
 * A new session of an active user, the user's `lastSignInAt` and the `session.created` record, in
 * the caller's executor: the one way every sign-in (password, invitation, single sign-on) opens a
 * session, `method` saying which and `origin` from where.
 */
export async function openSession(
  deps: Pick<IdentityDeps, "newId" | "sessionTtlSeconds" | "clock">,
  executor: Executor,
  user: { id: string; email: string; role: users.Role },
  tenant: { id: string; type: TenantType },
  now: Date,
  opened: { method: SessionMethod; origin: RequestOrigin | undefined },
): Promise<OpenedSession> {
  const { method } = opened;
  const id = deps.newId();
  const token = newSessionToken(id);
  const scopes = [...users.scopesOfRole(user.role, tenant.type)];
  const expiresAt = new Date(now.getTime() + deps.sessionTtlSeconds * 1000);
  await repo.insertCredential(executor, {
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
    method,
    // Opening a session is its first use (idle expiry counts from here).
    last_used_at: now,
  });
  await users.updateUser(executor, tenant.id, user.id, { last_sign_in_at: now });
  await identityAudit(deps).record(
    executor,
    tenant.id,
    anonymousActor(opened.origin, user.id),
    "session.created",
    { type: "session", id },
    { data: { method } },
  );
  return { id, token, expiresAt: expiresAt.toISOString(), scopes, createdAt: now.toISOString() };
}
