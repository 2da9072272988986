import { Readable } from "node:stream";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  partnerUrl,
  setupPartner,
  streamUpload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { overHttp } from "../support/http-injector.js";
import { createTenantAcross } from "../support/multiprocess-tenant.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { createTestDatabase, onPostgres, type TestDatabase } from "../support/test-database.js";
import { waitUntil } from "../support/wait-until.js";

/*
 * Issue 31 item 2: the limits hold across processes. Two (for the crash, three) real server
 * processes on one PostgreSQL database, requests alternating between them: what one process
 * counted, the other counts on. With the limits kept per process, every test here fails (each
 * process would allow its own share).
 */
const token = "limits-multiprocess-bootstrap-token-0123456789";
const burst = 20;
const password = "correct horse battery staple";

describe.skipIf(!onPostgres)("limits across API processes (PostgreSQL)", () => {
  let db: TestDatabase;
  let dir: string;
  const servers: ServerProcess[] = [];
  let a: ServerProcess;
  let b: ServerProcess;
  let tenant: { slug: string; email: string; token: string };

  const start = (name: string) =>
    startServerProcess({
      DATABASE_URL: db.url,
      HOST: "127.0.0.1",
      HANSE_BOOTSTRAP_TOKEN: token,
      HANSE_DATA_DIR: join(dir, name),
      HANSE_JOB_POLL_MS: "50",
      HANSE_PARTNER_RATE_LIMIT_BURST: String(burst),
      HANSE_PARTNER_RATE_LIMIT_PER_SECOND: "1",
      HANSE_PARTNER_MAX_CONCURRENT_UPLOADS: "2",
    }).then((server) => {
      servers.push(server);
      return server;
    });

  const json = async (response: Response) => (await response.json()) as Record<string, unknown>;
  const leases = async (prefix: string) =>
    (
      await sql<{ n: number }>`SELECT count(*)::int AS n FROM limit_leases
        WHERE name LIKE ${`${prefix}%`} AND expires_at > now()`.execute(db.database.db)
    ).rows[0]?.n ?? 0;

  /** A body that streams its first bytes and holds the rest until `finish` (chunked: never the one-statement path). */
  function slowBody(bytes: Buffer) {
    const stream = new Readable({ read() {} });
    stream.push(bytes.subarray(0, 100));
    return {
      stream,
      finish: () => {
        stream.push(bytes.subarray(100));
        stream.push(null);
      },
    };
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    dir = await mkdtemp(join(tmpdir(), "hanse-limits-mp-"));
    // One after the other: the first start creates the system tenant.
    a = await start("a");
    b = await start("b");
    tenant = await createTenantAcross(a, b, token, { name: "Limits", prefix: "limits", password });
  }, 240_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const newPartner = (): Promise<PartnerSetup> =>
    setupPartner(
      overHttp(() => a.url),
      tenant.token,
    );
  const mailbox = (server: ServerProcess, p: PartnerSetup) =>
    fetch(`${server.url}${partnerUrl(p.connectionId, "/mailbox")}`, {
      headers: { authorization: `Bearer ${p.token}` },
    });

  it("the partner rate limit counts the requests of both processes: 429 with Retry-After once their sum passes the burst", async () => {
    const p = await newPartner();
    const startedAt = Date.now();
    const answers: { status: number; retryAfter: string | null; code: unknown; via: string }[] = [];
    for (let i = 0; i < burst + 10; i++) {
      const server = i % 2 === 0 ? a : b;
      const response = await mailbox(server, p);
      answers.push({
        status: response.status,
        retryAfter: response.headers.get("retry-after"),
        code: response.status === 429 ? (await json(response)).code : (await response.text(), undefined),
        via: server === a ? "a" : "b",
      });
    }
    const seconds = Math.ceil((Date.now() - startedAt) / 1000);
    // Each process alone saw 15 requests, fewer than its burst: only the shared count refuses.
    expect(answers.slice(0, burst).map((x) => x.status)).toEqual(Array(burst).fill(200));
    const allowed = answers.filter((x) => x.status === 200).length;
    // One request a second refills: at most that many more than the burst went through.
    expect(allowed).toBeLessThanOrEqual(burst + seconds);
    const refused = answers.filter((x) => x.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused.map((x) => x.via))).toEqual(new Set(["a", "b"]));
    for (const x of refused) {
      expect(x.code).toBe("ERR_B2B_EXCHANGE_RATE_LIMITED");
      expect(x.retryAfter).toBe("1");
    }
  });

  it("a revoked partner API key is refused by the other process at once", async () => {
    const p = await newPartner();
    expect((await mailbox(b, p)).status).toBe(200);
    const revoked = await fetch(`${a.url}/api/v1/admin/api-keys/${p.apiKeyId}/revoke`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.token}` },
    });
    expect(revoked.status).toBe(200);
    expect((await mailbox(b, p)).status).toBe(401);
    expect((await mailbox(a, p)).status).toBe(401);
  });

  it("the sign-in throttle counts the failures of both processes: the eleventh from one address is 429 with Retry-After", async () => {
    const signIn = (server: ServerProcess, pw: string) =>
      fetch(`${server.url}/api/v1/auth/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ tenant: tenant.slug, email: tenant.email, password: pw }),
      });
    for (let i = 0; i < 10; i++) {
      expect((await signIn(i % 2 === 0 ? a : b, "Wr0ng-p4ssword-guess")).status).toBe(401);
    }
    for (const server of [a, b]) {
      const limited = await signIn(server, "Wr0ng-p4ssword-guess");
      expect(limited.status).toBe(429);
      // 30 s after the tenth failure (real time passes between the requests).
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(25);
      expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(30);
      expect((await json(limited)).code).toBe("ERR_RATE_LIMITED");
      // The address that failed learns nothing more, even with the right password.
      expect((await signIn(server, password)).status).toBe(429);
    }
  });

  it("the uploads one API key streams at once are bounded across processes (HANSE_PARTNER_MAX_CONCURRENT_UPLOADS=2)", async () => {
    const p = await newPartner();
    const slow = [slowBody(Buffer.from(validOrders("MP1"))), slowBody(Buffer.from(validOrders("MP2")))];
    const streaming = [
      streamUpload(a.url, p, slow[0]?.stream ?? Buffer.alloc(0), "mp-stream-1"),
      streamUpload(b.url, p, slow[1]?.stream ?? Buffer.alloc(0), "mp-stream-2"),
    ];
    await waitUntil(async () => (await leases("upload-streams:")) === 2, { what: "two streams leased" });
    for (const server of [a, b]) {
      // Streamed (no Content-Length), as the two before it.
      const third = await streamUpload(
        server.url,
        p,
        Readable.from([Buffer.from(validOrders("MP3"))]),
        "mp-stream-3",
      );
      expect(third.statusCode).toBe(429);
      expect(third.headers["retry-after"]).toBe("1");
      expect(((await third.body.json()) as { code: string }).code).toBe("ERR_B2B_EXCHANGE_RATE_LIMITED");
    }
    for (const body of slow) body.finish();
    const finished = await Promise.all(streaming);
    expect(finished.map((r) => r.statusCode)).toEqual([202, 202]);
    await Promise.all(finished.map((r) => r.body.dump()));
    expect(await leases("upload-streams:")).toBe(0);
    const later = await streamUpload(b.url, p, Buffer.from(validOrders("MP3")), "mp-stream-3");
    expect(later.statusCode).toBe(202);
    await later.body.dump();
  });

  it("a retry on the other process while the first upload with its key still streams waits for it, then replays it (rules/contract §4)", async () => {
    const p = await newPartner();
    const bytes = Buffer.from(validOrders("MP-RETRY"));
    const first = slowBody(bytes);
    const firstAnswer = streamUpload(a.url, p, first.stream, "mp-retry");
    await waitUntil(async () => (await leases("upload-key:")) === 1, {
      what: "the first upload's key lease",
    });
    let retrySettled = false;
    const retryAnswer = streamUpload(b.url, p, Readable.from([bytes]), "mp-retry").finally(() => {
      retrySettled = true;
    });
    // The retry has its stream slot and waits for the key the first upload holds.
    await waitUntil(async () => (await leases("upload-streams:")) === 2, {
      what: "the retry's stream lease",
    });
    expect(retrySettled).toBe(false);
    first.finish();
    const [one, two] = await Promise.all([firstAnswer, retryAnswer]);
    const [created, replayed] = (await Promise.all([one.body.json(), two.body.json()])) as {
      uploadId: string;
      replay: boolean;
    }[];
    expect(one.statusCode).toBe(202);
    expect(two.statusCode).toBe(200);
    expect(two.headers["idempotent-replayed"]).toBe("true");
    expect(replayed?.uploadId).toBe(created?.uploadId);
    expect(replayed?.replay).toBe(true);
  });

  it("a process killed while it streams holds no stream slot for ever: its lease expires and the slot is free again", async () => {
    const c = await start("c");
    const p = await newPartner();
    const slow = [slowBody(Buffer.from(validOrders("K1"))), slowBody(Buffer.from(validOrders("K2")))];
    const pending = slow.map((body, i) =>
      request(`${c.url}${partnerUrl(p.connectionId, "/inbox")}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${p.token}`,
          "content-type": "application/edifact",
          "idempotency-key": `killed-${String(i)}`,
        },
        body: body.stream,
      }).catch(() => undefined),
    );
    await waitUntil(async () => (await leases("upload-streams:")) === 2, { what: "two streams on c" });
    await c.stop("SIGKILL");
    await Promise.all(pending);
    const afterKill = async () => {
      const answer = await streamUpload(
        a.url,
        p,
        Readable.from([Buffer.from(validOrders("K3"))]),
        "after-kill",
      );
      await answer.body.dump();
      return answer.statusCode;
    };
    expect(await afterKill()).toBe(429);
    // The leases of the dead process expire (30 s) instead of holding the key's slots for ever.
    await waitUntil(async () => (await leases("upload-streams:")) === 0, {
      what: "the dead process's leases to expire",
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    expect(await afterKill()).toBe(202);
  }, 120_000);
});
