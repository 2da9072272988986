import type { Scope } from "../../../protocol/scopes.js";
import type { Executor, IdentityDeps } from "../identity.deps.js";
import * as users from "./users.repository.js";

/** A tenant's users. */
export function createUsers(deps: IdentityDeps) {
  return {
    /** Creates a tenant's user inside the caller's transaction (provisioning). Idempotent by e-mail. */
    async ensureUser(
      trx: Executor,
      input: { tenantId: string; email: string; name: string; passwordHash: string; scopes: Scope[] },
    ) {
      const existing = await users.findUserByEmail(trx, input.tenantId, input.email);
      if (existing) return existing.id;
      const id = deps.newId();
      await users.insertUser(trx, {
        tenant_id: input.tenantId,
        id,
        email: input.email,
        name: input.name,
        password_hash: input.passwordHash,
        scopes: input.scopes,
        // A tenant's first administrator is its owner (CONTRACT §2).
        role: "owner",
        status: "active",
        created_at: deps.clock.now(),
        disabled_at: null,
      });
      return id;
    },
  };
}
