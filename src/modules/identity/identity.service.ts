import { createAccessTokens } from "./access-tokens/index.js";
import { createAuthenticator } from "./authenticator.js";
import type { IdentityDeps } from "./identity.deps.js";
import type { IdentityTables } from "./identity.tables.js";
import { createPartnerKeys } from "./partner-keys/index.js";
import { createSessions } from "./sessions/index.js";
import { createTenancy } from "./tenancy.service.js";
import { createUsers } from "./users/index.js";

export type { Executor, IdentityDeps } from "./identity.deps.js";

export { bootstrapAdminScopes, systemTenantSlug } from "./tenancy.service.js";
export type { AccessTokenView } from "./access-tokens/index.js";

/**
 * Identity, one service by concept: the authenticator of every request, sessions
 * (sessions.service), access tokens (access-tokens.service), the exchange's partner API keys
 * (partner-keys.service), and tenants, users and the first start (tenancy.service).
 */
export function createIdentityService(deps: IdentityDeps) {
  const database = deps.database.as<IdentityTables>();
  return {
    authenticator: createAuthenticator({
      database,
      clock: deps.clock,
      sessionIdleSeconds: deps.sessionIdleSeconds,
    }),
    ...createSessions(deps, database),
    ...createAccessTokens(deps, database),
    ...createPartnerKeys(deps, database),
    ...createUsers(deps, database),
    ...createTenancy(deps, database),
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
