import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Clock } from "../clock/clock.js";
import type { BlobTables } from "./blobs.tables.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Executor = Kysely<any>;
const tables = (db: Executor) => db as Kysely<BlobTables>;

/** Chunk size of stored blobs: bounds the memory a stream holds at once. */
export const defaultChunkBytes = 1024 * 1024;

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
}

const asBuffer = (value: Uint8Array): Buffer => Buffer.from(value.buffer, value.byteOffset, value.byteLength);

/**
 * Streams `source` into `blob_chunks` while counting and hashing it. Every chunk is its own
 * statement (no long transaction holds the connection while a client sends); the blob row is
 * `pending` until the last chunk is written. Any failure (the limit, a reset client, the
 * database) deletes what was written and rethrows.
 */
export async function writeBlobStream(
  db: Executor,
  clock: Clock,
  input: WriteBlobInput,
): Promise<StoredBlob> {
  const store = input.store !== false;
  const chunkBytes = input.chunkBytes ?? defaultChunkBytes;
  const hash = createHash("sha256");
  let total = 0;
  let seq = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const t = tables(db);
  if (store) {
    await t
      .insertInto("blobs")
      .values({
        tenant_id: input.tenantId,
        id: input.id,
        state: "pending",
        content_type: input.contentType,
        byte_count: 0,
        sha256: null,
        chunk_count: 0,
        created_at: clock.now(),
      })
      .execute();
  }
  const flush = async (all: boolean) => {
    while (pendingBytes >= chunkBytes || (all && pendingBytes > 0)) {
      const joined = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending);
      const data = joined.subarray(0, Math.min(chunkBytes, joined.length));
      const rest = joined.subarray(data.length);
      pending = rest.length > 0 ? [rest] : [];
      pendingBytes = rest.length;
      if (store) {
        await t
          .insertInto("blob_chunks")
          .values({ tenant_id: input.tenantId, blob_id: input.id, seq, data: Buffer.from(data) })
          .execute();
      }
      seq++;
    }
  };
  try {
    for await (const part of input.source) {
      const bytes = typeof part === "string" ? Buffer.from(part, "utf8") : asBuffer(part);
      total += bytes.length;
      if (total > input.maxBytes) throw new BlobTooLargeError(input.maxBytes);
      hash.update(bytes);
      input.observe?.(bytes);
      if (!store) continue;
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes >= chunkBytes) await flush(false);
    }
    await flush(true);
    const sha256 = hash.digest();
    if (store) {
      await t
        .updateTable("blobs")
        .set({ state: "complete", byte_count: total, sha256, chunk_count: seq })
        .where("tenant_id", "=", input.tenantId)
        .where("id", "=", input.id)
        .execute();
    }
    return { id: input.id, byteCount: total, sha256 };
  } catch (error) {
    if (store) await deleteBlob(db, input.tenantId, input.id).catch(() => undefined);
    throw error;
  }
}

/** Writes a small blob (an outbound interchange) inside the caller's transaction. */
export async function writeBlob(
  trx: Executor,
  clock: Clock,
  input: { tenantId: string; id: string; contentType: string; bytes: Uint8Array; chunkBytes?: number },
): Promise<StoredBlob> {
  const chunkBytes = input.chunkBytes ?? defaultChunkBytes;
  const bytes = asBuffer(input.bytes);
  const sha256 = createHash("sha256").update(bytes).digest();
  const t = tables(trx);
  let seq = 0;
  for (let offset = 0; offset < bytes.length; offset += chunkBytes) {
    await t
      .insertInto("blob_chunks")
      .values({
        tenant_id: input.tenantId,
        blob_id: input.id,
        seq: seq++,
        data: Buffer.from(bytes.subarray(offset, offset + chunkBytes)),
      })
      .execute();
  }
  await t
    .insertInto("blobs")
    .values({
      tenant_id: input.tenantId,
      id: input.id,
      state: "complete",
      content_type: input.contentType,
      byte_count: bytes.length,
      sha256,
      chunk_count: seq,
      created_at: clock.now(),
    })
    .execute();
  return { id: input.id, byteCount: bytes.length, sha256 };
}

/**
 * Streams a blob's chunks in order, a few at a time, so memory stays bounded whatever its size.
 * The caller hashes what it receives: a damaged chunk shows as a hash mismatch.
 */
export async function* readBlob(
  db: Executor,
  tenantId: string,
  id: string,
  options: { batch?: number } = {},
): AsyncGenerator<Buffer> {
  const batch = options.batch ?? 2;
  const t = tables(db);
  let next = 0;
  for (;;) {
    const rows = await t
      .selectFrom("blob_chunks")
      .select(["seq", "data"])
      .where("tenant_id", "=", tenantId)
      .where("blob_id", "=", id)
      .where("seq", ">=", next)
      .orderBy("seq")
      .limit(batch)
      .execute();
    for (const row of rows) {
      if (row.seq !== next) throw new Error("blob chunk missing");
      next++;
      yield asBuffer(row.data);
    }
    if (rows.length < batch) return;
  }
}

/** The whole blob in one buffer (bounded by the write limit; the EDIFACT engine takes bytes). */
export async function readBlobBytes(db: Executor, tenantId: string, id: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of readBlob(db, tenantId, id, { batch: 16 })) parts.push(chunk);
  return Buffer.concat(parts);
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

/** Removes blobs a crashed process left pending (a stream that never finished). */
export async function deleteStalePendingBlobs(db: Executor, olderThan: Date): Promise<number> {
  const stale = await tables(db)
    .selectFrom("blobs")
    .select(["tenant_id", "id"])
    .where("state", "=", "pending")
    .where("created_at", "<", olderThan)
    .limit(100)
    .execute();
  for (const blob of stale) await deleteBlob(db, blob.tenant_id, blob.id);
  return stale.length;
}
