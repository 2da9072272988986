import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 32 (rules/contract §7): a user has a role (owner, admin, viewer) and a status (invited, active,
// deactivated). Every user before this migration was a tenant's first administrator or the
// bootstrap administrator: an active owner. A session's scopes come from the role on each request.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE users ADD COLUMN role text NOT NULL DEFAULT 'owner'
       CHECK (role IN ('owner', 'admin', 'viewer'));
     ALTER TABLE users ADD COLUMN status text NOT NULL DEFAULT 'active'
       CHECK (status IN ('invited', 'active', 'deactivated'));`,
  );
}
