import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 25 item 5. An actor's history (GET /api/v1/admin/apps/{appId}/entitlements/{actorId}/changes)
// shows who made each change: the change record names its principal (NULL for changes recorded
// before this column). Its reads, newest first per actor, use entitlement_changes_by_actor
// (tenant_id, app_id, actor_id, sequence), which the feed's snapshots already have.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `ALTER TABLE entitlement_changes ADD COLUMN changed_by uuid;`);
}
