// remote mode: in-process only: mailbox lease and retry settings of its own
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { Command, CommanderError } from "commander";
import { sql } from "kysely";
import { request as undiciRequest } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerPartnerCommands } from "../../packages/client/src/cli/partner.command.js";
import {
  LocalStorageError,
  createPartnerClient,
  type RequestFn,
} from "../../packages/client/src/sdk/partner.js";
import { syncMailbox, type SyncEvent } from "../../packages/client/src/sdk/partner-sync.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import { waitUntil } from "../support/wait-until.js";
import {
  ordersMessage,
  setupPartner,
  upload,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";

let t: TestApp;
let tenant: ProvisionedTenant;
let base: string;
let counter = 0;

beforeAll(async () => {
  t = await createTestApp({
    env: { HANSE_MAILBOX_LEASE_SECONDS: "2", HANSE_MAILBOX_RETRY_BASE_SECONDS: "1" },
  });
  tenant = await provisionTenant(t);
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await t.close();
});

const db = () => t.container.database.db;
const outDir = () => mkdtempSync(join(tmpdir(), "hanse-sync-"));
const stored = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".edi"))
    .sort();

async function withEntries(n: number): Promise<PartnerSetup> {
  const p = await setupPartner(t, tenant.token);
  const messages = Array.from({ length: n }, (_, i) => ordersMessage(String(i + 1), `PO-${i + 1}`)).join("");
  const ref = `W${counter++}`;
  const r = await upload(
    t,
    p,
    `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}'${messages}UNZ+${n}+${ref}'`,
    ref,
  );
  expect(r.statusCode).toBe(202);
  await t.drainJobs();
  return p;
}

const statuses = async (p: PartnerSetup) =>
  (
    await sql<{
      status: string;
    }>`SELECT status FROM exchange_deliveries WHERE connection_id = ${p.connectionId} ORDER BY position`.execute(
      db(),
    )
  ).rows.map((r) => r.status);

const client = (p: PartnerSetup, request?: RequestFn) =>
  createPartnerClient({
    baseUrl: base,
    apiKey: p.token,
    connectionId: p.connectionId,
    ...(request ? { request } : {}),
  });

/** Waits until the mailbox lists an entry again: its lease (2 s) has ended and its backoff (1 s) passed. */
const listedAgain = (p: PartnerSetup) =>
  waitUntil(async () => (await client(p).list()).items.length > 0, {
    what: "the entry listed again after its lease",
    timeoutMs: 20_000,
    intervalMs: 200,
  });

/** One `--once` run of the worker against `p`'s mailbox (through `request`), with the events it reported. */
async function syncOnce(p: PartnerSetup, dir: string, request?: RequestFn) {
  const events: SyncEvent[] = [];
  const summary = await syncMailbox({
    client: client(p, request),
    outDir: dir,
    once: true,
    onEvent: (e) => events.push(e),
  });
  return { summary, events };
}

const hrefOf = (url: Parameters<RequestFn>[0]): string => (url instanceof URL ? url.href : (url as string));

/** A transport that misbehaves for one kind of request (fault injection at the process edge). */
function faulty(
  kind: "payload" | "acknowledge",
  fault: "cut" | "lose-answer" | "drop-request",
  times = 1,
): RequestFn {
  let left = times;
  return (async (url: Parameters<RequestFn>[0], options?: Parameters<RequestFn>[1]) => {
    const hit = hrefOf(url).endsWith(`/${kind}`) && left > 0;
    if (hit && fault === "drop-request") {
      left--;
      throw new Error("connect ECONNREFUSED (injected)");
    }
    const response = await undiciRequest(url, options);
    if (!hit) return response;
    left--;
    if (fault === "lose-answer") {
      await response.body.text();
      throw new Error("socket hang up (injected)");
    }
    // The connection is cut after the first chunk of the payload.
    const source = response.body;
    const cut = new Readable({
      read() {
        source.once("data", (chunk: Buffer) => {
          this.push(chunk.subarray(0, Math.max(1, chunk.length >> 1)));
          source.on("error", () => undefined);
          source.destroy();
          this.destroy(new Error("connection reset (injected)"));
        });
      },
    });
    return Object.assign(response, { body: cut });
  }) as unknown as RequestFn;
}

describe("reference partner worker (rules/interface A rule 6)", () => {
  it("lists, claims, verifies, stores and acknowledges every entry in order; logs only ids, codes and times", async () => {
    const p = await withEntries(3);
    const dir = outDir();
    const { summary, events } = await syncOnce(p, dir);
    expect(summary).toEqual({ acknowledged: 3, failed: 0 });
    expect(stored(dir)).toHaveLength(3);
    expect(await statuses(p)).toEqual(["acknowledged", "acknowledged", "acknowledged"]);
    const acknowledgedOrder = events
      .filter((e) => e.event === "acknowledged")
      .map((e) => e.deliveryAttemptId);
    const positions = (
      await sql<{
        id: string;
      }>`SELECT id FROM exchange_deliveries WHERE connection_id = ${p.connectionId} ORDER BY position`.execute(
        db(),
      )
    ).rows.map((r) => r.id);
    expect(acknowledgedOrder).toEqual(positions);
    const text = JSON.stringify(events);
    expect(text).not.toContain(p.token.split(":")[1]);
    expect(text).not.toContain("UNB");
    for (const e of events)
      expect(
        Object.keys(e).every((k) =>
          ["time", "event", "connectionId", "deliveryAttemptId", "status", "code", "correlationId"].includes(
            k,
          ),
        ),
      ).toBe(true);
    // Issue 4: every request the worker made is logged with its HTTP status and correlation id.
    for (const e of events.filter((x) => x.event === "stored" || x.event === "acknowledged")) {
      expect(e.status, JSON.stringify(e)).toBe(200);
      expect(e.correlationId, JSON.stringify(e)).toMatch(/^[0-9a-f-]{36}$/);
    }
    for (const f of stored(dir))
      expect(readFileSync(join(dir, f), "latin1")).toMatch(/^UNB\+UNOC:3\+4012345500004:14/);
  });

  it("polling mode: an idle worker picks up an entry that arrives later, until it is stopped", async () => {
    const p = await setupPartner(t, tenant.token);
    const dir = outDir();
    const stop = new AbortController();
    const events: SyncEvent[] = [];
    let idle = 0;
    let firstIdle = (): void => undefined;
    const waitedIdle = new Promise<void>((resolve) => (firstIdle = resolve));
    const running = syncMailbox({
      client: client(p),
      outDir: dir,
      once: false,
      pollMs: 100,
      signal: stop.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.event === "idle" && ++idle === 1) firstIdle();
        if (event.event === "acknowledged") stop.abort();
      },
    });
    await waitedIdle;
    const ref = `POLL${counter++}`;
    const late = `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}'${ordersMessage("1", "PO-P")}UNZ+1+${ref}'`;
    expect((await upload(t, p, late, ref)).statusCode).toBe(202);
    await t.drainJobs();
    const summary = await running;
    expect(summary).toEqual({ acknowledged: 1, failed: 0 });
    expect(stored(dir)).toHaveLength(1);
    expect(idle).toBeGreaterThanOrEqual(1);
    expect(await statuses(p)).toEqual(["acknowledged"]);
  });

  it("Rule 4: a corrupted stored chunk (trailer failed) is not stored and not acknowledged", async () => {
    const p = await withEntries(1);
    await sql`UPDATE blob_chunks SET data = ${Buffer.from("UNB+BROKEN'")} WHERE blob_id IN (SELECT blob_id FROM exchange_deliveries WHERE connection_id = ${p.connectionId})`.execute(
      db(),
    );
    const dir = outDir();
    const summary = await syncMailbox({ client: client(p), outDir: dir, once: true });
    expect(summary).toEqual({ acknowledged: 0, failed: 1 });
    expect(readdirSync(dir)).toEqual([]);
    expect(await statuses(p)).toEqual(["claimed"]);
  });

  it("Rule 4: a connection cut mid-payload is not acknowledged; nothing is lost — a later run stores it", async () => {
    const p = await withEntries(1);
    const dir = outDir();
    const first = await syncMailbox({ client: client(p, faulty("payload", "cut")), outDir: dir, once: true });
    expect(first).toEqual({ acknowledged: 0, failed: 1 });
    expect(readdirSync(dir)).toEqual([]);
    expect(await statuses(p)).toEqual(["claimed"]);
    await listedAgain(p);
    const second = await syncMailbox({ client: client(p), outDir: dir, once: true });
    expect(second).toEqual({ acknowledged: 1, failed: 0 });
    expect(stored(dir)).toHaveLength(1);
  });

  it("Rule 4: storing fails after a verified read (the file cannot be put in place): not acknowledged; a later run stores it", async () => {
    const p = await withEntries(1);
    const dir = outDir();
    const [item] = (await client(p).list({ limit: 10 })).items;
    if (!item) throw new Error("no entry");
    // A directory where the stored file must go: the rename into place fails like a broken disk.
    const target = join(dir, `${item.deliveryAttemptId}.${item.messageType}.edi`);
    mkdirSync(target);
    writeFileSync(join(target, "occupied"), "x");
    const events: SyncEvent[] = [];
    // A broken disk stops the worker (claiming more entries would only spend their attempts).
    await expect(
      syncMailbox({ client: client(p), outDir: dir, once: true, onEvent: (e) => events.push(e) }),
    ).rejects.toBeInstanceOf(LocalStorageError);
    expect(events.find((e) => e.event === "failed")).toMatchObject({ code: "LOCAL_STORAGE" });
    expect(await statuses(p)).toEqual(["claimed"]);
    expect(readdirSync(dir).filter((f) => f.endsWith(".partial"))).toEqual([]);
    rmSync(target, { recursive: true });
    await listedAgain(p);
    const second = await syncMailbox({ client: client(p), outDir: dir, once: true });
    expect(second).toEqual({ acknowledged: 1, failed: 0 });
    expect(stored(dir)).toHaveLength(1);
  });

  it("Rule 5: an acknowledge whose answer is lost is retried with the same token (replay), stored once", async () => {
    const p = await withEntries(1);
    const dir = outDir();
    const summary = await syncMailbox({
      client: client(p, faulty("acknowledge", "lose-answer")),
      outDir: dir,
      once: true,
    });
    expect(summary).toEqual({ acknowledged: 1, failed: 0 });
    expect(stored(dir)).toHaveLength(1);
    expect(await statuses(p)).toEqual(["acknowledged"]);
  });

  it("an acknowledge that never arrives: the entry comes back, the next run finds the file already stored and does not write it twice", async () => {
    const p = await withEntries(1);
    const dir = outDir();
    const events: SyncEvent[] = [];
    const first = await syncMailbox({
      client: client(p, faulty("acknowledge", "drop-request", 10)),
      outDir: dir,
      once: true,
      acknowledgeAttempts: 2,
    });
    expect(first).toEqual({ acknowledged: 0, failed: 1 });
    expect(await statuses(p)).toEqual(["claimed"]);
    expect(stored(dir)).toHaveLength(1);
    await listedAgain(p);
    const second = await syncMailbox({
      client: client(p),
      outDir: dir,
      once: true,
      onEvent: (e) => events.push(e),
    });
    expect(second).toEqual({ acknowledged: 1, failed: 0 });
    expect(events.map((e) => e.event)).toContain("already-stored");
    expect(stored(dir)).toHaveLength(1);
    expect(await statuses(p)).toEqual(["acknowledged"]);
  });

  it("a file under the entry's name that does not hold the verified payload is replaced, never acknowledged as it is", async () => {
    const p = await withEntries(1);
    const dir = outDir();
    const [item] = (await client(p).list()).items;
    if (!item) throw new Error("no mailbox entry");
    const name = `${item.deliveryAttemptId}.${item.messageType}.edi`;
    writeFileSync(join(dir, name), "GARBAGE");
    let payloadReads = 0;
    const counting = (async (url: Parameters<RequestFn>[0], options?: Parameters<RequestFn>[1]) => {
      if (hrefOf(url).endsWith("/payload")) payloadReads++;
      return undiciRequest(url, options);
    }) as unknown as RequestFn;
    const { summary, events } = await syncOnce(p, dir, counting);
    expect(summary).toEqual({ acknowledged: 1, failed: 0 });
    expect(events.map((e) => e.event)).toEqual(["stored", "acknowledged", "idle"]);
    // Decided from the listing's size and SHA-256: one download, no read just to compare.
    expect(payloadReads).toBe(1);
    expect(stored(dir)).toEqual([name]);
    const bytes = readFileSync(join(dir, name), "latin1");
    expect(bytes).not.toContain("GARBAGE");
    expect(bytes).toMatch(/^(UNA|UNB)/);
    expect(await statuses(p)).toEqual(["acknowledged"]);
  });

  it("an entry whose id is not a UUID (a hostile server listing ../..) is never claimed, read or written", async () => {
    const p = await withEntries(1);
    const dir = outDir();
    const requests: string[] = [];
    // A transport that rewrites the listing as a hostile or impersonated server would send it.
    const hostile = (async (url: Parameters<RequestFn>[0], options?: Parameters<RequestFn>[1]) => {
      const href = hrefOf(url);
      requests.push(href);
      const response = await undiciRequest(url, options);
      if (!new URL(href).pathname.endsWith("/mailbox")) return response;
      const page = (await response.body.json()) as { items: { deliveryAttemptId: string }[] };
      for (const item of page.items) item.deliveryAttemptId = "../../escaped/PWNED";
      const text = JSON.stringify(page);
      const body = Object.assign(Readable.from([Buffer.from(text)]), {
        text: () => Promise.resolve(text),
        json: () => Promise.resolve(JSON.parse(text) as unknown),
      });
      return Object.assign(response, { body });
    }) as unknown as RequestFn;
    const { summary, events } = await syncOnce(p, dir, hostile);
    expect(summary).toEqual({ acknowledged: 0, failed: 1 });
    expect(events.map((e) => [e.event, e.code])).toContainEqual(["failed", "INVALID_ENTRY"]);
    expect(requests.filter((r) => !new URL(r).pathname.endsWith("/mailbox"))).toEqual([]);
    expect(stored(dir)).toEqual([]);
    expect(existsSync(join(dir, "..", "..", "escaped"))).toBe(false);
    expect(await statuses(p)).toEqual(["ready"]);
  });

  it("Rule 4: a disk that cannot be written — nothing is acknowledged", async () => {
    const p = await withEntries(1);
    const notADir = join(outDir(), "file");
    writeFileSync(notADir, "x");
    await expect(syncMailbox({ client: client(p), outDir: notADir, once: true })).rejects.toThrow(
      /the output directory cannot be created \(EEXIST\)/,
    );
    expect(await statuses(p)).toEqual(["ready"]);
  });

  it("Rule 4: an output directory that can never exist (below a dangling link) fails at once", async () => {
    const p = await withEntries(1);
    const link = join(outDir(), "dangling");
    symlinkSync(join(outDir(), "nowhere"), link);
    // node's own recursive mkdir never settles here (nor under /proc).
    await expect(syncMailbox({ client: client(p), outDir: join(link, "out"), once: true })).rejects.toThrow(
      /the output directory cannot be created \(ENOENT\)/,
    );
    expect(await statuses(p)).toEqual(["ready"]);
  });
});

describe("hanse partner (CLI)", () => {
  async function run(args: string[], p: PartnerSetup, url = base) {
    let out = "";
    let err = "";
    const sink = (fn: (s: string) => void) =>
      new Writable({
        write(chunk: Buffer, _e, cb) {
          fn(chunk.toString());
          cb();
        },
      });
    const program = new Command("hanse")
      .exitOverride()
      .configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (err += s) });
    registerPartnerCommands(program, {
      env: { HANSE_URL: url, HANSE_PARTNER_KEY: p.token },
      stdout: sink((s) => (out += s)),
      stderr: sink((s) => (err += s)),
    });
    try {
      await program.parseAsync(["partner", ...args], { from: "user" });
      return { out, err, exitCode: 0 };
    } catch (e) {
      if (e instanceof CommanderError) return { out, err, exitCode: e.exitCode };
      throw e;
    }
  }

  it("hanse partner upload FILE, then hanse partner sync --once stores and acknowledges", async () => {
    const p = await setupPartner(t, tenant.token);
    const file = join(outDir(), "order.edi");
    writeFileSync(
      file,
      `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+CLI1'${ordersMessage("1", "PO-CLI")}UNZ+1+CLI1'`,
    );
    const up = await run(["upload", file, "--connection", p.connectionId, "--json"], p);
    expect(up.exitCode, up.err).toBe(0);
    expect(JSON.parse(up.out)).toMatchObject({ status: "received", replay: false, httpStatus: 202 });
    const again = await run(["upload", file, "--connection", p.connectionId, "--json"], p);
    expect(JSON.parse(again.out)).toMatchObject({ replay: true, httpStatus: 200 });
    await t.drainJobs();
    const dir = outDir();
    const sync = await run(["sync", "--connection", p.connectionId, "--out", dir, "--once", "--json"], p);
    expect(sync.exitCode, `${sync.err} ${sync.out}`).toBe(0);
    expect(JSON.parse(sync.out)).toEqual({ acknowledged: 1, failed: 0 });
    expect(stored(dir)).toHaveLength(1);
    expect(sync.err).not.toContain(p.token.split(":")[1]);
  });

  it("errors print status, code, the server's explanation and correlation; never the key", async () => {
    const p = await setupPartner(t, tenant.token);
    const r = await run(["sync", "--connection", "not-a-uuid", "--out", outDir(), "--once"], p);
    expect(r.exitCode).toBe(1);
    expect(r.err).toMatch(
      /404 Not Found \(ERR_B2B_EXCHANGE_NOT_FOUND\): No such connection for this key\.\n {2}correlation id: [0-9a-f-]{36}/,
    );
    const two = join(outDir(), "two.edi");
    const one = `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+TWO'${ordersMessage("1", "PO-2")}UNZ+1+TWO'`;
    writeFileSync(two, one + one);
    const up = await run(["upload", two, "--connection", p.connectionId], p);
    expect(up.exitCode).toBe(1);
    expect(up.err).toMatch(
      /400 Bad Request \(ERR_B2B_EXCHANGE_INVALID_REQUEST\): .*interchange.*\n {2}correlation id: [0-9a-f-]{36}/,
    );
    expect(up.err + r.err).not.toContain(p.token.split(":")[1]);
  });

  it("--poll-ms takes whole milliseconds, at least 100; anything else is a usage error before any request", async () => {
    const p = await setupPartner(t, tenant.token);
    for (const value of ["nope", "5", "1.5", "-100"]) {
      const r = await run(["sync", "--connection", p.connectionId, "--out", outDir(), "--poll-ms", value], p);
      expect(r.exitCode, value).not.toBe(0);
      expect(r.err).toMatch(/--poll-ms.*whole number of milliseconds, at least 100/);
    }
  });

  it("a server that cannot be reached is named by its origin and the cause, exit 1", async () => {
    const p = await setupPartner(t, tenant.token);
    const r = await run(
      ["sync", "--connection", p.connectionId, "--out", outDir(), "--once"],
      p,
      "http://127.0.0.1:9",
    );
    expect(r.exitCode).toBe(1);
    expect(r.err).toMatch(
      /cannot reach http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)\n {2}correlation id: [0-9a-f-]{36}/,
    );
  });
});
