import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 22's throughput: webhook deliveries are sent in batches by one job per subscription.
// - jobs.coalesce_key: an enqueue with a key that a queued job holds merges into that job; only
//   queued jobs hold it (a retried job gives it up), so a running job never swallows a wake-up.
// - webhook_deliveries.lease_until: a batch's deliveries are leased while their POSTs run; a
//   killed worker's deliveries are due again when the lease ends.
// - The per-delivery jobs of the earlier design are replaced by one job per subscription that
//   has pending deliveries.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE jobs ADD COLUMN coalesce_key text;
    CREATE UNIQUE INDEX jobs_coalesce_key_queued ON jobs (coalesce_key) WHERE state = 'queued';

    ALTER TABLE webhook_deliveries ADD COLUMN lease_until timestamptz;
    CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (tenant_id, subscription_id, sequence)
      WHERE state = 'pending';

    DELETE FROM jobs WHERE name = 'entitlements.webhook-delivery' AND state IN ('queued', 'running');
    INSERT INTO jobs (id, tenant_id, name, key, coalesce_key, payload, state, attempts, max_attempts,
      run_at, created_at, updated_at)
    SELECT gen_random_uuid(), tenant_id, 'entitlements.deliver-webhooks', NULL,
      'webhooks:' || tenant_id || ':' || subscription_id,
      jsonb_build_object('tenantId', tenant_id, 'subscriptionId', subscription_id), 'queued', 0, 10,
      now(), now(), now()
    FROM (SELECT DISTINCT tenant_id, subscription_id FROM webhook_deliveries WHERE state = 'pending') AS p;
  `,
  );
}
