import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 33 item 1 (rules/contract §7): every audit record says who acted (its kind), on what, from
// which address and in which request; `*.updated` records name the fields changed. Existing
// records keep NULL. The list filters (type, principal, target, time range, both orders) are
// served by indexes in the list's order `(occurred_at, id)`; the type index is rebuilt in it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE audit_events
       ADD COLUMN principal_kind text,
       ADD COLUMN target_type text,
       ADD COLUMN target_id text,
       ADD COLUMN source_address text,
       ADD COLUMN correlation_id text,
       ADD COLUMN changes text[];
     DROP INDEX audit_events_by_type;
     CREATE INDEX audit_events_in_order ON audit_events (tenant_id, occurred_at, id);
     CREATE INDEX audit_events_by_type ON audit_events (tenant_id, type, occurred_at, id);
     CREATE INDEX audit_events_by_principal ON audit_events (tenant_id, principal_id, occurred_at, id)
       WHERE principal_id IS NOT NULL;
     CREATE INDEX audit_events_by_target ON audit_events (tenant_id, target_id, occurred_at, id)
       WHERE target_id IS NOT NULL;`,
  );
}
