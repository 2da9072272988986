import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Foundation schema: jobs, instance settings, tenants, users, credentials, idempotency, audit,
// provisioning. Tenant-owned tables carry tenant_id first in their keys (docs/architecture.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE TABLE instance_settings (
      name text PRIMARY KEY,
      value text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE jobs (
      id uuid PRIMARY KEY,
      tenant_id uuid,
      name text NOT NULL,
      key text,
      payload jsonb NOT NULL,
      state text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'dead')),
      attempts integer NOT NULL DEFAULT 0,
      max_attempts integer NOT NULL,
      run_at timestamptz NOT NULL,
      locked_until timestamptz,
      locked_by text,
      last_error text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      completed_at timestamptz
    );
    CREATE UNIQUE INDEX jobs_key_unique ON jobs (key) WHERE key IS NOT NULL;
    CREATE INDEX jobs_due ON jobs (run_at) WHERE state = 'queued';
    CREATE INDEX jobs_leased ON jobs (locked_until) WHERE state = 'running';

    CREATE TABLE tenants (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      slug text NOT NULL,
      type text NOT NULL CHECK (type IN ('system', 'customer')),
      status text NOT NULL CHECK (status IN ('provisioning', 'active', 'failed')),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX tenants_slug_unique ON tenants (slug);
    CREATE UNIQUE INDEX tenants_one_system ON tenants ((true)) WHERE type = 'system';
    CREATE INDEX tenants_paging ON tenants (created_at, id);

    CREATE TABLE users (
      tenant_id uuid NOT NULL REFERENCES tenants (id),
      id uuid NOT NULL,
      email text NOT NULL,
      name text NOT NULL,
      password_hash text NOT NULL,
      scopes text[] NOT NULL,
      created_at timestamptz NOT NULL,
      disabled_at timestamptz,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE UNIQUE INDEX users_email_unique ON users (tenant_id, lower(email));

    -- Sessions, access tokens and partner API keys: looked up by id, secret compared by hash.
    CREATE TABLE credentials (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants (id),
      kind text NOT NULL CHECK (kind IN ('session', 'access_token', 'api_key')),
      principal_id uuid NOT NULL,
      name text NOT NULL,
      secret_hash bytea NOT NULL,
      scopes text[] NOT NULL,
      connection_ids uuid[],
      created_by uuid,
      created_at timestamptz NOT NULL,
      expires_at timestamptz,
      revoked_at timestamptz
    );
    CREATE INDEX credentials_by_tenant ON credentials (tenant_id, kind, created_at, id);

    CREATE TABLE idempotency_records (
      tenant_id uuid NOT NULL,
      endpoint text NOT NULL,
      key_hash bytea NOT NULL,
      fingerprint bytea NOT NULL,
      status_code integer NOT NULL,
      response_body text NOT NULL,
      response_headers jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, endpoint, key_hash)
    );

    CREATE TABLE tenant_provisioning (
      tenant_id uuid PRIMARY KEY REFERENCES tenants (id),
      state text NOT NULL CHECK (state IN ('pending', 'running', 'succeeded', 'failed')),
      steps jsonb NOT NULL,
      input jsonb NOT NULL,
      error jsonb,
      started_at timestamptz,
      completed_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );

    CREATE TABLE audit_events (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      type text NOT NULL,
      occurred_at timestamptz NOT NULL,
      principal_id uuid,
      connection_id uuid,
      upload_id uuid,
      delivery_attempt_id uuid,
      byte_count bigint,
      outcome text,
      data jsonb NOT NULL DEFAULT '{}',
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX audit_events_by_type ON audit_events (tenant_id, type, id);
  `,
  );
}
