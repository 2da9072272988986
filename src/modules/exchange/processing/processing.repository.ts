import { createHash } from "node:crypto";
import { sql, type Kysely, type Transaction } from "kysely";
import type { Finding } from "../../../edifact/index.js";
import type { ExchangeTables, UploadStatus } from "../exchange.tables.js";

type Db = Kysely<ExchangeTables>;
type Trx = Transaction<ExchangeTables>;

export function findUpload(db: Db, tenantId: string, id: string) {
  return db
    .selectFrom("exchange_uploads")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/**
 * One statement at the start of a processing run: the upload moves from `received` to
 * `processing` (a re-run finds it `processing` and leaves its time alone) and comes back with its
 * profile revision's profile (null when the revision is missing). Nothing, when the upload is
 * unknown or already finished (`processed`, `rejected`, `failed`).
 */
export async function startProcessing(db: Db, tenantId: string, id: string, at: Date) {
  const [upload] = await startProcessingMany(db, [{ tenantId, uploadId: id }], at);
  return upload;
}

export async function setUploadStatus(
  db: Db,
  tenantId: string,
  id: string,
  status: UploadStatus,
  at: Date,
  extra: {
    error?: string | null;
    from?: UploadStatus[];
    findings?: readonly Finding[];
    interchangeKey?: Buffer | null;
    duplicateOf?: string | null;
  } = {},
) {
  let q = db
    .updateTable("exchange_uploads")
    .set({
      status,
      updated_at: at,
      ...(extra.error !== undefined ? { error: extra.error } : {}),
      ...(extra.findings !== undefined ? { findings: JSON.stringify(extra.findings) } : {}),
      ...(extra.interchangeKey !== undefined ? { interchange_key: extra.interchangeKey } : {}),
      ...(extra.duplicateOf !== undefined ? { duplicate_of: extra.duplicateOf } : {}),
      ...(status === "processed" || status === "rejected" || status === "failed" ? { completed_at: at } : {}),
    })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id);
  if (extra.from) q = q.where("status", "in", extra.from);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The duplicate key of an interchange (rules/contract §8): SHA-256 of its UNB sender identification,
 * recipient identification and control reference. Fixed size, so a hostile long reference
 * never makes a large index entry.
 */
export const interchangeKeyHash = (parts: readonly [string, string, string]): Buffer =>
  createHash("sha256").update(JSON.stringify(parts)).digest();

/**
 * The upload of the connection processed since `since` whose interchange has `key`, the latest
 * first: one range of exchange_uploads_processed_interchanges (the query; a test shows its plan).
 */
export function duplicateLookup(
  db: Db,
  tenantId: string,
  connectionId: string,
  key: Buffer,
  since: Date,
  exceptId: string,
) {
  return db
    .selectFrom("exchange_uploads")
    .select(["id", "completed_at"])
    .where("tenant_id", "=", tenantId)
    .where("connection_id", "=", connectionId)
    .where("interchange_key", "=", key)
    .where("status", "=", "processed")
    .where("completed_at", ">=", since)
    .where("id", "<>", exceptId)
    .orderBy("completed_at", "desc")
    .limit(1);
}

export function findProcessedDuplicate(...args: Parameters<typeof duplicateLookup>) {
  return duplicateLookup(...args).executeTakeFirst();
}

/**
 * `count` fresh UNB 0020 values, unique across every connection, in one statement. A sequence
 * is not transactional: values of a run that does not commit are skipped, never reused.
 */
export async function nextControlRefs(db: Db, count: number): Promise<string[]> {
  if (count === 0) return [];
  const result = await sql<{ ref: string | number }>`
    SELECT nextval('exchange_control_refs') AS ref FROM generate_series(1, ${count}::integer)`.execute(db);
  return result.rows.map((row) => String(row.ref)).sort((a, b) => Number(a) - Number(b));
}

/**
 * `startProcessing` for several uploads in one statement: those still `received` or `processing`
 * come back (in no particular order).
 */
export function startProcessingMany(
  db: Db,
  uploads: readonly { tenantId: string; uploadId: string }[],
  at: Date,
) {
  return db
    .updateTable("exchange_uploads as u")
    .set({
      status: "processing",
      updated_at: sql<Date>`CASE WHEN u.status = 'received' THEN ${at}::timestamptz ELSE u.updated_at END`,
    })
    .where("u.tenant_id", "in", [...new Set(uploads.map((u) => u.tenantId))])
    .where(
      "u.id",
      "in",
      uploads.map((u) => u.uploadId),
    )
    .where("u.status", "in", ["received", "processing"])
    .returning([
      "u.tenant_id",
      "u.id",
      "u.connection_id",
      "u.interchange_id",
      "u.blob_id",
      "u.byte_count",
      (eb) =>
        eb
          .selectFrom("exchange_profile_revisions as r")
          .select("r.profile")
          .whereRef("r.tenant_id", "=", "u.tenant_id")
          .whereRef("r.connection_id", "=", "u.connection_id")
          .whereRef("r.revision", "=", "u.profile_revision")
          .as("profile"),
    ])
    .execute();
}

/** The final state of a processed or rejected upload (`finishUploads`). */
export interface FinishedUpload {
  tenantId: string;
  id: string;
  status: "processed" | "rejected";
  /** null: the findings stay as they are (none found). */
  findings: readonly Finding[] | null;
  interchangeKey: Buffer | null;
  /** The processed upload this one repeats (a duplicate), else null. */
  duplicateOf: string | null;
}

/**
 * The first statement of processing's transaction: the uploads still `processing` take their final
 * status, which also locks them until the commit. Returns the ids it moved; an upload another run
 * finished meanwhile is not among them, and its outbound messages must not be written.
 */
export async function finishUploads(trx: Trx, uploads: readonly FinishedUpload[], at: Date) {
  if (uploads.length === 0) return new Set<string>();
  const result = await sql<{ id: string }>`
    UPDATE exchange_uploads AS u SET status = f.status, updated_at = ${at}::timestamptz,
      completed_at = ${at}::timestamptz, findings = COALESCE(f.findings::jsonb, u.findings),
      interchange_key = decode(f.interchange_key, 'hex'), duplicate_of = f.duplicate_of
    FROM unnest(${uploads.map((u) => u.tenantId)}::uuid[], ${uploads.map((u) => u.id)}::uuid[],
      ${uploads.map((u) => u.status)}::text[],
      ${uploads.map((u) => (u.findings ? JSON.stringify(u.findings) : null))}::text[],
      ${uploads.map((u) => u.interchangeKey?.toString("hex") ?? null)}::text[],
      ${uploads.map((u) => u.duplicateOf)}::uuid[])
      AS f(tenant_id, id, status, findings, interchange_key, duplicate_of)
    WHERE u.tenant_id = f.tenant_id AND u.id = f.id AND u.status = 'processing'
    RETURNING u.id`.execute(trx);
  return new Set(result.rows.map((row) => row.id));
}

/**
 * A processed upload that one of the checked uploads may repeat (`duplicateLookup` for several in
 * one statement, the batch's own uploads excepted): per connection, one range of
 * exchange_uploads_processed_interchanges per key (a test shows its plan).
 */
export function batchDuplicateLookup(
  db: Db,
  checks: readonly { tenantId: string; connectionId: string; key: Buffer; since: Date }[],
  exceptIds: readonly string[],
) {
  // Per connection, its keys as one index condition (`= ANY`) and the earliest of their windows:
  // a wider window may only find more, which the caller checks again upload by upload.
  const connections = new Map<
    string,
    { tenantId: string; connectionId: string; keys: Buffer[]; since: Date }
  >();
  for (const check of checks) {
    const id = `${check.tenantId}/${check.connectionId}`;
    const entry = connections.get(id);
    if (!entry) connections.set(id, { ...check, keys: [check.key] });
    else {
      entry.keys.push(check.key);
      if (check.since < entry.since) entry.since = check.since;
    }
  }
  return db
    .selectFrom("exchange_uploads")
    .select("id")
    .where("status", "=", "processed")
    .where("id", "not in", exceptIds)
    .where((eb) =>
      eb.or(
        [...connections.values()].map((c) =>
          eb.and([
            eb("tenant_id", "=", c.tenantId),
            eb("connection_id", "=", c.connectionId),
            eb("interchange_key", "in", c.keys),
            eb("completed_at", ">=", c.since),
          ]),
        ),
      ),
    )
    .limit(1);
}

/** A processed upload of its connection that one of the uploads repeats (`batchDuplicateLookup`). */
export async function findBatchDuplicate(...args: Parameters<typeof batchDuplicateLookup>) {
  const [, checks] = args;
  if (checks.length === 0) return undefined;
  return batchDuplicateLookup(...args).executeTakeFirst();
}

/**
 * Stores the document numbers (BGM 1004) of processed or rejected uploads for the operator's
 * search (rules/contract §8), in one statement; a re-run of the same upload adds nothing twice.
 */
export async function insertUploadDocuments(
  trx: Trx,
  rows: readonly { tenantId: string; uploadId: string; number: string }[],
) {
  if (rows.length === 0) return;
  await trx
    .insertInto("exchange_upload_documents")
    .values(rows.map((r) => ({ tenant_id: r.tenantId, document_number: r.number, upload_id: r.uploadId })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}
