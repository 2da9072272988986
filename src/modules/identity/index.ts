import type { HanseModule, ModuleDeps } from "../module.js";
import { crudActions } from "../../platform/http/entrypoints.js";
import { identityRoutes } from "./identity.routes.js";
import { AccessTokenItem, CreateAccessTokenBody } from "./access-tokens/index.js";
import { CreateUserBody, UpdateUserBody, UserItem, usersPath } from "./users/index.js";
import { createIdentityService, type IdentityService } from "./identity.service.js";

export type { IdentityService } from "./identity.service.js";
export type { IdentityTables, TenantsTable } from "./identity.tables.js";
export { systemTenantSlug } from "./identity.service.js";
export { newPasswordProblem } from "./users/index.js";
export { tenantAdmitsCredentialsSql } from "./credentials.repository.js";

export function createIdentityModule(deps: ModuleDeps): HanseModule & { service: IdentityService } {
  const service = createIdentityService({
    database: deps.database,
    clock: deps.clock,
    newId: deps.newId,
    cursors: deps.cursors,
    sessionTtlSeconds: deps.config.HANSE_SESSION_TTL_SECONDS,
    sessionIdleSeconds: deps.config.HANSE_SESSION_IDLE_SECONDS,
    invitationTtlSeconds: deps.config.HANSE_INVITATION_TTL_SECONDS,
    passwordResetTtlSeconds: deps.config.HANSE_PASSWORD_RESET_TTL_SECONDS,
    signInAccountFailures: deps.config.HANSE_SIGN_IN_ACCOUNT_FAILURES,
  });
  const href = "/api/v1/admin/access-tokens";
  return {
    name: "identity",
    service,
    routes: identityRoutes(service),
    apiTags: [
      {
        name: "auth",
        description:
          "Sessions: log in with tenant slug, e-mail and password for a bearer token, log out, and ask who " +
          "a token belongs to.",
      },
      {
        name: "users",
        description:
          "A tenant's users (CONTRACT §7): invitations, roles (owner, admin, viewer) and deactivation; " +
          "users:read to read, users:write to change.",
      },
      {
        name: "access-tokens",
        description:
          "Bearer tokens for programs, with at most their creator's scopes (admin:read, admin:write).",
      },
    ],
    entrypoints: [
      {
        id: "admin.accessTokens",
        kind: "crud",
        href,
        tenantTypes: ["system", "customer"],
        actions: crudActions(href, { read: "admin:read", write: "admin:write" }, [
          { id: "revoke", method: "POST", href: `${href}/{id}/revoke`, anyScopes: ["admin:write"] },
        ]),
        schemas: { create: CreateAccessTokenBody, update: null, item: AccessTokenItem },
      },
      {
        id: "admin.users",
        kind: "crud",
        href: usersPath,
        tenantTypes: ["system", "customer"],
        actions: crudActions(usersPath, { read: "users:read", write: "users:write" }, [
          { id: "update", method: "PATCH", href: `${usersPath}/{id}`, anyScopes: ["users:write"] },
          {
            id: "passwordReset",
            method: "POST",
            href: `${usersPath}/{id}/password-reset`,
            anyScopes: ["users:write"],
          },
        ]),
        schemas: { create: CreateUserBody, update: UpdateUserBody, item: UserItem },
      },
    ],
  };
}
