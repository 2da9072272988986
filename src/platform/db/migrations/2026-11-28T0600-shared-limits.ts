import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Limits that every API process shares (issue 31; docs/operations.md, "Limits across processes"):
// the rate limits (partner API keys, failed sign-ins) and the leases of upload streams. Both are
// UNLOGGED: a counter or a lease is worth no WAL and no flush at commit (a write to an unlogged
// table alone commits without waiting for the disk), and a crash of PostgreSQL that empties them
// only resets the limits. fillfactor leaves room for heap-only updates of the same row.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE UNLOGGED TABLE rate_limits (
      key text PRIMARY KEY,
      tat double precision NOT NULL,
      interval_ms double precision NOT NULL,
      tolerance_ms double precision NOT NULL,
      allowed boolean NOT NULL
    ) WITH (fillfactor = 70);
    CREATE UNLOGGED TABLE limit_leases (
      name text NOT NULL,
      slot integer NOT NULL,
      holder text NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (name, slot)
    ) WITH (fillfactor = 70);
    CREATE INDEX limit_leases_holder ON limit_leases (holder);
  `,
  );
}
