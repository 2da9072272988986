import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/test-database.js";
import { systemClock } from "../clock/clock.js";
import { readBlob, readBlobBytes, readBlobsBytes, writeBlobStream } from "./blob-store.js";

/** Reading stored blobs back (binary COPY, in batches), on the database the suite runs against. */
describe("blob store reads", () => {
  let test: TestDatabase;
  const tenantId = randomUUID();
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.drop();
  });

  /** Stores `bytes` in chunks of `chunkBytes`; answers the blob id. */
  const store = async (bytes: Buffer, chunkBytes: number) => {
    const id = randomUUID();
    await writeBlobStream(test.database.db, systemClock, {
      tenantId,
      id,
      contentType: "application/octet-stream",
      source: (async function* () {
        yield bytes;
      })(),
      maxBytes: bytes.length,
      chunkBytes,
      prepared: test.database.prepared,
    });
    return id;
  };
  const pattern = (length: number) => Buffer.from(Array.from({ length }, (_, i) => (i * 7) % 256));
  const chunksOf = async (id: string, batch: number) => {
    const chunks: Buffer[] = [];
    for await (const chunk of readBlob(test.database, tenantId, id, { batch })) chunks.push(chunk);
    return chunks;
  };

  it("reads every chunk in order, the byte-exact blob, whether or not the chunks fill the last batch", async () => {
    for (const [length, batch] of [
      [1000, 4], // 10 chunks: batches of 4, 4, 2
      [800, 4], // 8 chunks: two full batches, then an empty one
      [50, 4], // one short chunk
    ] as const) {
      const bytes = pattern(length);
      const id = await store(bytes, 100);
      const chunks = await chunksOf(id, batch);
      expect(chunks.map((c) => c.length)).toEqual(
        Array.from({ length: Math.ceil(length / 100) }, (_, i) => Math.min(100, length - i * 100)),
      );
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
      expect((await readBlobBytes(test.database, tenantId, id)).equals(bytes)).toBe(true);
    }
  });

  it("reads several whole blobs in one statement, each byte-exact; an unknown one as no bytes", async () => {
    const [one, two] = [pattern(1000), pattern(50).reverse()];
    const ids = [await store(one, 100), await store(two, 100), randomUUID()];
    const read = await readBlobsBytes(
      test.database,
      ids.map((id) => ({ tenantId, id })),
    );
    expect([...read.keys()]).toEqual(ids);
    expect(read.get(ids[0] ?? "")?.equals(one)).toBe(true);
    expect(read.get(ids[1] ?? "")?.equals(two)).toBe(true);
    expect(read.get(ids[2] ?? "")?.length).toBe(0);
  });

  it("reads nothing of an unknown blob, and another tenant's blob is unknown", async () => {
    const id = await store(pattern(300), 100);
    expect(await chunksOf(randomUUID(), 4)).toEqual([]);
    const chunks: Buffer[] = [];
    for await (const chunk of readBlob(test.database, randomUUID(), id)) chunks.push(chunk);
    expect(chunks).toEqual([]);
  });

  it("fails on a missing chunk instead of answering a blob with a hole", async () => {
    const id = await store(pattern(1000), 100);
    await sql`DELETE FROM blob_chunks WHERE tenant_id = ${tenantId}::uuid AND blob_id = ${id}::uuid AND seq = 5`.execute(
      test.database.db,
    );
    await expect(chunksOf(id, 4)).rejects.toThrow("blob chunk missing");
    const whole = await store(pattern(300), 100);
    await expect(
      readBlobsBytes(
        test.database,
        [id, whole].map((blob) => ({ tenantId, id: blob })),
      ),
    ).rejects.toThrow("blob chunk missing");
  });

  it("refuses ids that are not UUIDs before any statement (COPY takes no parameters)", async () => {
    await expect(chunksOf("x' OR '1'='1", 4)).rejects.toThrow(TypeError);
  });
});

/** Writing with several chunk statements in flight, on the database the suite runs against. */
describe("blob store writes", () => {
  let test: TestDatabase;
  const tenantId = randomUUID();
  beforeAll(async () => {
    test = await createTestDatabase();
    // Chunk 6 of any blob fails, as a full disk or a lost connection would.
    await sql
      .raw(
        `CREATE FUNCTION test_fail_chunk() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.seq = 6 AND get_byte(NEW.data, 0) = 255 THEN RAISE EXCEPTION 'chunk 6 refused'; END IF;
          RETURN NEW;
        END $$`,
      )
      .execute(test.database.db);
    await sql
      .raw(
        `CREATE TRIGGER test_fail_chunk BEFORE INSERT ON blob_chunks
          FOR EACH ROW EXECUTE FUNCTION test_fail_chunk()`,
      )
      .execute(test.database.db);
  });
  afterAll(async () => {
    await test.drop();
  });

  /** The bytes as a client sends them: in parts that do not line up with the chunks. */
  async function* parts(bytes: Buffer, size: number) {
    for (let at = 0; at < bytes.length; at += size) {
      await new Promise((resolve) => setImmediate(resolve));
      yield bytes.subarray(at, at + size);
    }
  }
  const write = (id: string, bytes: Buffer) =>
    writeBlobStream(test.database.db, systemClock, {
      tenantId,
      id,
      contentType: "application/octet-stream",
      source: parts(bytes, 37),
      maxBytes: bytes.length,
      chunkBytes: 100,
      prepared: test.database.prepared,
      writesInFlight: 3,
    });
  const rows = async (id: string) => {
    const blobs = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM blobs WHERE id = ${id}::uuid`.execute(test.database.db);
    const chunks = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM blob_chunks WHERE blob_id = ${id}::uuid`.execute(test.database.db);
    return { blobs: blobs.rows[0]?.n, chunks: chunks.rows[0]?.n };
  };

  it("stores every chunk in its place while several are written at once", async () => {
    const bytes = Buffer.from(Array.from({ length: 2050 }, (_, i) => (i * 13) % 251));
    const id = randomUUID();
    const stored = await write(id, bytes);
    expect(stored.byteCount).toBe(2050);
    expect(await readBlobBytes(test.database, tenantId, id)).toEqual(bytes);
    expect(await rows(id)).toEqual({ blobs: 1, chunks: 21 });
  });

  it("fails the stream when a chunk's statement fails, and leaves no blob row and no chunk", async () => {
    const bytes = Buffer.alloc(2050, 255);
    const id = randomUUID();
    await expect(write(id, bytes)).rejects.toThrow("chunk 6 refused");
    expect(await rows(id)).toEqual({ blobs: 0, chunks: 0 });
  });
});
