import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 33 item 4 (rules/contract §7, Offboarding): a tenant can be `suspended` (and resumed), a service
// binding revoked (`revoked_at`: every credential of it refused), a webhook subscription deleted
// (`deleted_at`: kept with its attempts, no delivery of it starts). A suspended tenant's jobs wait:
// the queue's claim skips the tenants listed in `job_tenant_pauses` until they are resumed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE tenants DROP CONSTRAINT tenants_status_check;
     ALTER TABLE tenants ADD CONSTRAINT tenants_status_check
       CHECK (status IN ('provisioning', 'active', 'failed', 'suspended'));
     ALTER TABLE service_bindings ADD COLUMN revoked_at timestamptz;
     ALTER TABLE webhook_subscriptions ADD COLUMN deleted_at timestamptz;
     CREATE TABLE job_tenant_pauses (tenant_id uuid PRIMARY KEY, paused_at timestamptz NOT NULL);`,
  );
}
