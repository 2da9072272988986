import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Entitlement webhook delivery: one delivery per change and subscription, its attempts, and the
// subscription's state (disabled and why, failing since when, a secret being rotated out).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE webhook_subscriptions
      ADD COLUMN app_id text,
      ADD COLUMN disabled_reason text,
      ADD COLUMN failing_since timestamptz,
      ADD COLUMN previous_secret text,
      ADD COLUMN previous_secret_expires_at timestamptz;
    UPDATE webhook_subscriptions s SET app_id = b.app_id
      FROM service_bindings b WHERE b.tenant_id = s.tenant_id AND b.id = s.binding_id;
    ALTER TABLE webhook_subscriptions ALTER COLUMN app_id SET NOT NULL;
    CREATE INDEX webhook_subscriptions_by_app ON webhook_subscriptions (tenant_id, app_id) WHERE enabled;

    CREATE TABLE webhook_deliveries (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      subscription_id uuid NOT NULL,
      app_id text NOT NULL,
      sequence bigint NOT NULL,
      event_id uuid NOT NULL,
      actor_id text NOT NULL,
      occurred_at timestamptz NOT NULL,
      state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'cancelled')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      last_status integer,
      last_error text,
      created_at timestamptz NOT NULL,
      completed_at timestamptz,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX webhook_deliveries_by_subscription ON webhook_deliveries (tenant_id, subscription_id, created_at, id);

    CREATE TABLE webhook_attempts (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      subscription_id uuid NOT NULL,
      delivery_id uuid NOT NULL,
      sequence bigint NOT NULL,
      attempt integer NOT NULL,
      attempted_at timestamptz NOT NULL,
      status integer,
      latency_ms integer NOT NULL,
      error_class text,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX webhook_attempts_by_subscription ON webhook_attempts (tenant_id, subscription_id, attempted_at, id);
  `,
  );
}
