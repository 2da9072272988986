import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 34 item 4 (rules/contract §8): operator notifications on the webhook delivery machinery. A
// subscription without a binding is a tenant's operator subscription: it names the event types it
// receives (`event_types`, NULL for a binding's subscription, whose app is then set). An operator
// delivery carries its event's type and subject (ids only) instead of an entitlement change's app,
// sequence and actor. The partial index finds a tenant's enabled operator subscriptions when an
// event is raised.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE webhook_subscriptions
      ALTER COLUMN binding_id DROP NOT NULL,
      ALTER COLUMN app_id DROP NOT NULL,
      ADD COLUMN event_types text[];
    ALTER TABLE webhook_subscriptions ADD CONSTRAINT webhook_subscriptions_kind
      CHECK ((binding_id IS NULL AND app_id IS NULL AND event_types IS NOT NULL)
        OR (binding_id IS NOT NULL AND app_id IS NOT NULL AND event_types IS NULL));
    CREATE INDEX webhook_subscriptions_operator ON webhook_subscriptions (tenant_id)
      WHERE enabled AND event_types IS NOT NULL;
    ALTER TABLE webhook_deliveries
      ALTER COLUMN app_id DROP NOT NULL,
      ALTER COLUMN sequence DROP NOT NULL,
      ALTER COLUMN actor_id DROP NOT NULL,
      ADD COLUMN event_type text,
      ADD COLUMN subject jsonb;
    ALTER TABLE webhook_attempts ALTER COLUMN sequence DROP NOT NULL;
  `,
  );
}
