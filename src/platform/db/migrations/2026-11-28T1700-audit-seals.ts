import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 33 item 2 (rules/contract §7, tamper evidence): a background sealer links each tenant's audit
// records, in the order it finds them, into a hash chain: `seal_sequence` is the record's place
// (1, 2, …), `seal_hash` = SHA-256 of the previous record's hash and the record's canonical JSON,
// `seal_previous` that previous hash (so a record moved elsewhere is told from one changed). Writers
// never touch these columns: records are inserted unsealed, so the hot paths do not queue on a
// chain head. `audit_chain_heads` is each tenant's last seal: the sealer continues from it and the
// verification checks that nothing after it is missing (records pruned by retention end the chain's
// start at `first_sequence`, whose predecessor's hash is `first_previous`).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE audit_events
       ADD COLUMN seal_sequence bigint,
       ADD COLUMN seal_previous text,
       ADD COLUMN seal_hash text;
     CREATE INDEX audit_events_unsealed ON audit_events (tenant_id, occurred_at, id)
       WHERE seal_sequence IS NULL;
     CREATE UNIQUE INDEX audit_events_by_seal ON audit_events (tenant_id, seal_sequence)
       WHERE seal_sequence IS NOT NULL;
     CREATE TABLE audit_chain_heads (
       tenant_id uuid PRIMARY KEY,
       sequence bigint NOT NULL,
       hash text NOT NULL,
       sealed_through timestamptz NOT NULL,
       first_sequence bigint NOT NULL DEFAULT 1,
       first_previous text NOT NULL
     );`,
  );
}
