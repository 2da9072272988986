import { systemScopes, tenantAdminScopes, type Scope, type TenantType } from "@hanse/client/protocol";

/** A user's role in its tenant (rules/contract §7). */
export const roles = ["owner", "admin", "viewer"] as const;
export type Role = (typeof roles)[number];

export const isRole = (value: string): value is Role => (roles as readonly string[]).includes(value);

const ownerScopes: readonly Scope[] = tenantAdminScopes;
const adminScopes = ownerScopes.filter((s) => s !== "users:write");
const viewerScopes: readonly Scope[] = ["admin:read", "workflows:read", "users:read"];

/**
 * The role → scope table of rules/contract §7: `owner` holds every tenant scope except the partner
 * ones, `admin` the same without `users:write`, `viewer` reads. In the system tenant `owner` and
 * `admin` also hold every system-only scope, `viewer` the reading ones. Pure: no I/O.
 */
const table: Readonly<Record<TenantType, Readonly<Record<Role, readonly Scope[]>>>> = {
  customer: { owner: ownerScopes, admin: adminScopes, viewer: viewerScopes },
  system: {
    owner: [...systemScopes, ...ownerScopes],
    admin: [...systemScopes, ...adminScopes],
    viewer: ["tenants:list", "tenants:read", "system_diagnostics:read", ...viewerScopes],
  },
};

/** The scopes a user of this role holds in a tenant of this type. */
export const scopesOfRole = (role: Role, tenantType: TenantType): readonly Scope[] => table[tenantType][role];

/** Every (tenant type, role, scopes) row, for the credential check's SQL. */
export const roleScopeRows = (): { tenantType: TenantType; role: Role; scopes: readonly Scope[] }[] =>
  (Object.keys(table) as TenantType[]).flatMap((tenantType) =>
    roles.map((role) => ({ tenantType, role, scopes: table[tenantType][role] })),
  );
