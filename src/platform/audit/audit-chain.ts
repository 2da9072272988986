import { createHash } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { sql, type Kysely, type Selectable } from "kysely";
import { defineJob, type JobDefinition } from "../jobs/define-job.js";
import { auditTables, type AuditEventsTable } from "./audit.js";
import { auditRecordView, type AuditRecordView } from "./audit-view.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Executor = Kysely<any>;

/**
 * Tamper evidence (rules/contract §7, issue 33 item 2). Records are written unsealed by whoever audits,
 * in the change's own transaction, and touch nothing shared: the hot paths never queue on a chain
 * head. A recurring job (`platform.audit-seal`) then links each tenant's new records, in the order
 * `(occurred_at, id)` among those it finds, into a hash chain:
 *
 *   hash(n) = hex(SHA-256(hash(n − 1) + "\n" + canonicalJson(record n)))     hash(0) = 64 × "0"
 *
 * where the record is its operator view (audit-view.ts) with its keys sorted. Each sealed record
 * keeps its place (`seal_sequence`), its hash and its predecessor's hash; the tenant's head keeps
 * the last place and hash. Changing a record breaks its own hash; removing one leaves a gap or
 * shortens the chain below its head; moving one breaks the link to its predecessor.
 */
export const chainGenesis = "0".repeat(64);

/** JSON with every object's keys in code-point order, no whitespace: one text per value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export const sealHash = (previous: string, record: AuditRecordView): string =>
  createHash("sha256")
    .update(`${previous}\n${canonicalJson(record)}`)
    .digest("hex");

/** Records sealed per transaction: bounded work and lock time, whatever the backlog. */
const sealBatch = 1000;

/**
 * Seals every tenant's unsealed records; the number sealed. One sealer at a time per tenant: the
 * head row is locked for the batch. `sealed_through` moves to the time taken before the batch's
 * read only when that read found the last unsealed record, so every record committed before it is
 * sealed.
 */
export async function sealAuditTrails(db: Executor, now: () => Date, signal?: AbortSignal): Promise<number> {
  const tenants = await sql<{ tenant_id: string }>`
    SELECT DISTINCT tenant_id FROM audit_events WHERE seal_sequence IS NULL`.execute(db);
  let sealed = 0;
  for (const { tenant_id: tenantId } of tenants.rows) {
    for (;;) {
      const n = await sealBatchOf(db, tenantId, now);
      sealed += n;
      if (n < sealBatch || signal?.aborted) break;
    }
  }
  return sealed;
}

async function sealBatchOf(db: Executor, tenantId: string, now: () => Date): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const t = auditTables(trx);
    await t
      .insertInto("audit_chain_heads")
      .values({
        tenant_id: tenantId,
        sequence: 0,
        hash: chainGenesis,
        sealed_through: new Date(0),
        first_sequence: 1,
        first_previous: chainGenesis,
      })
      .onConflict((oc) => oc.column("tenant_id").doNothing())
      .execute();
    const head = await t
      .selectFrom("audit_chain_heads")
      .select(["sequence", "hash"])
      .where("tenant_id", "=", tenantId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const through = now();
    const rows = await t
      .selectFrom("audit_events")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("seal_sequence", "is", null)
      .orderBy("occurred_at")
      .orderBy("id")
      .limit(sealBatch)
      .execute();
    let sequence = head.sequence;
    let previous = head.hash;
    const seals = rows.map((row) => {
      const hash = sealHash(previous, auditRecordView(row));
      const seal = { id: row.id, seq: ++sequence, prev: previous, hash };
      previous = hash;
      return seal;
    });
    if (seals.length > 0) {
      await sql`UPDATE audit_events AS e
        SET seal_sequence = v.seq, seal_previous = v.prev, seal_hash = v.hash
        FROM jsonb_to_recordset(${JSON.stringify(seals)}::jsonb) AS v(id uuid, seq bigint, prev text, hash text)
        WHERE e.tenant_id = ${tenantId}::uuid AND e.id = v.id`.execute(trx);
    }
    await t
      .updateTable("audit_chain_heads")
      .set({
        sequence,
        hash: previous,
        ...(rows.length < sealBatch ? { sealed_through: through } : {}),
      })
      .where("tenant_id", "=", tenantId)
      .execute();
    return rows.length;
  });
}

/** What is wrong at the first record that does not verify. */
export interface AuditChainProblem {
  /** `changed`: the record (or its seal) differs from what was sealed; `removed`: records are
   * missing before it (or at the chain's end); `reordered`: the record is intact but does not follow
   * the record before it (moved, or records removed and the rest renumbered). */
  kind: "changed" | "removed" | "reordered";
  /** The place in the chain where it was found. */
  sequence: number;
  /** The record found there; null when records are missing at the chain's end. */
  eventId: string | null;
}

export interface AuditChainVerification {
  verified: boolean;
  /** Every record committed before this time was checked (RFC 3339). */
  checkedThrough: string;
  /** Records checked. */
  count: number;
  /** The last seal: keep it, to find out later that the chain was not cut short after it. */
  head: { sequence: number; hash: string } | null;
  /** Records written but not sealed yet (sealed within HANSE_AUDIT_SEAL_SECONDS). */
  unsealed: number;
  problem: AuditChainProblem | null;
}

/** Records read per statement by the verification and the export. */
const chainPageSize = 1000;

/** Up to a page of a tenant's chain after the place `after` (and up to `upTo`), in chain order. */
function chainPage(db: Executor, tenantId: string, after: number, upTo?: number) {
  let q = auditTables(db)
    .selectFrom("audit_events")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("seal_sequence", ">", after);
  if (upTo !== undefined) q = q.where("seal_sequence", "<=", upTo);
  return q.orderBy("seal_sequence").limit(chainPageSize).execute();
}

/**
 * Walks a tenant's sealed records in chain order, a page at a time (flat memory), and checks each
 * against its seal and its predecessor, then the end against the head. Stops at the first problem.
 */
export async function verifyAuditTrail(
  db: Executor,
  tenantId: string,
  now: Date,
): Promise<AuditChainVerification> {
  const t = auditTables(db);
  const head = await t
    .selectFrom("audit_chain_heads")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .executeTakeFirst();
  const unsealed = (
    await t
      .selectFrom("audit_events")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("tenant_id", "=", tenantId)
      .where("seal_sequence", "is", null)
      .executeTakeFirstOrThrow()
  ).n;
  const checkedThrough = (unsealed === 0 ? now : (head?.sealed_through ?? new Date(0))).toISOString();
  if (!head) {
    return { verified: true, checkedThrough, count: 0, head: null, unsealed, problem: null };
  }
  const headSequence = head.sequence;
  let expected = head.first_sequence;
  let previous = head.first_previous;
  let count = 0;
  const result = (problem: AuditChainProblem | null): AuditChainVerification => ({
    verified: problem === null,
    checkedThrough,
    count,
    head: { sequence: headSequence, hash: head.hash },
    unsealed,
    problem,
  });
  for (let after = expected - 1; ;) {
    const rows = await chainPage(db, tenantId, after);
    for (const row of rows) {
      const problem = checkRecord(row, expected, previous);
      if (problem) return result(problem);
      count += 1;
      previous = row.seal_hash as string;
      expected += 1;
    }
    if (rows.length < chainPageSize) break;
    after = expected - 1;
  }
  // `expected` is one past the last record found: the chain must end exactly at the head.
  if (expected - 1 < headSequence) return result({ kind: "removed", sequence: expected, eventId: null });
  if (expected - 1 > headSequence || previous !== head.hash) {
    return result({ kind: "changed", sequence: headSequence, eventId: null });
  }
  return result(null);
}

function checkRecord(
  row: Selectable<AuditEventsTable>,
  expected: number,
  previous: string,
): AuditChainProblem | null {
  const sequence = row.seal_sequence;
  if (sequence !== expected) return { kind: "removed", sequence: expected, eventId: row.id };
  if (row.seal_previous === null || sealHash(row.seal_previous, auditRecordView(row)) !== row.seal_hash) {
    return { kind: "changed", sequence, eventId: row.id };
  }
  if (row.seal_previous !== previous) return { kind: "reordered", sequence, eventId: row.id };
  return null;
}

export const auditSealJobName = "platform.audit-seal";

/**
 * The sealer (worker role): one recurring row in the jobs table, so one run at a time whatever the
 * number of workers, every `everyMs` (HANSE_AUDIT_SEAL_SECONDS). Logs the number it sealed (debug).
 */
export function createAuditSealJob(deps: {
  db: Executor;
  clock: { now(): Date };
  logger: Pick<FastifyBaseLogger, "info" | "debug">;
  everyMs: number;
}): JobDefinition<Record<string, never>> {
  return defineJob<Record<string, never>>({
    name: auditSealJobName,
    everyMs: deps.everyMs,
    maxAttempts: 3,
    run: async (_payload, context) => {
      const sealed = await sealAuditTrails(deps.db, () => deps.clock.now(), context.signal);
      // Debug only: on a busy service this runs every few seconds; the verification shows the state.
      deps.logger.debug({ job: auditSealJobName, sealed }, "sealed audit records");
    },
  });
}

/** An exported record: its view and, once sealed, its place in the chain. */
export type ExportedAuditRecord = AuditRecordView & {
  seal: { sequence: number; previous: string; hash: string } | null;
};

/**
 * A tenant's records that occurred in `[from, before)`, in chain order, a page at a time: the
 * sealed ones as the unbroken stretch of the chain from the first to the last of them (a record
 * sealed in between whose time lies outside the range is included, so the stretch verifies on its
 * own and continues the previous export's), then the unsealed ones in `(occurred_at, id)` order.
 */
export async function* exportAuditRecords(
  db: Executor,
  tenantId: string,
  range: { from?: Date | undefined; before?: Date | undefined },
): AsyncGenerator<ExportedAuditRecord> {
  const t = auditTables(db);
  let bounds = t
    .selectFrom("audit_events")
    .select((eb) => [eb.fn.min("seal_sequence").as("lo"), eb.fn.max("seal_sequence").as("hi")])
    .where("tenant_id", "=", tenantId)
    .where("seal_sequence", "is not", null);
  if (range.from) bounds = bounds.where("occurred_at", ">=", range.from);
  if (range.before) bounds = bounds.where("occurred_at", "<", range.before);
  const { lo, hi } = await bounds.executeTakeFirstOrThrow();
  if (lo !== null && hi !== null) {
    for (let after = lo - 1; after < hi;) {
      const rows = await chainPage(db, tenantId, after, hi);
      if (rows.length === 0) break;
      for (const row of rows) yield withSeal(row);
      after = rows[rows.length - 1]?.seal_sequence ?? hi;
    }
  }
  for (let after: { at: Date; id: string } | undefined; ;) {
    let q = t
      .selectFrom("audit_events")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("seal_sequence", "is", null);
    if (range.from) q = q.where("occurred_at", ">=", range.from);
    if (range.before) q = q.where("occurred_at", "<", range.before);
    if (after) {
      const position = after;
      q = q.where((eb) => eb(eb.refTuple("occurred_at", "id"), ">", eb.tuple(position.at, position.id)));
    }
    const rows = await q.orderBy("occurred_at").orderBy("id").limit(chainPageSize).execute();
    for (const row of rows) yield withSeal(row);
    const last = rows[rows.length - 1];
    if (!last || rows.length < chainPageSize) break;
    after = { at: last.occurred_at, id: last.id };
  }
}

const withSeal = (row: Selectable<AuditEventsTable>): ExportedAuditRecord => ({
  ...auditRecordView(row),
  seal:
    row.seal_sequence === null
      ? null
      : { sequence: row.seal_sequence, previous: row.seal_previous ?? "", hash: row.seal_hash ?? "" },
});
