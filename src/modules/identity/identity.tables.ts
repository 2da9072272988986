import type { ColumnType } from "kysely";
import type { Scope, TenantType } from "@hanse/client/protocol";
import { tablesOf } from "../../platform/db/tables.js";

export interface TenantsTable {
  id: string;
  name: string;
  slug: string;
  type: TenantType;
  /** `suspended`: offboarded for now (rules/contract §7): every credential of it refused, its jobs wait. */
  status: "provisioning" | "active" | "failed" | "suspended";
  created_at: Date;
  updated_at: Date;
}

export interface UsersTable {
  tenant_id: string;
  id: string;
  email: string;
  name: string;
  password_hash: string;
  /** Written for older releases; a user's scopes come from `role` (rules/contract §7). */
  scopes: Scope[];
  role: "owner" | "admin" | "viewer";
  status: "invited" | "active" | "deactivated";
  created_at: Date;
  disabled_at: Date | null;
  last_sign_in_at: Date | null;
  /** When the user first became active; null while it never accepted its invitation. */
  activated_at: Date | null;
}

/** An invitation to become a tenant's user; its token is stored as a hash and used once. */
export interface UserInvitationsTable {
  id: string;
  tenant_id: string;
  user_id: string;
  secret_hash: ColumnType<Uint8Array, Buffer, Buffer>;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

/** A password reset issued by an administrator (rules/contract §7); token stored as a hash, used once. */
export interface PasswordResetsTable {
  id: string;
  tenant_id: string;
  user_id: string;
  secret_hash: ColumnType<Uint8Array, Buffer, Buffer>;
  created_by: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export type CredentialKind = "session" | "access_token" | "api_key";

/** How a session was opened (rules/contract §7); other credentials keep the default. */
export type SessionMethod = "password" | "sso" | "invitation" | "password-reset";

export interface CredentialsTable {
  id: string;
  tenant_id: string;
  kind: CredentialKind;
  principal_id: string;
  name: string;
  secret_hash: ColumnType<Uint8Array, Buffer, Buffer>;
  scopes: Scope[];
  connection_ids: string[] | null;
  created_by: string | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  /** Sessions: how it was opened (default `password`). */
  method: ColumnType<SessionMethod, SessionMethod | undefined, SessionMethod>;
  /** Sessions: when it was last used, kept to the minute (authenticator.ts); null for other kinds. */
  last_used_at: ColumnType<Date | null, Date | null | undefined, Date>;
}

/** A tenant's OpenID Connect settings (rules/contract §7); the client secret sealed. */
export interface SsoSettingsTable {
  tenant_id: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  /** Null when the issuer's discovery document named none, or the setting predates the column. */
  userinfo_endpoint: string | null;
  token_endpoint_auth_method: "client_secret_basic" | "client_secret_post";
  signing_algorithms: string[];
  auto_create_role: "owner" | "admin" | "viewer" | null;
  auto_create_domains: string[] | null;
  created_at: Date;
  updated_at: Date;
}

/** A single sign-on under way: its state (stored as a hash, used once), nonce and PKCE verifier. */
export interface SsoStatesTable {
  id: string;
  tenant_id: string;
  secret_hash: ColumnType<Uint8Array, Buffer, Buffer>;
  nonce: string;
  code_verifier: string;
  return_to: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface IdentityTables {
  tenants: TenantsTable;
  users: UsersTable;
  credentials: CredentialsTable;
  user_invitations: UserInvitationsTable;
  password_resets: PasswordResetsTable;
  sso_settings: SsoSettingsTable;
  sso_states: SsoStatesTable;
}

/** A transaction over more tables seen as one over the identity module's own (`tablesOf`). */
export const identityTables = tablesOf<IdentityTables>();

declare module "../../platform/db/tables.js" {
  // One part's tables in the whole database (`HanseTables`, declaration merging).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HanseTables extends IdentityTables {}
}
