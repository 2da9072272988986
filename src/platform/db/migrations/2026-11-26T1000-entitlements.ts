import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Entitlements (area C). Sequences come from a counter row per (tenant, app) stream that every
// writing transaction locks, so sequence order is commit order (never a database sequence).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE TABLE entitlement_tenants (
      tenant_id uuid PRIMARY KEY,
      created_at timestamptz NOT NULL
    );

    CREATE TABLE entitlement_apps (
      tenant_id uuid NOT NULL,
      id text NOT NULL,
      name text NOT NULL,
      capabilities text[] NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX entitlement_apps_paging ON entitlement_apps (tenant_id, created_at, id);

    CREATE TABLE entitlement_streams (
      tenant_id uuid NOT NULL,
      app_id text NOT NULL,
      last_sequence bigint NOT NULL DEFAULT 0,
      pruned_through bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (tenant_id, app_id)
    );

    CREATE TABLE entitlements (
      tenant_id uuid NOT NULL,
      app_id text NOT NULL,
      actor_id text NOT NULL,
      status text NOT NULL CHECK (status IN ('active', 'suspended', 'revoked')),
      plan text NOT NULL,
      capabilities text[] NOT NULL,
      valid_from timestamptz NOT NULL,
      valid_until timestamptz,
      sequence bigint NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, app_id, actor_id)
    );

    CREATE TABLE entitlement_changes (
      tenant_id uuid NOT NULL,
      app_id text NOT NULL,
      sequence bigint NOT NULL,
      event_id uuid NOT NULL,
      type text NOT NULL,
      actor_id text NOT NULL,
      entitlement jsonb,
      previous jsonb,
      occurred_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, app_id, sequence)
    );
    CREATE INDEX entitlement_changes_by_actor ON entitlement_changes (tenant_id, app_id, actor_id, sequence);
    CREATE INDEX entitlement_changes_by_time ON entitlement_changes (occurred_at);

    CREATE TABLE service_bindings (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      app_id text NOT NULL,
      audience text NOT NULL,
      required_capabilities text[] NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX service_bindings_paging ON service_bindings (tenant_id, created_at, id);

    CREATE TABLE service_credentials (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      binding_id uuid NOT NULL,
      secret text NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz
    );
    CREATE INDEX service_credentials_by_binding ON service_credentials (tenant_id, binding_id);

    CREATE TABLE service_nonces (
      credential_id uuid NOT NULL,
      nonce text NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (credential_id, nonce)
    );
    CREATE INDEX service_nonces_expiry ON service_nonces (expires_at);

    CREATE TABLE entitlement_signing_keys (
      tenant_id uuid NOT NULL,
      kid text NOT NULL,
      public_jwk jsonb NOT NULL,
      private_key text NOT NULL,
      created_at timestamptz NOT NULL,
      activates_at timestamptz,
      retires_at timestamptz,
      expires_at timestamptz,
      withdrawn_at timestamptz,
      PRIMARY KEY (tenant_id, kid)
    );
    CREATE UNIQUE INDEX entitlement_signing_keys_kid ON entitlement_signing_keys (kid);

    CREATE TABLE webhook_subscriptions (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      binding_id uuid NOT NULL,
      url text NOT NULL,
      secret text NOT NULL,
      enabled boolean NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX webhook_subscriptions_paging ON webhook_subscriptions (tenant_id, created_at, id);
  `,
  );
}
