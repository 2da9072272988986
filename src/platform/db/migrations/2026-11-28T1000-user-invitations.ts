import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 32 step 3 (rules/contract §7): users are invited and managed over HTTP. A user shows when it
// last signed in; `activated_at` says whether it ever accepted its invitation (only such a user
// can be reactivated). An invitation's token is stored as its SHA-256 hash, looked up by the id
// the token carries, and used up once (`used_at`).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE users ADD COLUMN last_sign_in_at timestamptz;
     ALTER TABLE users ADD COLUMN activated_at timestamptz;
     UPDATE users SET activated_at = created_at WHERE status <> 'invited';
     CREATE INDEX users_by_creation ON users (tenant_id, created_at, id);
     CREATE TABLE user_invitations (
       id uuid PRIMARY KEY,
       tenant_id uuid NOT NULL,
       user_id uuid NOT NULL,
       secret_hash bytea NOT NULL,
       created_at timestamptz NOT NULL,
       expires_at timestamptz NOT NULL,
       used_at timestamptz,
       FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id)
     );
     CREATE INDEX user_invitations_by_user ON user_invitations (tenant_id, user_id);`,
  );
}
