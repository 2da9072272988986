import type { Kysely, Selectable } from "kysely";
import { uuidv7 } from "../crypto/ids.js";
import { auditTables, recordAudit, type AuditEventsTable } from "./audit.js";
import { sealHash } from "./audit-chain.js";
import { auditRecordView } from "./audit-view.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Executor = Kysely<any>;

/** Records removed per transaction. */
const pruneBatch = 5000;

/**
 * Retention of the audit trail (rules/contract §7, issue 33 item 3; `HANSE_AUDIT_RETENTION_DAYS`, unset:
 * keep forever). Only sealed records go, and only from the chain's start: the longest run of the
 * oldest sealed records that all occurred before `now − keepMs` (a record sealed late with an older
 * time waits for the records before it). The head then starts the chain after them, with the hash
 * of the last one removed, so the rest still verifies. A stretch that does not verify is not
 * pruned (the verification goes on reporting it). Each batch is itself recorded
 * (`audit.pruned`: how many, through which sequence, older than when), in its own transaction.
 */
export async function pruneAuditTrails(
  db: Executor,
  now: Date,
  keepMs: number,
  signal?: AbortSignal,
): Promise<number> {
  const cutoff = new Date(now.getTime() - keepMs);
  const heads = await auditTables(db).selectFrom("audit_chain_heads").select("tenant_id").execute();
  let pruned = 0;
  for (const { tenant_id: tenantId } of heads) {
    for (;;) {
      const n = await pruneBatchOf(db, tenantId, cutoff, now);
      pruned += n;
      if (n < pruneBatch || signal?.aborted) break;
    }
  }
  return pruned;
}

async function pruneBatchOf(db: Executor, tenantId: string, cutoff: Date, now: Date): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const t = auditTables(trx);
    const head = await t
      .selectFrom("audit_chain_heads")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const oldest = await t
      .selectFrom("audit_events")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("seal_sequence", ">=", head.first_sequence)
      .where("seal_sequence", "<=", head.sequence)
      .orderBy("seal_sequence")
      .limit(pruneBatch)
      .execute();
    const young = oldest.findIndex((row) => row.occurred_at >= cutoff);
    const gone = oldest.slice(0, young === -1 ? oldest.length : young);
    const last = gone.at(-1);
    if (!last || last.seal_sequence === null || last.seal_hash === null) return 0;
    // Evidence is never pruned: a stretch that does not verify stays for the verification to report.
    if (!stretchVerifies(gone, head.first_sequence, head.first_previous)) return 0;
    const through = last.seal_sequence;
    const removed = await t
      .deleteFrom("audit_events")
      .where("tenant_id", "=", tenantId)
      .where("seal_sequence", ">=", head.first_sequence)
      .where("seal_sequence", "<=", through)
      .executeTakeFirst();
    const count = Number(removed.numDeletedRows);
    await t
      .updateTable("audit_chain_heads")
      .set({ first_sequence: through + 1, first_previous: last.seal_hash })
      .where("tenant_id", "=", tenantId)
      .execute();
    await recordAudit(trx, {
      tenantId,
      id: uuidv7(now.getTime()),
      type: "audit.pruned",
      occurredAt: now,
      principalId: null,
      principalKind: null,
      targetType: "audit_trail",
      targetId: tenantId,
      data: { count, throughSequence: through, olderThan: cutoff.toISOString() },
    });
    return count;
  });
}

/** Whether `rows` are the chain's places `first`, `first + 1`, … each intact and linked. */
function stretchVerifies(
  rows: readonly Selectable<AuditEventsTable>[],
  first: number,
  previous: string,
): boolean {
  let expected = first;
  let hash = previous;
  for (const row of rows) {
    if (row.seal_sequence !== expected || row.seal_previous !== hash) return false;
    if (row.seal_hash !== sealHash(hash, auditRecordView(row))) return false;
    hash = row.seal_hash;
    expected += 1;
  }
  return true;
}
