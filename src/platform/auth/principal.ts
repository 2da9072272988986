import type { PartnerScope, Scope, TenantType } from "../../protocol/scopes.js";

export type PrincipalKind = "user" | "access_token" | "api_key";

/** Who is calling, resolved from a credential on every request (tenant type read from the database). */
export interface Principal {
  kind: PrincipalKind;
  /** The user, access token or API key id. */
  id: string;
  name: string;
  credentialId: string;
  tenant: { id: string; slug: string; type: TenantType };
  scopes: ReadonlySet<Scope>;
  /** Partner API keys only. */
  partnerId?: string;
  /** Partner API keys only: the connections it may use; null means every connection of its partner. */
  connectionIds?: readonly string[] | null;
}

/** Resolves a bearer credential to a principal; null when unknown, revoked, expired or wrong. */
export interface Authenticator {
  authenticateBearer(token: string): Promise<Principal | null>;
}

/** What a route requires; every route declares one (deny by default). */
export type AuthRequirement =
  | { kind: "public" }
  | {
      kind: "session";
      /** The caller must hold every one of these. */
      allScopes?: readonly Scope[];
      /** The caller must hold at least one of these. */
      anyScopes?: readonly Scope[];
      /** Only the system tenant; any other tenant gets 404. */
      systemTenant?: boolean;
    }
  | { kind: "partner"; scope: PartnerScope };

export const hasAnyScope = (principal: Principal, scopes: readonly Scope[]): boolean =>
  scopes.some((scope) => principal.scopes.has(scope));

export const hasAllScopes = (principal: Principal, scopes: readonly Scope[]): boolean =>
  scopes.every((scope) => principal.scopes.has(scope));
