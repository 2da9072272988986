import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 32 step 5 (rules/contract §7): a session names how it was opened (`method`: password, sso,
// invitation, password-reset; sessions opened before this release were all password sign-ins) and
// when it was last used (`last_used_at`, kept to the minute by the authenticator; idle expiry,
// HANSE_SESSION_IDLE_SECONDS, is judged on it). Open sessions count as used at the upgrade, so that
// the upgrade itself signs nobody out.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE credentials ADD COLUMN method text NOT NULL DEFAULT 'password'
       CHECK (method IN ('password', 'sso', 'invitation', 'password-reset'));
     ALTER TABLE credentials ADD COLUMN last_used_at timestamptz;
     UPDATE credentials SET last_used_at = now() WHERE kind = 'session' AND revoked_at IS NULL;
     CREATE INDEX credentials_sessions_by_user ON credentials (tenant_id, principal_id, created_at, id)
       WHERE kind = 'session';`,
  );
}
