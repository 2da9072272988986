import type { HanseModule, ModuleDeps } from "../module.js";
import { crudActions } from "../../platform/http/entrypoints.js";
import { identityRoutes } from "./identity.routes.js";
import { AccessTokenItem, CreateAccessTokenBody } from "./access-tokens/index.js";
import { CreateUserBody, UpdateUserBody, UserItem, usersPath } from "./users/index.js";
import { createIdentityService, type IdentityService } from "./identity.service.js";
import type { IdentityTables } from "./identity.tables.js";
import { sealingKey, secretKeysOf } from "../../platform/crypto/index.js";
import { createOutboundClient } from "../../platform/outbound/index.js";
import { createSso, ssoSealedColumns, ssoSettingsPath, type ConsoleSessionCookie } from "./sso/index.js";

export type { IdentityService } from "./identity.service.js";
export type { IdentityTables, TenantsTable } from "./identity.tables.js";
export { identityTables } from "./identity.tables.js";
export { systemTenantSlug } from "./identity.service.js";
export { newPasswordProblem } from "./users/index.js";
export { tenantAdmitsCredentialsSql } from "./credentials.repository.js";
export type { ConsoleSessionCookie } from "./sso/index.js";

export interface IdentityModuleOptions {
  /** How a single sign-on's callback sets the console's session cookie (the console owns its format). */
  consoleCookie: ConsoleSessionCookie;
}

export function createIdentityModule(
  deps: ModuleDeps,
  options: IdentityModuleOptions,
): HanseModule & { service: IdentityService } {
  const identityDeps = {
    database: deps.database,
    clock: deps.clock,
    newId: deps.newId,
    cursors: deps.cursors,
    sessionTtlSeconds: deps.config.HANSE_SESSION_TTL_SECONDS,
    sessionIdleSeconds: deps.config.HANSE_SESSION_IDLE_SECONDS,
    invitationTtlSeconds: deps.config.HANSE_INVITATION_TTL_SECONDS,
    passwordResetTtlSeconds: deps.config.HANSE_PASSWORD_RESET_TTL_SECONDS,
    signInAccountFailures: deps.config.HANSE_SIGN_IN_ACCOUNT_FAILURES,
  };
  const service = createIdentityService(identityDeps);
  // The issuers' endpoints go through the outbound guard of webhooks, with a setting of their own.
  const ssoAllowInsecure = deps.config.HANSE_SSO_ALLOW_INSECURE === "1";
  const ssoOutbound = createOutboundClient({
    allowPrivate: ssoAllowInsecure,
    allowHttp: ssoAllowInsecure,
    caFile: deps.config.HANSE_WEBHOOK_CA_FILE,
  });
  const ssoSealingKey = sealingKey(secretKeysOf(deps.config), deps.database.db, "sso-client-secrets");
  const sso = createSso(
    {
      ...identityDeps,
      ssoOutbound,
      ssoAllowInsecure,
      publicUrl: deps.config.HANSE_PUBLIC_URL,
      ssoSealingKey,
    },
    deps.database.as<IdentityTables>(),
  );
  const href = "/api/v1/admin/access-tokens";
  return {
    name: "identity",
    service,
    routes: identityRoutes(service, sso, options.consoleCookie),
    sealedColumns: ssoSealedColumns(deps.database.db, ssoSealingKey),
    close: () => ssoOutbound.close(),
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
          "A tenant's users (rules/contract §7): invitations, roles (owner, admin, viewer) and deactivation; " +
          "users:read to read, users:write to change.",
      },
      {
        name: "sso",
        description:
          "Single sign-on with OpenID Connect (rules/contract §7): a tenant's issuer and client (users:read to " +
          "read, users:write to change), and the browser's sign-in through it.",
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
            id: "reissueInvitation",
            method: "POST",
            href: `${usersPath}/{id}/invitation`,
            anyScopes: ["users:write"],
          },
          {
            id: "passwordReset",
            method: "POST",
            href: `${usersPath}/{id}/password-reset`,
            anyScopes: ["users:write"],
          },
        ]),
        schemas: { create: CreateUserBody, update: UpdateUserBody, item: UserItem },
      },
      {
        // The tenant's one single sign-on setting (rules/contract §7): a resource, not a collection.
        id: "admin.sso",
        kind: "system-resource",
        href: ssoSettingsPath,
        tenantTypes: ["system", "customer"],
        actions: [
          { id: "read", method: "GET", href: ssoSettingsPath, anyScopes: ["users:read"] },
          { id: "set", method: "PUT", href: ssoSettingsPath, anyScopes: ["users:write"] },
          { id: "delete", method: "DELETE", href: ssoSettingsPath, anyScopes: ["users:write"] },
        ],
      },
    ],
  };
}
