import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 32 step 4 (rules/contract §7): an administrator issues a password reset for a user of the
// tenant; its token is stored as its SHA-256 hash, looked up by the id the token carries, and
// used up once (`used_at`), like an invitation's (a table of its own: docs/decisions.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `CREATE TABLE password_resets (
       id uuid PRIMARY KEY, tenant_id uuid NOT NULL, user_id uuid NOT NULL, secret_hash bytea NOT NULL,
       -- Who issued it (a user or an access token).
       created_by uuid NOT NULL,
       created_at timestamptz NOT NULL, expires_at timestamptz NOT NULL, used_at timestamptz,
       FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id)
     );
     CREATE INDEX password_resets_by_user ON password_resets (tenant_id, user_id);`,
  );
}
