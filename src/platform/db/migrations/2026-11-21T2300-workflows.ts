import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Workflows (area D): per-tenant definitions, entities with a version for optimistic concurrency,
// transition requests (the status document) and lifecycle adapters. tenant_id leads every key.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE TABLE workflow_definitions (
      tenant_id uuid NOT NULL,
      kind text NOT NULL,
      states jsonb NOT NULL,
      initial_state text NOT NULL,
      transitions jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, kind)
    );

    CREATE TABLE workflow_entities (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      kind text NOT NULL,
      state text NOT NULL,
      version integer NOT NULL CHECK (version >= 1),
      attributes jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX workflow_entities_paging ON workflow_entities (tenant_id, created_at, id);
    CREATE INDEX workflow_entities_by_kind ON workflow_entities (tenant_id, kind, created_at, id);
    CREATE INDEX workflow_entities_by_gtin ON workflow_entities (tenant_id, kind, (attributes ->> 'gtin'));

    CREATE TABLE workflow_transition_requests (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      entity_kind text NOT NULL,
      entity_id uuid NOT NULL,
      transition text NOT NULL,
      payload jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'processing', 'succeeded', 'failed')),
      result jsonb,
      error jsonb,
      applied_version integer,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      completed_at timestamptz,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX workflow_transition_requests_by_entity ON workflow_transition_requests (tenant_id, entity_id);

    CREATE TABLE workflow_lifecycle_adapters (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      kind text NOT NULL,
      url text NOT NULL,
      secret text NOT NULL,
      timeout_ms integer NOT NULL,
      max_attempts integer NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE UNIQUE INDEX workflow_lifecycle_adapters_kind ON workflow_lifecycle_adapters (tenant_id, kind);
  `,
  );
}
