import type { HanseModule, ModuleDeps } from "../module.js";
import { crudActions } from "../../platform/http/entrypoints.js";
import { identityRoutes } from "./identity.routes.js";
import { AccessTokenItem, CreateAccessTokenBody } from "./access-tokens/index.js";
import { createIdentityService, type IdentityService } from "./identity.service.js";

export type { IdentityService } from "./identity.service.js";
export type { IdentityTables, TenantsTable } from "./identity.tables.js";
export { systemTenantSlug } from "./identity.service.js";

export function createIdentityModule(deps: ModuleDeps): HanseModule & { service: IdentityService } {
  const service = createIdentityService({
    database: deps.database,
    clock: deps.clock,
    newId: deps.newId,
    cursors: deps.cursors,
    sessionTtlSeconds: deps.config.HANSE_SESSION_TTL_SECONDS,
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
    ],
  };
}
