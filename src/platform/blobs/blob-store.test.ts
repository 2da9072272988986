import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/test-database.js";
import { systemClock } from "../clock/clock.js";
import { readBlob, readBlobBytes, writeBlobStream } from "./blob-store.js";

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
  });

  it("refuses ids that are not UUIDs before any statement (COPY takes no parameters)", async () => {
    await expect(chunksOf("x' OR '1'='1", 4)).rejects.toThrow(TypeError);
  });
});
