// remote mode: in-process only: a manual clock (leases and retries are timed)
/* eslint-disable @typescript-eslint/no-unsafe-assignment -- vitest asymmetric matchers are typed any */
import { createHash } from "node:crypto";
import { sql } from "kysely";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import {
  acknowledge,
  claim,
  listMailbox,
  ordersMessage,
  partnerUrl,
  readPayload,
  setupPartner,
  upload,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";

let t: TestApp;
let tenant: ProvisionedTenant;
let base: string;
let clock: { advance(ms: number): void };
let counter = 0;

beforeAll(async () => {
  t = await createTestApp({ manualClock: true });
  clock = t.container.clock as unknown as { advance(ms: number): void };
  tenant = await provisionTenant(t);
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await t.close();
});

const db = () => t.container.database.db;
const code = (r: { json: () => unknown }) => (r.json() as { code: string }).code;

/** An interchange with `n` ORDERS messages: `n` ORDRSP entries under the default profile. */
function ordersInterchange(n: number, ref = `M${counter}`): string {
  const messages = Array.from({ length: n }, (_, i) => ordersMessage(String(i + 1), `PO-${i + 1}`)).join("");
  return `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}'${messages}UNZ+${n}+${ref}'`;
}

async function withEntries(n: number, p?: PartnerSetup): Promise<PartnerSetup> {
  const setup = p ?? (await setupPartner(t, tenant.token));
  const r = await upload(t, setup, ordersInterchange(n), `mb-${counter++}`);
  expect(r.statusCode, r.body).toBe(202);
  await t.drainJobs();
  return setup;
}

async function claimFirst(p: PartnerSetup) {
  const [entry] = (await listMailbox(t, p)).items;
  if (!entry) throw new Error("mailbox empty");
  const r = await claim(t, p, entry.deliveryAttemptId);
  expect(r.statusCode, r.body).toBe(200);
  return {
    entry,
    ...r.json<{ claimToken: string; expiresAt: string; attempt: number; deliveryAttemptId: string }>(),
  };
}

const audits = async (deliveryId: string) =>
  (
    await sql<{
      type: string;
      principal_id: string | null;
      byte_count: number | null;
      outcome: string | null;
      data: unknown;
    }>`
      SELECT type, principal_id, byte_count, outcome, data FROM audit_events WHERE delivery_attempt_id = ${deliveryId} ORDER BY id`.execute(
      db(),
    )
  ).rows;

describe("GET /mailbox — list (Limits row: limit default 50, maximum 100)", () => {
  it("due, unclaimed entries in order; default 50, cursor pages through the rest", async () => {
    const p = await withEntries(60);
    const first = await listMailbox(t, p);
    expect(first.items).toHaveLength(50);
    expect(first.meta.hasMore).toBe(true);
    const second = await listMailbox(t, p, `?cursor=${encodeURIComponent(first.meta.nextCursor ?? "")}`);
    expect(second.items).toHaveLength(10);
    expect(second.meta).toEqual({ hasMore: false, nextCursor: null });
    const ids = [...first.items, ...second.items].map((i) => i.deliveryAttemptId);
    expect(new Set(ids).size).toBe(60);
    const all = await listMailbox(t, p, "?limit=100");
    expect(all.items.map((i) => i.deliveryAttemptId)).toEqual(ids);
    const refs = all.items.map((i) => Number(i.interchangeId));
    expect([...refs].sort((a, b) => a - b)).toEqual(refs);
  });

  it("limit above 100, 0, not a number or not written in decimal digits is 400 ERR_B2B_EXCHANGE_INVALID_REQUEST", async () => {
    const p = await setupPartner(t, tenant.token);
    for (const q of ["?limit=101", "?limit=0", "?limit=abc", "?limit=1e2", "?limit=0x10", "?limit=5.0"]) {
      const r = await t.inject({
        method: "GET",
        url: partnerUrl(p.connectionId, `/mailbox${q}`),
        headers: { authorization: `Bearer ${p.token}` },
      });
      expect(r.statusCode, q).toBe(400);
      expect(code(r)).toBe("ERR_B2B_EXCHANGE_INVALID_REQUEST");
    }
  });

  it("the cursor is tamper-evident and bound to the connection: another connection's cursor is 400", async () => {
    const p = await withEntries(3);
    const other = await withEntries(3, await setupPartner(t, tenant.token, { partnerId: p.partnerId }));
    const page = await listMailbox(t, p, "?limit=1");
    const cursor = page.meta.nextCursor ?? "";
    const foreign = await t.inject({
      method: "GET",
      url: partnerUrl(other.connectionId, `/mailbox?cursor=${encodeURIComponent(cursor)}`),
      headers: { authorization: `Bearer ${p.token}` },
    });
    expect(foreign.statusCode).toBe(400);
    expect(code(foreign)).toBe("ERR_B2B_EXCHANGE_INVALID_REQUEST");
    // One character in the middle changed: the last characters of base64url may carry only padding
    // bits, so changing them can decode to the same bytes (the .ci/run G failure).
    const middle = Math.floor(cursor.length / 2);
    const tampered = `${cursor.slice(0, middle)}${cursor[middle] === "A" ? "B" : "A"}${cursor.slice(middle + 1)}`;
    const bad = await t.inject({
      method: "GET",
      url: partnerUrl(p.connectionId, `/mailbox?cursor=${encodeURIComponent(tampered)}`),
      headers: { authorization: `Bearer ${p.token}` },
    });
    expect(bad.statusCode).toBe(400);
  });

  it("two connections of one partner never see each other's entries", async () => {
    const a = await withEntries(2);
    const b = await withEntries(1, await setupPartner(t, tenant.token, { partnerId: a.partnerId }));
    const listA = await listMailbox(t, a);
    const listB = await listMailbox(t, { connectionId: b.connectionId, token: a.token });
    expect(listA.items).toHaveLength(2);
    expect(listB.items).toHaveLength(1);
    const idOfB = listB.items[0]?.deliveryAttemptId ?? "";
    for (const r of [
      await claim(t, a, idOfB),
      await readPayload(t, a, idOfB, "x".repeat(43)),
      await acknowledge(t, a, idOfB, "x".repeat(43)),
    ]) {
      expect(r.statusCode).toBe(404);
      expect(code(r)).toBe("ERR_B2B_EXCHANGE_NOT_FOUND");
    }
  });
});

describe("Mailbox lifecycle row: claim", () => {
  it("a lease of five minutes and a fresh ≥ 256-bit token; the entry leaves the list; only its hash is stored", async () => {
    const p = await withEntries(2);
    const c = await claimFirst(p);
    expect(c.claimToken).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(c.attempt).toBe(1);
    expect(new Date(c.expiresAt).getTime() - t.container.clock.now().getTime()).toBe(300_000);
    const list = await listMailbox(t, p);
    expect(list.items.map((i) => i.deliveryAttemptId)).not.toContain(c.entry.deliveryAttemptId);
    const row = await sql<{
      claim_token_hash: Uint8Array;
    }>`SELECT claim_token_hash FROM exchange_deliveries WHERE id = ${c.entry.deliveryAttemptId}`.execute(
      db(),
    );
    const stored = Buffer.from(row.rows[0]?.claim_token_hash ?? []);
    expect(stored.length).toBe(32);
    expect(stored.toString("latin1")).not.toContain(c.claimToken);
  });

  it("Rule 6: a second claim while the lease is active is 409 ERR_B2B_EXCHANGE_CONFLICT", async () => {
    const p = await withEntries(1);
    const c = await claimFirst(p);
    const again = await claim(t, p, c.entry.deliveryAttemptId);
    expect(again.statusCode).toBe(409);
    expect(code(again)).toBe("ERR_B2B_EXCHANGE_CONFLICT");
  });

  it("unknown or malformed deliveryAttemptID is 404", async () => {
    const p = await setupPartner(t, tenant.token);
    for (const id of ["01a20031-0000-7000-8000-000000000000", "not-a-uuid"]) {
      const r = await claim(t, p, id);
      expect(r.statusCode).toBe(404);
      expect(code(r)).toBe("ERR_B2B_EXCHANGE_NOT_FOUND");
    }
  });

  it("two workers racing to claim one entry: exactly one wins", async () => {
    const p = await withEntries(1);
    const [entry] = (await listMailbox(t, p)).items;
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        request(`${base}${partnerUrl(p.connectionId, `/mailbox/${entry?.deliveryAttemptId}/claim`)}`, {
          method: "POST",
          headers: { authorization: `Bearer ${p.token}` },
        }),
      ),
    );
    await Promise.all(results.map((r) => r.body.text()));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409]);
  });
});

describe("Mailbox lifecycle row: lease expiry, backoff and attempt budget", () => {
  it("an expired lease makes the entry due again after 30 s × 2^(attempts−1); the old token stops working; 5 claims end in failed", async () => {
    const p = await withEntries(1);
    const backoffs = [30, 60, 120, 240];
    let previous: string | undefined;
    for (let attempt = 1; attempt <= 5; attempt++) {
      const c = await claimFirst(p);
      expect(c.attempt).toBe(attempt);
      if (previous) {
        const old = await readPayload(t, p, c.entry.deliveryAttemptId, previous);
        expect(old.statusCode).toBe(404);
        const superseded = await acknowledge(t, p, c.entry.deliveryAttemptId, previous);
        expect(superseded.statusCode, "acknowledge with a superseded token").toBe(404);
      }
      previous = c.claimToken;
      clock.advance(300_000);
      const expired = await readPayload(t, p, c.entry.deliveryAttemptId, c.claimToken);
      expect(expired.statusCode, "a token whose lease ended").toBe(404);
      const late = await acknowledge(t, p, c.entry.deliveryAttemptId, c.claimToken);
      expect(late.statusCode, "acknowledge with a token whose lease ended").toBe(404);
      clock.advance(1);
      if (attempt === 5) break;
      expect((await listMailbox(t, p)).items).toHaveLength(0);
      const early = await claim(t, p, c.entry.deliveryAttemptId);
      expect(early.statusCode, "not due yet").toBe(409);
      clock.advance((backoffs[attempt - 1] ?? 0) * 1000);
      expect((await listMailbox(t, p)).items).toHaveLength(1);
    }
    await listMailbox(t, p);
    const row = await sql<{ id: string; status: string; attempts: number }>`
      SELECT id, status, attempts FROM exchange_deliveries WHERE connection_id = ${p.connectionId}`.execute(
      db(),
    );
    expect(row.rows[0]).toMatchObject({ status: "failed", attempts: 5 });
    const id = row.rows[0]?.id ?? "";
    expect((await claim(t, p, id)).statusCode).toBe(409);
    const events = await audits(id);
    const failed = events.find((e) => e.type === "delivery.failed");
    expect(failed?.principal_id).toBeNull();
    expect(events.filter((e) => e.type === "delivery.claimed")).toHaveLength(5);

    // The operator requeues a failed delivery.
    const requeue = await t.inject({
      method: "POST",
      url: `/api/v1/admin/exchange-deliveries/${id}/requeue`,
      headers: { authorization: `Bearer ${tenant.token}` },
    });
    expect(requeue.statusCode).toBe(200);
    expect(requeue.json()).toMatchObject({ status: "ready", attempts: 0 });
    expect((await listMailbox(t, p)).items).toHaveLength(1);
  });

  it("the backoff is capped at 15 minutes", async () => {
    const { leaseBackoffMs } = await import("../../src/modules/exchange/index.js");
    expect([1, 2, 3, 4, 5, 6, 10].map((a) => leaseBackoffMs(a, 30) / 1000)).toEqual([
      30, 60, 120, 240, 480, 900, 900,
    ]);
  });
});

describe("payload and acknowledge (real port)", () => {
  const get = (p: PartnerSetup, id: string, token: string) =>
    request(`${base}${partnerUrl(p.connectionId, `/mailbox/${id}/payload`)}`, {
      headers: { authorization: `Bearer ${p.token}`, "x-b2b-claim-token": token },
    });

  it("Rule 1: chunked stream, no Content-Length, size/SHA-256/Repr-Digest headers, trailer verified", async () => {
    const p = await withEntries(1);
    const c = await claimFirst(p);
    const r = await get(p, c.entry.deliveryAttemptId, c.claimToken);
    expect(r.statusCode).toBe(200);
    const bytes = Buffer.from(await r.body.arrayBuffer());
    expect(r.headers["content-length"]).toBeUndefined();
    expect(r.headers["transfer-encoding"]).toBe("chunked");
    expect(r.headers["content-type"]).toBe("application/edifact");
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(String(r.headers.trailer).toLowerCase()).toBe("x-b2b-payload-integrity");
    expect(r.headers["x-correlation-id"]).toBeTruthy();
    const sha = createHash("sha256").update(bytes).digest();
    expect(r.headers["x-b2b-payload-size"]).toBe(String(bytes.length));
    expect(r.headers["x-b2b-payload-sha256"]).toBe(sha.toString("hex"));
    expect(r.headers["repr-digest"]).toBe(`sha-256=:${sha.toString("base64")}:`);
    expect(r.trailers["x-b2b-payload-integrity"]).toBe("verified");
    expect(bytes.toString("latin1")).toMatch(/^UNB\+UNOC:3\+4012345500004:14\+5412345000013:14/);
  });

  it("Rule 3: opening and verified completion are audited without payload bytes, hash or token", async () => {
    const p = await withEntries(1);
    const c = await claimFirst(p);
    const r = await get(p, c.entry.deliveryAttemptId, c.claimToken);
    const bytes = Buffer.from(await r.body.arrayBuffer());
    const events = await audits(c.entry.deliveryAttemptId);
    // Ids made under the manual clock share one millisecond: compare as a set.
    expect(events.map((e) => e.type).sort()).toEqual([
      "delivery.claimed",
      "payload.opened",
      "payload.verified",
    ]);
    expect(events.find((e) => e.type === "payload.verified")).toMatchObject({
      outcome: "verified",
      byte_count: bytes.length,
    });
    const text = JSON.stringify(events);
    expect(text).not.toContain(c.claimToken);
    expect(text).not.toContain(c.entry.payloadSha256);
    expect(text).not.toContain("UNB");
  });

  it("Rule 1: a corrupted stored chunk gives trailer failed, a failed audit and no acknowledge (409)", async () => {
    const p = await withEntries(1);
    const c = await claimFirst(p);
    await sql`UPDATE blob_chunks SET data = ${Buffer.from("UNB+CORRUPTED'")} WHERE blob_id = (SELECT blob_id FROM exchange_deliveries WHERE id = ${c.entry.deliveryAttemptId})`.execute(
      db(),
    );
    const r = await get(p, c.entry.deliveryAttemptId, c.claimToken);
    await r.body.arrayBuffer();
    expect(r.trailers["x-b2b-payload-integrity"]).toBe("failed");
    const events = await audits(c.entry.deliveryAttemptId);
    expect(events.find((e) => e.type === "payload.failed")).toMatchObject({ outcome: "failed" });
    const ack = await acknowledge(t, p, c.entry.deliveryAttemptId, c.claimToken);
    expect(ack.statusCode).toBe(409);
  });

  it("Rule 1: a storage read error mid-stream still ends the response, with trailer failed and a failed audit", async () => {
    const p = await withEntries(1);
    const c = await claimFirst(p);
    // The only chunk renumbered: reading the blob fails after the headers went out.
    await sql`UPDATE blob_chunks SET seq = 5 WHERE blob_id = (SELECT blob_id FROM exchange_deliveries WHERE id = ${c.entry.deliveryAttemptId})`.execute(
      db(),
    );
    const r = await get(p, c.entry.deliveryAttemptId, c.claimToken);
    expect(r.statusCode).toBe(200);
    const received = Buffer.from(await r.body.arrayBuffer());
    expect(received.length).toBeLessThan(c.entry.payloadSize);
    expect(r.trailers["x-b2b-payload-integrity"]).toBe("failed");
    const events = await audits(c.entry.deliveryAttemptId);
    expect(events.find((e) => e.type === "payload.failed")).toMatchObject({ outcome: "failed" });
    expect((await acknowledge(t, p, c.entry.deliveryAttemptId, c.claimToken)).statusCode).toBe(409);
  });

  it("Rule 3: a client that closes the stream before EOF is recorded as a failed read", async () => {
    const p = await withEntries(1);
    const c = await claimFirst(p);
    // Point the delivery at an 8 MiB payload so the stream cannot fit into socket buffers.
    const big = Buffer.alloc(8 * 1024 * 1024, "A");
    const blobId = (
      await sql<{
        blob_id: string;
      }>`SELECT blob_id FROM exchange_deliveries WHERE id = ${c.entry.deliveryAttemptId}`.execute(db())
    ).rows[0]?.blob_id;
    await sql`DELETE FROM blob_chunks WHERE blob_id = ${blobId}`.execute(db());
    for (let i = 0; i < 32; i++) {
      await sql`INSERT INTO blob_chunks (tenant_id, blob_id, seq, data) VALUES (${tenant.id}, ${blobId}, ${i}, ${big.subarray(i * 262144, (i + 1) * 262144)})`.execute(
        db(),
      );
    }
    await sql`UPDATE exchange_deliveries SET payload_size = ${big.length}, payload_sha256 = ${createHash("sha256").update(big).digest()} WHERE id = ${c.entry.deliveryAttemptId}`.execute(
      db(),
    );
    const r = await get(p, c.entry.deliveryAttemptId, c.claimToken);
    for await (const _chunk of r.body) {
      r.body.destroy();
      break;
    }
    let events = await audits(c.entry.deliveryAttemptId);
    for (let i = 0; i < 100 && !events.some((e) => e.type === "payload.failed"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      events = await audits(c.entry.deliveryAttemptId);
    }
    expect(events.find((e) => e.type === "payload.failed")).toMatchObject({ outcome: "failed" });
    expect(events.find((e) => e.type === "payload.failed")?.byte_count).toBeLessThan(8 * 1024 * 1024);
    expect((await acknowledge(t, p, c.entry.deliveryAttemptId, c.claimToken)).statusCode).toBe(409);
  });

  it("payload with a missing or wrong claim token is 404", async () => {
    const p = await withEntries(1);
    const c = await claimFirst(p);
    const wrong = await readPayload(t, p, c.entry.deliveryAttemptId, "A".repeat(43));
    expect(wrong.statusCode).toBe(404);
    expect(code(wrong)).toBe("ERR_B2B_EXCHANGE_NOT_FOUND");
    // However long: a wrong token is a wrong token (rules/contract §4), on payload and acknowledge.
    const long = "A".repeat(600);
    const longRead = await readPayload(t, p, c.entry.deliveryAttemptId, long);
    expect(longRead.statusCode).toBe(404);
    expect(code(longRead)).toBe("ERR_B2B_EXCHANGE_NOT_FOUND");
    const longAck = await acknowledge(t, p, c.entry.deliveryAttemptId, long);
    expect(longAck.statusCode).toBe(404);
    const missing = await t.inject({
      method: "GET",
      url: partnerUrl(p.connectionId, `/mailbox/${c.entry.deliveryAttemptId}/payload`),
      headers: { authorization: `Bearer ${p.token}` },
    });
    expect(missing.statusCode).toBe(404);
  });

  it("acknowledge: 409 before a verified read, 404 for a missing/wrong token, 200 receipt, Rule 5: replay returns the same receipt with replay:true (also after the lease)", async () => {
    const p = await withEntries(1);
    const c = await claimFirst(p);
    const early = await acknowledge(t, p, c.entry.deliveryAttemptId, c.claimToken);
    expect(early.statusCode).toBe(409);
    expect(code(early)).toBe("ERR_B2B_EXCHANGE_CONFLICT");
    expect((await acknowledge(t, p, c.entry.deliveryAttemptId)).statusCode).toBe(404);
    expect((await acknowledge(t, p, c.entry.deliveryAttemptId, "B".repeat(43))).statusCode).toBe(404);
    const r = await get(p, c.entry.deliveryAttemptId, c.claimToken);
    await r.body.arrayBuffer();
    const ack = await acknowledge(t, p, c.entry.deliveryAttemptId, c.claimToken);
    expect(ack.statusCode).toBe(200);
    const receipt = ack.json<{
      deliveryAttemptId: string;
      receiptId: string;
      acknowledgedAt: string;
      replay: boolean;
    }>();
    expect(receipt).toMatchObject({ deliveryAttemptId: c.entry.deliveryAttemptId, replay: false });
    clock.advance(3_600_000);
    const replay = await acknowledge(t, p, c.entry.deliveryAttemptId, c.claimToken);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual({ ...receipt, replay: true });
    const claimAgain = await claim(t, p, c.entry.deliveryAttemptId);
    expect(claimAgain.statusCode).toBe(409);
    expect((await listMailbox(t, p)).items).toHaveLength(0);
    const events = await audits(c.entry.deliveryAttemptId);
    expect(events.map((e) => e.type)).toContain("delivery.acknowledged");
  });
});

describe("per-key rate limit", () => {
  it("answers 429 ERR_B2B_EXCHANGE_RATE_LIMITED with Retry-After once a key's burst is spent", async () => {
    const { rateLimit } = await import("../../src/modules/exchange/index.js");
    const p = await setupPartner(t, tenant.token);
    const send = () =>
      t.inject({
        method: "GET",
        url: partnerUrl("not-a-uuid", "/mailbox"),
        headers: { authorization: `Bearer ${p.token}` },
      });
    for (let i = 0; i < rateLimit.burst; i++) expect((await send()).statusCode).toBe(404);
    const limited = await send();
    expect(limited.statusCode).toBe(429);
    expect(code(limited)).toBe("ERR_B2B_EXCHANGE_RATE_LIMITED");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    const otherKey = await setupPartner(t, tenant.token, { partnerId: p.partnerId });
    expect((await listMailbox(t, otherKey)).items).toEqual([]);
    clock.advance(2000);
    expect((await send()).statusCode).toBe(404);
  });
});

describe("audit events (admin)", () => {
  it("GET /api/v1/admin/audit-events filters by type and pages with a cursor", async () => {
    const p = await withEntries(2);
    await claimFirst(p);
    const headers = { authorization: `Bearer ${tenant.token}` };
    const r = await t.inject({
      method: "GET",
      url: "/api/v1/admin/audit-events?type=delivery.claimed&limit=1",
      headers,
    });
    expect(r.statusCode).toBe(200);
    const page = r.json<{
      items: Record<string, unknown>[];
      meta: { hasMore: boolean; nextCursor: string };
    }>();
    expect(page.items[0]).toMatchObject({
      type: "delivery.claimed",
      connectionId: expect.any(String),
      deliveryAttemptId: expect.any(String),
    });
    expect(Object.keys(page.items[0] ?? {}).sort()).toEqual([
      "byteCount",
      "changes",
      "connectionId",
      "correlationId",
      "data",
      "deliveryAttemptId",
      "id",
      "method",
      "occurredAt",
      "outcome",
      "principalId",
      "principalKind",
      "sourceAddress",
      "targetId",
      "targetType",
      "type",
      "uploadId",
    ]);
    const next = await t.inject({
      method: "GET",
      url: `/api/v1/admin/audit-events?type=delivery.claimed&cursor=${encodeURIComponent(page.meta.nextCursor)}`,
      headers,
    });
    expect(next.statusCode).toBe(200);
    const one = await t.inject({
      method: "GET",
      url: `/api/v1/admin/audit-events/${String(page.items[0]?.id)}`,
      headers,
    });
    expect(one.statusCode).toBe(200);
    const received = await t.inject({
      method: "GET",
      url: "/api/v1/admin/audit-events?type=upload.received",
      headers,
    });
    expect(received.json<{ items: { principalId: string }[] }>().items[0]?.principalId).toBeTruthy();
  });
});
