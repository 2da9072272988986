import { connect } from "node:net";
import { Readable } from "node:stream";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import { inProcessOnly, ownDatabaseOnly } from "../support/remote-app.js";
import { onPostgres } from "../support/test-database.js";
import { waitUntil } from "../support/wait-until.js";
import {
  partnerUrl,
  setupPartner,
  streamUpload,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";

// Skipped in the remote mode (test/support/remote-app.ts), each printing why:
const readsLogs = inProcessOnly("reads the server's log lines");
const readsStored = ownDatabaseOnly("reads the stored payload and its chunks' compression in its database");
const countsStored = ownDatabaseOnly(
  "counts the uploads, blobs, chunks and jobs in its database (nothing stored)",
);

const MiB = 1024 * 1024;
let t: TestApp;
let tenant: ProvisionedTenant;
let p: PartnerSetup;
let base: string;

const count = async (table: string) => {
  const result = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(
    t.container.database.db,
  );
  return result.rows[0]?.n ?? 0;
};
/** Processing jobs enqueued for uploads: exactly one per upload. */
const processingJobs = async () =>
  (
    await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM jobs WHERE name = 'exchange.process-upload'`.execute(
      t.container.database.db,
    )
  ).rows[0]?.n ?? 0;
const stored = async () => ({
  uploads: await count("exchange_uploads"),
  blobs: await count("blobs"),
  chunks: await count("blob_chunks"),
  jobs: await count("jobs"),
});
const problem = (r: { json: () => unknown }) => r.json() as { code: string; status: number };

/** An upload over the real port (undici), for bodies that stream or must not be buffered. */
const sendUpload = (body: Buffer | Readable, key: string) => streamUpload(base, p, body, key);

/** An interchange of exactly `size` bytes: a valid ORDERS padded with a long FTX-free comment-free layout (line breaks). */
function interchangeOfSize(size: number, ref = "BIG"): Buffer {
  const head = validOrders(ref);
  const unz = head.lastIndexOf("UNZ");
  // Line breaks after a segment terminator are layout (ignored by the engine and the scanner).
  const padding = size - head.length;
  if (padding < 0) throw new Error("too small");
  return Buffer.concat([
    Buffer.from(head.slice(0, unz)),
    Buffer.alloc(padding, "\n"),
    Buffer.from(head.slice(unz)),
  ]);
}

beforeAll(async () => {
  t = await createTestApp();
  tenant = await provisionTenant(t);
  p = await setupPartner(t, tenant.token);
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await t.close();
});

describe("POST /inbox — rules/interface A row: 202 on first complete upload, 200 with replay true on replay", () => {
  it("202 first, 200 replay:true with Idempotent-Replayed and the same uploadId, 409 for other bytes", async ({
    skip,
  }) => {
    skip(countsStored);
    const first = await upload(t, p, validOrders("R1"), "replay-1");
    expect(first.statusCode).toBe(202);
    const body = first.json<{ uploadId: string; interchangeId: string; status: string; replay: boolean }>();
    expect(body).toEqual({ uploadId: body.uploadId, interchangeId: "R1", status: "received", replay: false });
    const again = await upload(t, p, validOrders("R1"), "replay-1");
    expect(again.statusCode).toBe(200);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json()).toMatchObject({ uploadId: body.uploadId, replay: true, status: "received" });
    await t.drainJobs();
    const later = await upload(t, p, validOrders("R1"), "replay-1");
    expect(later.json()).toMatchObject({ uploadId: body.uploadId, replay: true, status: "processed" });
    const before = await stored();
    const other = await upload(t, p, validOrders("R2"), "replay-1");
    expect(other.statusCode).toBe(409);
    expect(problem(other).code).toBe("ERR_B2B_EXCHANGE_CONFLICT");
    expect(await stored()).toEqual(before);
  });

  it("Limits row: the key binding is (tenant, connection) — the same key on another connection is a new upload", async () => {
    const other = await setupPartner(t, tenant.token, { partnerId: p.partnerId });
    const a = await upload(t, p, validOrders("B1"), "bound-key");
    const b = await upload(
      t,
      { connectionId: other.connectionId, token: p.token },
      validOrders("B1"),
      "bound-key",
    );
    expect(a.statusCode).toBe(202);
    expect(b.statusCode).toBe(202);
    expect(a.json<{ uploadId: string }>().uploadId).not.toBe(b.json<{ uploadId: string }>().uploadId);
  });

  it("the payload is stored as application/edifact with unchanged bytes", async ({ skip }) => {
    skip(readsStored);
    const bytes = Buffer.from(validOrders("RAW"), "latin1");
    const r = await upload(t, p, bytes, "raw-bytes", "application/octet-stream");
    expect(r.statusCode).toBe(202);
    const { uploadId } = r.json<{ uploadId: string }>();
    const row = await sql<{ content_type: string; blob_id: string }>`
      SELECT b.content_type, b.id AS blob_id FROM exchange_uploads u JOIN blobs b ON b.id = u.blob_id AND b.tenant_id = u.tenant_id
      WHERE u.id = ${uploadId}`.execute(t.container.database.db);
    expect(row.rows[0]?.content_type).toBe("application/edifact");
    const chunks = await sql<{
      data: Uint8Array;
    }>`SELECT data FROM blob_chunks WHERE blob_id = ${row.rows[0]?.blob_id} ORDER BY seq`.execute(
      t.container.database.db,
    );
    expect(Buffer.concat(chunks.rows.map((c) => Buffer.from(c.data))).equals(bytes)).toBe(true);
  });

  it("blob chunks are compressed with lz4 on PostgreSQL (pglz stays on PGlite, which has no lz4)", async ({
    skip,
  }) => {
    skip(readsStored);
    const column = await sql<{ compression: string }>`
      SELECT attcompression::text AS compression FROM pg_attribute
      WHERE attrelid = 'blob_chunks'::regclass AND attname = 'data'`.execute(t.container.database.db);
    // "l": lz4; "": the server's default (pglz).
    expect(column.rows[0]?.compression).toBe(onPostgres ? "l" : "");
  });
});

describe("POST /inbox — bad input: 400 ERR_B2B_EXCHANGE_INVALID_REQUEST and nothing created", () => {
  const cases: [string, () => Promise<{ statusCode: number; json: () => unknown }>][] = [
    ["Content-Type text/plain", () => upload(t, p, validOrders("X"), "ct-1", "text/plain")],
    ["Content-Type application/json", () => upload(t, p, validOrders("X"), "ct-2", "application/json")],
    [
      "Idempotency-Key missing",
      () =>
        t.inject({
          method: "POST",
          url: partnerUrl(p.connectionId, "/inbox"),
          headers: { authorization: `Bearer ${p.token}`, "content-type": "application/edifact" },
          payload: validOrders("X"),
        }),
    ],
    ["Idempotency-Key of 201 characters", () => upload(t, p, validOrders("X"), "k".repeat(201))],
    ["Idempotency-Key with a space", () => upload(t, p, validOrders("X"), "bad key")],
    ["Idempotency-Key with a slash", () => upload(t, p, validOrders("X"), "bad/key")],
    ["empty body", () => upload(t, p, "", "empty")],
    ["body not starting with UNA/UNB", () => upload(t, p, `UNH+1+ORDERS:D:96A:UN'UNT+2+1'`, "no-unb")],
    ["two interchanges", () => upload(t, p, validOrders("A") + validOrders("B"), "two")],
    ["no UNZ", () => upload(t, p, validOrders("A").replace(/UNZ\+1\+A'$/, ""), "no-unz")],
    ["random bytes", () => upload(t, p, Buffer.from([0, 1, 2, 3, 255, 254]), "random")],
  ];
  for (const [name, send] of cases) {
    it(name, async ({ skip }) => {
      skip(countsStored);
      const before = await stored();
      const r = await send();
      expect(r.statusCode).toBe(400);
      expect(problem(r).code).toBe("ERR_B2B_EXCHANGE_INVALID_REQUEST");
      expect(await stored()).toEqual(before);
    });
  }

  it("Limits row: an Idempotency-Key of exactly 200 allowed characters is accepted", async () => {
    const r = await upload(t, p, validOrders("K200"), `${"a".repeat(195)}.:_-9`);
    expect(r.statusCode).toBe(202);
  });

  it("a rejected key stays free: after a 400 the same key uploads", async () => {
    expect((await upload(t, p, "garbage", "free-after-400")).statusCode).toBe(400);
    expect((await upload(t, p, validOrders("F1"), "free-after-400")).statusCode).toBe(202);
  });
});

describe("Limits row: payload size 16 MiB (real port)", () => {
  it("16 MiB exactly is accepted", async () => {
    const r = await sendUpload(interchangeOfSize(16 * MiB, "EXACT"), "exact-16");
    expect(r.statusCode).toBe(202);
    await r.body.json();
  });

  it("16 MiB + 1 byte is 413 ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE, then the connection closes, nothing stored, key free", async ({
    skip,
  }) => {
    skip(countsStored);
    const before = await stored();
    const r = await sendUpload(interchangeOfSize(16 * MiB + 1, "OVER"), "over-16");
    expect(r.statusCode).toBe(413);
    expect(r.headers.connection).toBe("close");
    const body = (await r.body.json()) as { code: string };
    expect(body.code).toBe("ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE");
    expect(await stored()).toEqual(before);
    const retry = await sendUpload(interchangeOfSize(1000, "OVER"), "over-16");
    expect(retry.statusCode).toBe(202);
    await retry.body.json();
  });

  it("a chunked body (no Content-Length) over 16 MiB is cut off while reading: 413, nothing stored", async ({
    skip,
  }) => {
    skip(countsStored);
    const before = await stored();
    const big = interchangeOfSize(16 * MiB + 1, "CHUNKED");
    async function* chunks() {
      for (let i = 0; i < big.length; i += 1 << 20) yield big.subarray(i, i + (1 << 20));
    }
    const r = await sendUpload(Readable.from(chunks()), "chunked-over");
    expect(r.statusCode).toBe(413);
    expect(((await r.body.json()) as { code: string }).code).toBe("ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE");
    expect(await stored()).toEqual(before);
  });
});

describe("interrupted upload", () => {
  it("a client that disconnects mid-body stores nothing and leaves its key free (logged as info, not an error)", async ({
    skip,
  }) => {
    skip(readsLogs);
    const before = await stored();
    const logsBefore = t.logs.length;
    const body = interchangeOfSize(4 * MiB, "CUT");
    const socket = connect(Number(new URL(base).port), "127.0.0.1");
    await new Promise<void>((resolve) =>
      socket.once("connect", () => {
        resolve();
      }),
    );
    socket.write(
      `POST ${partnerUrl(p.connectionId, "/inbox")} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${p.token}\r\n` +
        `Content-Type: application/edifact\r\nIdempotency-Key: cut-key\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, 1024 * 1024));
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();
    await waitUntil(async () => JSON.stringify(await stored()) === JSON.stringify(before), {
      what: "the cut upload's chunks to be deleted",
      timeoutMs: 20_000,
    }).catch(() => undefined);
    expect(await stored()).toEqual(before);
    await waitUntil(async () => t.logs.slice(logsBefore).some((l) => l.includes("request body ended")), {
      what: "the cut upload's log line",
      timeoutMs: 20_000,
    }).catch(() => undefined);
    const lines = t.logs.slice(logsBefore).map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.map((l) => l.msg)).toContain(
      "the client closed the connection before its request body ended",
    );
    const retry = await upload(t, p, validOrders("CUT"), "cut-key");
    expect(retry.statusCode).toBe(202);
  });
  it("issue 20 defect 6: uploads cut off mid-stream (reset, half-closed, chunked; at several points; at once) leave no blob, no chunk and their keys free", async ({
    skip,
  }) => {
    skip(countsStored);
    const before = await stored();
    const body = interchangeOfSize(6 * MiB, "CUTS");
    const cuts = [1 * MiB + 10, 1 * MiB + 700 * 1024, 2 * MiB + 1, 3 * MiB + 5, 5 * MiB];
    const sockets = await Promise.all(
      cuts.flatMap((cut, i) =>
        (["reset", "half-close", "chunked"] as const).map(async (how) => {
          const key = `cut-${i}-${how}`;
          const framing = how === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${body.length}`;
          const part = body.subarray(0, cut);
          const socket = connect(Number(new URL(base).port), "127.0.0.1");
          socket.on("error", () => undefined);
          await new Promise<void>((resolve) => {
            socket.once("connect", () => {
              resolve();
            });
          });
          socket.write(
            `POST ${partnerUrl(p.connectionId, "/inbox")} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${p.token}\r\n` +
              `Content-Type: application/edifact\r\nIdempotency-Key: ${key}\r\n${framing}\r\n\r\n`,
          );
          // A chunked body announces a chunk longer than what is sent before the cut.
          if (how === "chunked") socket.write(`${(part.length + 4096).toString(16)}\r\n`);
          await new Promise<void>((resolve) => {
            socket.write(part, () => {
              resolve();
            });
          });
          return { socket, how, key };
        }),
      ),
    );
    // Let the server store what arrived (its first chunks), then cut every stream.
    await waitUntil(async () => (await stored()).chunks > before.chunks, {
      what: "chunks of the cut uploads",
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const { socket, how } of sockets) {
      if (how === "half-close") socket.end();
      else socket.resetAndDestroy();
    }
    // Chunks and blob rows are deleted by separate statements: wait for both.
    await waitUntil(async () => JSON.stringify(await stored()) === JSON.stringify(before), {
      what: "the cut uploads' blobs and chunks to be deleted",
      timeoutMs: 20_000,
    }).catch(() => undefined);
    expect(await stored()).toEqual(before);
    for (const { key } of sockets) {
      expect((await upload(t, p, validOrders(key.replace(/[^A-Za-z0-9]/g, "")), key)).statusCode).toBe(202);
    }
  });
});

describe("concurrent retries", () => {
  it("small uploads arriving together share accept statements, and each gets its own answer", async ({
    skip,
  }) => {
    skip(countsStored);
    const sibling = await setupPartner(t, tenant.token, { partnerId: p.partnerId });
    const stranger = await setupPartner(t, tenant.token);
    const revoked = await setupPartner(t, tenant.token, { partnerId: p.partnerId });
    const rv = await t.inject({
      method: "POST",
      url: `/api/v1/admin/api-keys/${revoked.apiKeyId}/revoke`,
      headers: { authorization: `Bearer ${tenant.token}` },
    });
    expect(rv.statusCode).toBe(200);
    expect((await upload(t, p, validOrders("KN"), "burst-known")).statusCode).toBe(202);
    const before = await stored();
    const calls: [string, Promise<{ statusCode: number; json: () => unknown }>][] = [
      ...Array.from(
        { length: 12 },
        (_, i): [string, Promise<{ statusCode: number; json: () => unknown }>] => [
          "202",
          upload(
            t,
            i % 2 ? p : { connectionId: sibling.connectionId, token: p.token },
            validOrders(`BU${i}`),
            `burst-${i}`,
          ),
        ],
      ),
      ["200", upload(t, p, validOrders("KN"), "burst-known")],
      ["409", upload(t, p, validOrders("KX"), "burst-known")],
      ["401", upload(t, revoked, validOrders("RV"), "burst-revoked")],
      [
        "404",
        upload(
          t,
          { connectionId: stranger.connectionId, token: p.token },
          validOrders("ST"),
          "burst-stranger",
        ),
      ],
      [
        "401",
        upload(
          t,
          { connectionId: p.connectionId, token: `${p.token.slice(0, -2)}xx` },
          validOrders("WS"),
          "burst-wrong",
        ),
      ],
    ];
    const answers = await Promise.all(calls.map(async ([label, call]) => [label, await call] as const));
    for (const [label, answer] of answers) expect(answer.statusCode, label).toBe(Number(label));
    const ids = answers
      .filter(([label]) => label === "202")
      .map(([, a]) => (a.json() as { uploadId: string }).uploadId);
    expect(new Set(ids).size).toBe(12);
    const after = await stored();
    // Twelve new uploads, each with its blob, its one chunk and its processing job; nothing else.
    expect(after).toEqual({
      uploads: before.uploads + 12,
      blobs: before.blobs + 12,
      chunks: before.chunks + 12,
      jobs: before.jobs + 12,
    });
  });

  it("two concurrent uploads with the same key and bytes create one upload", async ({ skip }) => {
    skip(countsStored);
    const body = interchangeOfSize(2 * MiB, "CONC");
    const before = await count("exchange_uploads");
    const jobsBefore = await processingJobs();
    const send = () => sendUpload(body, "concurrent");
    const results = await Promise.all([send(), send(), send()]);
    const bodies = (await Promise.all(results.map((r) => r.body.json()))) as {
      uploadId: string;
      replay: boolean;
    }[];
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 200, 202]);
    expect(new Set(bodies.map((b) => b.uploadId)).size).toBe(1);
    expect(await count("exchange_uploads")).toBe(before + 1);
    expect(await processingJobs()).toBe(jobsBefore + 1);
    // Every blob belongs to an upload or an outbound delivery: the losers stored nothing.
    expect(await count("blobs")).toBe(
      (await count("exchange_uploads")) + (await count("exchange_deliveries")),
    );
  });
  it("rules/contract §4: a retry arriving while the first upload with its key is still streaming waits for it", async ({
    skip,
  }) => {
    skip(countsStored);
    for (const [label, retryBytes, retryStatus] of [
      ["same bytes", undefined, 200],
      ["other bytes", interchangeOfSize(2 * MiB, "OTHER"), 409],
    ] as const) {
      const key = `in-flight-${label.replace(" ", "-")}`;
      const first = interchangeOfSize(2 * MiB, "SLOW");
      const before = await count("exchange_uploads");
      const chunksBefore = await count("blob_chunks");
      // The first upload sends part of its body, then pauses while the retry is sent whole.
      const slow = new Readable({ read() {} });
      slow.push(first.subarray(0, MiB + 100));
      const send = (body: Buffer | Readable) => sendUpload(body, key);
      const finished: string[] = [];
      const original = send(slow).then(async (r) => {
        finished.push("original");
        return {
          status: r.statusCode,
          body: (await r.body.json()) as { uploadId: string; replay?: boolean },
        };
      });
      // Its first chunk stored, the first upload holds its key while it streams.
      await waitUntil(async () => (await count("blob_chunks")) > chunksBefore, {
        what: "the first upload streaming",
        timeoutMs: 20_000,
      });
      const retry = send(retryBytes ?? first).then(async (r) => {
        finished.push("retry");
        return { status: r.statusCode, body: (await r.body.json()) as { uploadId?: string; code?: string } };
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      slow.push(first.subarray(MiB + 100));
      slow.push(null);
      const [a, b] = await Promise.all([original, retry]);
      expect(finished, label).toEqual(["original", "retry"]);
      expect(a.status, label).toBe(202);
      expect(b.status, label).toBe(retryStatus);
      if (retryStatus === 200) expect(b.body.uploadId).toBe(a.body.uploadId);
      else expect(b.body.code).toBe("ERR_B2B_EXCHANGE_CONFLICT");
      expect(await count("exchange_uploads")).toBe(before + 1);
    }
  });

  it.runIf(onPostgres)("PostgreSQL: 8 concurrent same-key uploads still make one upload", async () => {
    const body = Buffer.from(validOrders("PG8"));
    const send = () => sendUpload(body, "pg-8");
    const jobsBefore = await processingJobs();
    const results = await Promise.all(Array.from({ length: 8 }, send));
    const bodies = (await Promise.all(results.map((r) => r.body.json()))) as { uploadId: string }[];
    expect(results.filter((r) => r.statusCode === 202)).toHaveLength(1);
    expect(new Set(bodies.map((b) => b.uploadId)).size).toBe(1);
    expect(await processingJobs()).toBe(jobsBefore + 1);
  });
});
