import { systemScopes, tenantAdminScopes, type Scope, type TenantType } from "../../../protocol/scopes.js";

/** A user's role in its tenant (CONTRACT §7). */
export const roles = ["owner", "admin", "viewer"] as const;
export type Role = (typeof roles)[number];

export const isRole = (value: string): value is Role => (roles as readonly string[]).includes(value);

const ownerTenantScopes: readonly Scope[] = tenantAdminScopes;
const systemOnlyScopes: readonly Scope[] = systemScopes;

/**
 * The role → scope table of CONTRACT §7: `owner` holds every tenant scope except the partner
 * ones, `admin` the same without `users:write`, `viewer` reads. In the system tenant `owner` and
 * `admin` also hold every system-only scope, `viewer` the reading ones. Pure: no I/O.
 */
const table: Readonly<Record<TenantType, Readonly<Record<Role, readonly Scope[]>>>> = {
  customer: {
    owner: ownerTenantScopes,
    admin: ownerTenantScopes.filter((s) => s !== "users:write"),
    viewer: ["admin:read", "workflows:read", "users:read"],
  },
  system: {
    owner: [...systemOnlyScopes, ...ownerTenantScopes],
    admin: [...systemOnlyScopes, ...ownerTenantScopes.filter((s) => s !== "users:write")],
    viewer: [
      "tenants:list",
      "tenants:read",
      "system_diagnostics:read",
      "admin:read",
      "workflows:read",
      "users:read",
    ],
  },
};

/** The scopes a user of this role holds in a tenant of this type. */
export const scopesOfRole = (role: Role, tenantType: TenantType): readonly Scope[] => table[tenantType][role];

/** Every (tenant type, role, scopes) row, for the credential check's SQL. */
export const roleScopeRows = (): { tenantType: TenantType; role: Role; scopes: readonly Scope[] }[] =>
  (Object.keys(table) as TenantType[]).flatMap((tenantType) =>
    roles.map((role) => ({ tenantType, role, scopes: table[tenantType][role] })),
  );
