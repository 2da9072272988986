/** Scopes of rules/contract §2. */
export const systemScopes = [
  "tenants:list",
  "tenants:read",
  "tenants:create",
  "tenants:write",
  "system_diagnostics:read",
] as const;

export const tenantAdminScopes = [
  "admin:read",
  "admin:write",
  "workflows:transition",
  "workflows:read",
  "users:read",
  "users:write",
] as const;

export const partnerScopes = [
  "b2b_exchange_partner_inbox:create",
  "b2b_exchange_partner_mailbox:list",
  "b2b_exchange_partner_mailbox:claim",
  "b2b_exchange_partner_mailbox:payload_read",
  "b2b_exchange_partner_mailbox:acknowledge",
] as const;

export type SystemScope = (typeof systemScopes)[number];
export type TenantAdminScope = (typeof tenantAdminScopes)[number];
export type PartnerScope = (typeof partnerScopes)[number];
export type Scope = SystemScope | TenantAdminScope | PartnerScope;

export type TenantType = "system" | "customer";

/** Scopes a user session or access token of a tenant of this type may hold. */
export const sessionScopesFor = (type: TenantType): readonly Scope[] =>
  type === "system" ? [...systemScopes, ...tenantAdminScopes] : tenantAdminScopes;

export const allScopes: readonly Scope[] = [...systemScopes, ...tenantAdminScopes, ...partnerScopes];

export const isScope = (value: string): value is Scope => (allScopes as readonly string[]).includes(value);
