import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Partner exchange: chunked blobs, partners, connections with immutable profile revisions,
// uploads and the outbound mailbox (deliveries). Tenant-owned tables carry tenant_id first.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE TABLE blobs (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      state text NOT NULL CHECK (state IN ('pending', 'complete')),
      content_type text NOT NULL,
      byte_count bigint NOT NULL DEFAULT 0,
      sha256 bytea,
      chunk_count integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX blobs_pending ON blobs (created_at) WHERE state = 'pending';

    CREATE TABLE blob_chunks (
      tenant_id uuid NOT NULL,
      blob_id uuid NOT NULL,
      seq integer NOT NULL,
      data bytea NOT NULL,
      PRIMARY KEY (tenant_id, blob_id, seq)
    );

    -- UNB 0020 of outbound interchanges: unique across every connection and partner.
    CREATE SEQUENCE exchange_control_refs START 1;

    CREATE TABLE exchange_partners (
      tenant_id uuid NOT NULL REFERENCES tenants (id),
      id uuid NOT NULL,
      name text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX exchange_partners_paging ON exchange_partners (tenant_id, created_at, id);

    CREATE TABLE exchange_connections (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      partner_id uuid NOT NULL,
      api_version text NOT NULL,
      status text NOT NULL CHECK (status IN ('active', 'suspended')),
      active_revision integer NOT NULL,
      outbound_counter bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, partner_id) REFERENCES exchange_partners (tenant_id, id)
    );
    CREATE INDEX exchange_connections_paging ON exchange_connections (tenant_id, created_at, id);

    CREATE TABLE exchange_profile_revisions (
      tenant_id uuid NOT NULL,
      connection_id uuid NOT NULL,
      revision integer NOT NULL,
      profile jsonb NOT NULL,
      created_by uuid,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, connection_id, revision)
    );

    CREATE TABLE exchange_uploads (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      connection_id uuid NOT NULL,
      key_hash bytea NOT NULL,
      blob_id uuid NOT NULL,
      byte_count bigint NOT NULL,
      sha256 bytea NOT NULL,
      interchange_id text,
      profile_revision integer NOT NULL,
      status text NOT NULL CHECK (status IN ('received', 'processing', 'processed', 'rejected', 'failed')),
      error text,
      principal_id uuid,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      completed_at timestamptz,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE UNIQUE INDEX exchange_uploads_key ON exchange_uploads (tenant_id, connection_id, key_hash);
    CREATE INDEX exchange_uploads_paging ON exchange_uploads (tenant_id, created_at, id);

    CREATE TABLE exchange_deliveries (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      connection_id uuid NOT NULL,
      upload_id uuid NOT NULL,
      position bigint NOT NULL,
      message_type text NOT NULL,
      interchange_id text NOT NULL,
      inbound_interchange_id text,
      message_reference text NOT NULL,
      blob_id uuid NOT NULL,
      payload_size bigint NOT NULL,
      payload_sha256 bytea NOT NULL,
      status text NOT NULL CHECK (status IN ('ready', 'claimed', 'acknowledged', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      due_at timestamptz NOT NULL,
      lease_expires_at timestamptz,
      claim_token_hash bytea,
      verified_attempt integer,
      receipt_id uuid,
      acknowledged_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE UNIQUE INDEX exchange_deliveries_position ON exchange_deliveries (tenant_id, connection_id, position);
    CREATE INDEX exchange_deliveries_due ON exchange_deliveries (tenant_id, connection_id, position)
      WHERE status = 'ready';
    CREATE INDEX exchange_deliveries_leased ON exchange_deliveries (tenant_id, connection_id, lease_expires_at)
      WHERE status = 'claimed';
    CREATE INDEX exchange_deliveries_paging ON exchange_deliveries (tenant_id, created_at, id);
    CREATE INDEX exchange_deliveries_by_upload ON exchange_deliveries (tenant_id, upload_id, position);
  `,
  );
}
