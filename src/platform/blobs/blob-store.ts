import { createHash } from "node:crypto";
import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Clock } from "../clock/clock.js";
import type { Database, DatabaseTuning } from "../db/database.js";
import { sqlLiteral } from "../db/sql-literal.js";
import type { BlobTables } from "./blobs.tables.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Executor = Kysely<any>;
const tables = (db: Executor) => db as Kysely<BlobTables>;
/** What reading a blob needs of the database handle. */
export type BlobReader = Pick<Database, "copyRows" | "tuning">;

/** Chunk size of stored blobs: bounds the memory a stream holds at once. */
export const defaultChunkBytes = 1024 * 1024;

/**
 * How chunk bytes cross the driver. `binary`: a Buffer parameter (node-postgres sends it as a
 * binary parameter, no conversion). `hex`: a hex text parameter decoded by the database, and hex
 * text read back — PGlite's own bytea serializer and parser go byte by byte through JS strings,
 * which costs ~100× more than Node's native hex codec on 16 MiB.
 */
export type BlobTransfer = DatabaseTuning["byteaTransfer"];

/** The SQL value of chunk bytes for a transfer (`decode(…, 'hex')` or a bytea parameter). */
export const chunkValue = (bytes: Buffer, transfer: BlobTransfer) =>
  transfer === "hex"
    ? sql<Buffer>`decode(${bytes.toString("hex")}::text, 'hex')`
    : sql<Buffer>`${bytes}::bytea`;

/** The stream carried more bytes than allowed; nothing of it is kept. */
export class BlobTooLargeError extends Error {
  override readonly name = "BlobTooLargeError";
  constructor(readonly limit: number) {
    super(`blob exceeds ${limit} bytes`);
  }
}

export interface StoredBlob {
  id: string;
  byteCount: number;
  /** SHA-256 of the bytes, computed while they were read. */
  sha256: Buffer;
}

export interface WriteBlobInput {
  tenantId: string;
  id: string;
  contentType: string;
  source: AsyncIterable<Uint8Array | string>;
  /** Hard limit: the write aborts when byte maxBytes + 1 arrives. */
  maxBytes: number;
  chunkBytes?: number;
  /** Sees every byte in order (e.g. a syntax scanner) without holding it. */
  observe?: (bytes: Buffer) => void;
  /** false: only count and hash (a replay check), store nothing. */
  store?: boolean;
  transfer?: BlobTransfer;
  /**
   * `Database.prepared` of the handle: each kind of chunk statement is then prepared once and
   * its bytes travel as a binary parameter on both databases (`transfer` is not used).
   */
  prepared?: Database["prepared"];
  /** Chunk writes in flight at once after the first (default 1; the handle's `tuning.chunkWritesInFlight` suits its database). */
  writesInFlight?: number;
}

const asBuffer = (value: Uint8Array): Buffer =>
  Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);

/**
 * At most this many chunk writes of streamed blobs run at once per database handle. A stream
 * waiting for a slot stops reading its client (backpressure), so concurrent large uploads hold
 * about two chunks each instead of queueing statements — and their parameter copies — in the
 * driver. PGlite runs one statement at a time anyway.
 */
const chunkWriteSlots = 2;
const chunkWriteGates = new WeakMap<object, { active: number; waiting: (() => void)[] }>();

async function acquireChunkWrite(db: Executor): Promise<() => void> {
  let gate = chunkWriteGates.get(db);
  if (!gate) {
    gate = { active: 0, waiting: [] };
    chunkWriteGates.set(db, gate);
  }
  const held = gate;
  if (held.active < chunkWriteSlots) held.active++;
  else await new Promise<void>((resolve) => held.waiting.push(resolve));
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const next = held.waiting.shift();
    // The slot passes straight to the next waiter.
    if (next) next();
    else held.active--;
  };
}

const blobColumns = "tenant_id, id, state, content_type, byte_count, sha256, chunk_count, created_at";
const chunkColumns = "tenant_id, blob_id, seq, data";

const insertChunk = (tenantId: string, blobId: string, seq: number, data: Buffer, transfer: BlobTransfer) =>
  sql`INSERT INTO blob_chunks (${sql.raw(chunkColumns)})
    VALUES (${tenantId}::uuid, ${blobId}::uuid, ${seq}::integer, ${chunkValue(data, transfer)})`;

interface BlobRow {
  tenantId: string;
  id: string;
  contentType: string;
  createdAt: Date;
}

const insertBlobRow = (
  row: BlobRow,
  state: "pending" | "complete",
  byteCount: number,
  sha256: Buffer | null,
  chunkCount: number,
) =>
  sql`INSERT INTO blobs (${sql.raw(blobColumns)})
    VALUES (${row.tenantId}::uuid, ${row.id}::uuid, ${state}::text, ${row.contentType}::text,
      ${byteCount}::bigint, ${sha256}::bytea, ${chunkCount}::integer, ${row.createdAt}::timestamptz)`;

/**
 * SQL expressions for a small blob stored whole, evaluated once per row of the relation of
 * `insertSmallBlobSql`: text the caller writes (column references, parameters, casts), never values.
 */
export interface SmallBlobSql {
  tenantId: string;
  id: string;
  contentType: string;
  /** bigint; 0 stores no chunk. */
  byteCount: string;
  /** bytea: SHA-256 of the bytes. */
  sha256: string;
  /** bytea: every byte of the blob, at most one chunk (`defaultChunkBytes`). */
  data: string;
  createdAt: string;
}

/**
 * The blob store's insert for a statement of another part that stores a small blob in its own
 * round trip (the accept statement of a small upload): per row of `from` (relations and joins, no
 * WHERE), a complete blob with its bytes as chunk 0 (none when empty). Two data-modifying CTE
 * bodies, `blob` (the blob row) and `chunk`; nothing outside platform/blobs spells these tables'
 * columns.
 */
export function insertSmallBlobSql(from: string, blob: SmallBlobSql): { blob: string; chunk: string } {
  return {
    blob: `INSERT INTO blobs (${blobColumns})
  SELECT ${blob.tenantId}, ${blob.id}, 'complete', ${blob.contentType}, ${blob.byteCount}, ${blob.sha256},
    CASE WHEN ${blob.byteCount} > 0 THEN 1 ELSE 0 END, ${blob.createdAt}
  FROM ${from}`,
    chunk: `INSERT INTO blob_chunks (${chunkColumns})
  SELECT ${blob.tenantId}, ${blob.id}, 0, ${blob.data}
  FROM ${from}
  WHERE ${blob.byteCount} > 0`,
  };
}

/**
 * Streams `source` into `blob_chunks` while counting and hashing it. Every chunk is its own
 * statement (no long transaction holds the connection while a client sends); the blob row is
 * `pending` until the last chunk is written. The first chunk's statement also inserts the
 * pending blob row and runs alone, so that no chunk is ever stored without its blob row (a
 * crash leaves a pending row that the sweep finds); later chunks are written up to
 * `writesInFlight` at a time while the next ones are read, each from a buffer of its own that
 * is used again once its write has ended (so at most writesInFlight + 1 chunks of memory per
 * stream). The last chunk's statement, which completes the blob row, waits for every other
 * one. Any failure (the limit, a reset client, the database) deletes what was written and
 * rethrows.
 */
export async function writeBlobStream(
  db: Executor,
  clock: Clock,
  input: WriteBlobInput,
): Promise<StoredBlob> {
  const store = input.store !== false;
  const chunkBytes = input.chunkBytes ?? defaultChunkBytes;
  const prepared = input.prepared;
  const transfer = prepared ? "binary" : (input.transfer ?? "binary");
  const writesInFlight = Math.max(1, input.writesInFlight ?? 1);
  /** Runs a statement; prepared under `hanse_blob_<kind>` when the handle's prepared is given. */
  const run = (kind: string, statement: RawBuilder<unknown>): Promise<unknown> => {
    if (!prepared) return statement.execute(db);
    const compiled = statement.compile(db);
    return prepared(`hanse_blob_${kind}`, compiled.sql, compiled.parameters);
  };
  const hash = createHash("sha256");
  const row: BlobRow = {
    tenantId: input.tenantId,
    id: input.id,
    contentType: input.contentType,
    createdAt: clock.now(),
  };
  let total = 0;
  let seq = 0;
  let current: Buffer | undefined;
  let filled = 0;
  /** Chunk buffers whose writes have ended, ready to be filled again. */
  const free: Buffer[] = [];
  const writes = new Set<Promise<unknown>>();
  // Objects rather than variables, so that what the write callbacks set is visible to the
  // checks below: the first failed write's error (the stream stops at its next chunk), and
  // whether the pending blob row exists (written with the first chunk, which runs alone).
  const outcome: { failure?: { error: unknown } } = {};
  const blobRow = { written: false };
  const throwIfFailed = () => {
    if (outcome.failure) throw outcome.failure.error;
  };

  /** Waits for a place among the stream's writes (and a write slot), then starts one. */
  const ship = async (data: Buffer) => {
    const first = !blobRow.written;
    while (writes.size >= writesInFlight) await Promise.race(writes);
    throwIfFailed();
    const release = await acquireChunkWrite(db);
    const chunk = insertChunk(input.tenantId, input.id, seq++, data, transfer);
    const write = (
      first
        ? run("first_chunk", sql`WITH blob AS (${insertBlobRow(row, "pending", 0, null, 0)}) ${chunk}`)
        : run("chunk", chunk)
    ).then(
      () => {
        release();
        writes.delete(write);
        free.push(data);
      },
      (error: unknown) => {
        release();
        writes.delete(write);
        outcome.failure ??= { error };
      },
    );
    writes.add(write);
    blobRow.written = true;
    if (first) await write;
    throwIfFailed();
  };
  /** Every write of the stream has ended; throws the first failure. */
  const settled = async () => {
    while (writes.size > 0) await Promise.race(writes);
    throwIfFailed();
  };

  try {
    for await (const part of input.source) {
      const bytes = typeof part === "string" ? Buffer.from(part, "utf8") : asBuffer(part);
      total += bytes.length;
      if (total > input.maxBytes) throw new BlobTooLargeError(input.maxBytes);
      hash.update(bytes);
      input.observe?.(bytes);
      if (!store) continue;
      let offset = 0;
      while (offset < bytes.length) {
        current ??= free.pop() ?? Buffer.allocUnsafe(chunkBytes);
        const copied = bytes.copy(current, filled, offset);
        offset += copied;
        filled += copied;
        if (filled === chunkBytes) {
          await ship(current);
          current = undefined;
          filled = 0;
        }
      }
    }
    const sha256 = hash.digest();
    if (store) {
      await settled();
      const release = await acquireChunkWrite(db);
      const rest = current && filled > 0 ? current.subarray(0, filled) : undefined;
      const chunkCount = seq + (rest ? 1 : 0);
      try {
        const chunk = rest ? insertChunk(input.tenantId, input.id, seq, rest, transfer) : undefined;
        if (!blobRow.written) {
          const blob = insertBlobRow(row, "complete", total, sha256, chunkCount);
          await (chunk ? run("whole", sql`WITH chunk AS (${chunk}) ${blob}`) : run("empty", blob));
        } else {
          const complete = sql`UPDATE blobs
            SET state = 'complete', byte_count = ${total}::bigint, sha256 = ${sha256}::bytea,
              chunk_count = ${chunkCount}::integer
            WHERE tenant_id = ${input.tenantId}::uuid AND id = ${input.id}::uuid`;
          await (chunk
            ? run("last_chunk", sql`WITH chunk AS (${chunk}) ${complete}`)
            : run("complete", complete));
        }
      } finally {
        release();
      }
      seq = chunkCount;
    }
    return { id: input.id, byteCount: total, sha256 };
  } catch (error) {
    if (store) {
      await settled().catch(() => undefined);
      await deleteBlob(db, input.tenantId, input.id).catch(() => undefined);
    }
    throw error;
  }
}

/** Writes a small blob (an outbound interchange) inside the caller's transaction. */
export async function writeBlob(
  trx: Executor,
  clock: Clock,
  input: {
    tenantId: string;
    id: string;
    contentType: string;
    bytes: Uint8Array;
    chunkBytes?: number;
    transfer?: BlobTransfer;
  },
): Promise<StoredBlob> {
  const chunkBytes = input.chunkBytes ?? defaultChunkBytes;
  const transfer = input.transfer ?? "binary";
  const bytes = asBuffer(input.bytes);
  const sha256 = createHash("sha256").update(bytes).digest();
  const chunkCount = Math.ceil(bytes.length / chunkBytes);
  const blob = insertBlobRow(
    { tenantId: input.tenantId, id: input.id, contentType: input.contentType, createdAt: clock.now() },
    "complete",
    bytes.length,
    sha256,
    chunkCount,
  );
  // Every chunk but the last alone; the last one and the blob row in one statement.
  for (let seq = 0; seq < chunkCount - 1; seq++) {
    const data = bytes.subarray(seq * chunkBytes, (seq + 1) * chunkBytes);
    await insertChunk(input.tenantId, input.id, seq, data, transfer).execute(trx);
  }
  const last =
    chunkCount > 0
      ? insertChunk(
          input.tenantId,
          input.id,
          chunkCount - 1,
          bytes.subarray((chunkCount - 1) * chunkBytes),
          transfer,
        )
      : undefined;
  await (last ? sql`WITH chunk AS (${last}) ${blob}` : blob).execute(trx);
  return { id: input.id, byteCount: bytes.length, sha256 };
}

/**
 * The bytes of a chunk read by COPY (`seq`, `data`), which must be chunk `expected` of its blob:
 * a chunk out of order or without bytes means one is missing.
 */
function chunkInOrder(
  seq: Buffer | null | undefined,
  data: Buffer | null | undefined,
  expected: number,
): Buffer {
  if (!seq || !data || seq.readInt32BE(0) !== expected) throw new Error("blob chunk missing");
  return data;
}

/**
 * Streams a blob's chunks in order through binary COPY (`Database.copyRows`): raw bytes from the
 * database, where a result column would bring them as base64 or hex text, encoded by the server
 * and decoded here (that text round trip held a 16 MiB read to ~190 MB/s; binary COPY reads the
 * same blob at 570–860 MB/s). Memory stays bounded whatever the size: PostgreSQL streams one
 * statement with backpressure; PGlite, which answers a statement whole, reads `batch` chunks per
 * statement (`DatabaseTuning.blobReadBatch` unless given). The caller hashes what it receives: a damaged chunk shows as a hash mismatch, a
 * missing one as an error.
 */
export async function* readBlob(
  database: BlobReader,
  tenantId: string,
  id: string,
  options: { batch?: number } = {},
): AsyncGenerator<Buffer> {
  const batch = options.batch ?? database.tuning.blobReadBatch;
  const blob = `tenant_id = ${sqlLiteral.uuid(tenantId)} AND blob_id = ${sqlLiteral.uuid(id)}`;
  let next = 0;
  for (;;) {
    const from = next;
    const upTo = Number.isFinite(batch) ? ` AND seq < ${sqlLiteral.integer(from + batch)}` : "";
    const select = `SELECT seq, data FROM blob_chunks
      WHERE ${blob} AND seq >= ${sqlLiteral.integer(from)}${upTo} ORDER BY seq`;
    for await (const [seq, data] of database.copyRows(select)) {
      yield chunkInOrder(seq, data, next++);
    }
    if (next - from < batch) return;
  }
}

/** The whole blob in one buffer (bounded by the write limit; the EDIFACT engine takes bytes). */
export async function readBlobBytes(database: BlobReader, tenantId: string, id: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of readBlob(database, tenantId, id)) parts.push(chunk);
  if (parts.length === 1) return parts[0] as Buffer;
  return Buffer.concat(parts);
}

/**
 * Several whole blobs in one statement (binary COPY, as `readBlob`), by id; a blob with no chunk
 * (empty, or unknown) reads as no bytes, and the caller checks the sizes it expects. Everything is
 * held at once: for small blobs only, the caller bounds their total.
 */
export async function readBlobsBytes(
  database: BlobReader,
  blobs: readonly { tenantId: string; id: string }[],
): Promise<Map<string, Buffer>> {
  const parts = new Map<string, Buffer[]>(blobs.map((blob) => [blob.id, []]));
  if (blobs.length === 0) return new Map();
  const keys = blobs.map((blob) => `(${sqlLiteral.uuid(blob.tenantId)}, ${sqlLiteral.uuid(blob.id)})`);
  const select = `SELECT blob_id::text, seq, data FROM blob_chunks
    WHERE (tenant_id, blob_id) IN (${keys.join(", ")}) ORDER BY blob_id, seq`;
  for await (const [id, seq, data] of database.copyRows(select)) {
    const chunks = id && parts.get(id.toString());
    if (!chunks) throw new Error("blob chunk missing");
    chunks.push(chunkInOrder(seq, data, chunks.length));
  }
  return new Map(
    [...parts].map(([id, chunks]) => [
      id,
      chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
    ]),
  );
}

/**
 * Writes small blobs (outbound interchanges, each at most one chunk: `defaultChunkBytes`) inside
 * the caller's transaction, all in one statement.
 */
export async function writeSmallBlobs(
  trx: Executor,
  clock: Clock,
  inputs: readonly { tenantId: string; id: string; contentType: string; bytes: Uint8Array }[],
): Promise<StoredBlob[]> {
  if (inputs.length === 0) return [];
  const bytes = inputs.map((input) => asBuffer(input.bytes));
  if (bytes.some((b) => b.length > defaultChunkBytes)) throw new Error("a blob larger than one chunk");
  const stored = inputs.map((input, i) => ({
    id: input.id,
    byteCount: bytes[i]?.length ?? 0,
    sha256: createHash("sha256")
      .update(bytes[i] ?? Buffer.alloc(0))
      .digest(),
  }));
  // Hex text on both databases: PGlite's bytea array parameters go byte by byte through JS.
  const parts = insertSmallBlobSql("b", {
    tenantId: "b.tenant_id",
    id: "b.id",
    contentType: "b.content_type",
    byteCount: "b.byte_count",
    sha256: "decode(b.sha256, 'hex')",
    data: "decode(b.data, 'hex')",
    createdAt: "b.created_at",
  });
  await sql`WITH b AS (
      SELECT t.*, ${clock.now()}::timestamptz AS created_at
      FROM unnest(${inputs.map((i) => i.tenantId)}::uuid[], ${inputs.map((i) => i.id)}::uuid[],
        ${inputs.map((i) => i.contentType)}::text[], ${stored.map((s) => s.byteCount)}::bigint[],
        ${stored.map((s) => s.sha256.toString("hex"))}::text[], ${bytes.map((b) => b.toString("hex"))}::text[])
        AS t(tenant_id, id, content_type, byte_count, sha256, data)
    ), blob AS (${sql.raw(parts.blob)}), chunk AS (${sql.raw(parts.chunk)})
    SELECT count(*) FROM b`.execute(trx);
  return stored;
}

export async function findBlob(db: Executor, tenantId: string, id: string) {
  return tables(db)
    .selectFrom("blobs")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function deleteBlob(db: Executor, tenantId: string, id: string): Promise<void> {
  const t = tables(db);
  await t.deleteFrom("blob_chunks").where("tenant_id", "=", tenantId).where("blob_id", "=", id).execute();
  await t.deleteFrom("blobs").where("tenant_id", "=", tenantId).where("id", "=", id).execute();
}

/**
 * Removes up to `limit` blobs a crashed process left pending (a stream that never finished),
 * chunks first, so a sweep interrupted in between leaves a pending row that the next one takes.
 */
export async function deleteStalePendingBlobs(db: Executor, olderThan: Date, limit = 100): Promise<number> {
  const stale = await tables(db)
    .selectFrom("blobs")
    .select(["tenant_id", "id"])
    .where("state", "=", "pending")
    .where("created_at", "<", olderThan)
    .orderBy("created_at")
    .limit(limit)
    .execute();
  for (const blob of stale) await deleteBlob(db, blob.tenant_id, blob.id);
  return stale.length;
}
