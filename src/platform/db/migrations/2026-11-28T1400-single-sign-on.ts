import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 32 step 7 (rules/contract §7): a tenant's OpenID Connect settings (at most one issuer per
// tenant; the client secret sealed like the other secrets, the issuer's endpoints as its
// discovery document named them when the setting was saved) and the sign-ins under way: a
// state is looked up by the id its value carries, compared by hash, used once and expires.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `CREATE TABLE sso_settings (
       tenant_id uuid PRIMARY KEY REFERENCES tenants (id),
       issuer text NOT NULL, client_id text NOT NULL,
       -- Sealed with HANSE_SECRET_KEY (platform/crypto), never returned.
       client_secret text NOT NULL,
       authorization_endpoint text NOT NULL, token_endpoint text NOT NULL, jwks_uri text NOT NULL,
       token_endpoint_auth_method text NOT NULL, signing_algorithms text[] NOT NULL,
       -- Users created on their first sign-in: their role and the e-mail domains admitted; null: none.
       auto_create_role text, auto_create_domains text[],
       created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
     );
     CREATE TABLE sso_states (
       id uuid PRIMARY KEY, tenant_id uuid NOT NULL REFERENCES tenants (id), secret_hash bytea NOT NULL,
       nonce text NOT NULL, code_verifier text NOT NULL, return_to text NOT NULL,
       created_at timestamptz NOT NULL, expires_at timestamptz NOT NULL, used_at timestamptz
     );
     CREATE INDEX sso_states_by_expiry ON sso_states (expires_at);`,
  );
}
