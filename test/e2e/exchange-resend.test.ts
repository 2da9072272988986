// remote mode: in-process only: a manual clock and HANSE_MAILBOX_MAX_ATTEMPTS=1 of its own
/* eslint-disable @typescript-eslint/no-unsafe-assignment -- vitest asymmetric matchers are typed any */
import { createHash } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  acknowledge,
  claim,
  listMailbox,
  readPayload,
  setupPartner,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { sweepPendingBlobsJobName } from "../../src/platform/blobs/index.js";
import { retentionJobName } from "../../src/platform/jobs/index.js";
import type { Delivery } from "@hanse/client";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { overHttp } from "../support/http-injector.js";
import { createTestApp, runJobNow, type TestApp } from "../support/test-app.js";

/*
 * Issue 24 item 2 (contract 24-2, `filters`): `POST …/exchange-deliveries/{id}/resend` — a partner
 * lost a file; the operator puts the same payload into its mailbox again as a new item. Over HTTP
 * against the real server; the partner collects the new item through the partner API.
 */

let t: TestApp;
let tenant: ProvisionedTenant;
let base: string;
let clock: { advance(ms: number): void };
let partner: PartnerSetup;
let n = 0;
const http = overHttp(() => base);

async function call(method: "GET" | "POST", url: string, token = tenant.token, payload?: object) {
  const r = await http.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload });
  return { status: r.statusCode, json: <T = Record<string, unknown>>() => r.json<T>(), body: r.body };
}
const resend = (id: string, token = tenant.token) =>
  call("POST", `/api/v1/admin/exchange-deliveries/${id}/resend`, token);
const getDelivery = async (id: string) =>
  (await call("GET", `/api/v1/admin/exchange-deliveries/${id}`)).json<Delivery>();

/** The partner's side, over HTTP: its mailbox, a claim, the payload read to EOF, the acknowledgement. */
const mailbox = async () => (await listMailbox(http, partner, "?limit=100")).items;
async function collect(id: string, acknowledgeIt = true): Promise<Buffer> {
  const claimed = await claim(http, partner, id);
  expect(claimed.statusCode, claimed.body).toBe(200);
  const token = claimed.json<{ claimToken: string }>().claimToken;
  const payload = await readPayload(http, partner, id, token);
  expect(payload.statusCode).toBe(200);
  if (acknowledgeIt) expect((await acknowledge(http, partner, id, token)).statusCode).toBe(200);
  return payload.rawPayload;
}

/** A new upload whose one outbound message (an ORDRSP) is in the mailbox; its delivery. */
async function newDelivery(): Promise<Delivery> {
  const r = await upload(http, partner, validOrders(`RS${n}`), `resend-${n++}`);
  expect(r.statusCode).toBe(202);
  await t.drainJobs();
  const { uploadId } = r.json<{ uploadId: string }>();
  const list = await call("GET", `/api/v1/admin/exchange-deliveries?uploadId=${uploadId}`);
  const [delivery] = list.json<{ items: Delivery[] }>().items;
  if (!delivery) throw new Error("no delivery");
  return delivery;
}

const count = async (table: string) =>
  (
    await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(
      t.container.database.db,
    )
  ).rows[0]?.n ?? 0;
const blobOf = async (id: string) =>
  (
    await sql<{ blob_id: string }>`SELECT blob_id FROM exchange_deliveries WHERE id = ${id}`.execute(
      t.container.database.db,
    )
  ).rows[0]?.blob_id;

beforeAll(async () => {
  // One attempt per delivery: a lease that runs out fails it.
  t = await createTestApp({ manualClock: true, env: { HANSE_MAILBOX_MAX_ATTEMPTS: "1" } });
  clock = t.container.clock as unknown as { advance(ms: number): void };
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  tenant = await provisionTenant(t);
  partner = await setupPartner(http, tenant.token);
}, 120_000);
afterAll(async () => {
  await t.close();
});

/** What a re-sent delivery keeps of the original: the message and its payload. */
const sameMessage = (original: Delivery) => ({
  connectionId: original.connectionId,
  uploadId: original.uploadId,
  interchangeId: original.interchangeId,
  inboundInterchangeId: original.inboundInterchangeId,
  messageReference: original.messageReference,
  messageType: original.messageType,
  payloadSize: original.payloadSize,
  payloadSha256: original.payloadSha256,
});

describe("resend of a delivery (contract 24-2)", () => {
  it("an acknowledged delivery: a new ready item with the same payload; the partner downloads identical bytes; the original stays acknowledged", async () => {
    const original = await newDelivery();
    const bytes = await collect(original.id);
    const acknowledged = await getDelivery(original.id);
    expect(acknowledged).toMatchObject({ status: "acknowledged", resentFrom: null });
    expect(await mailbox()).toEqual([]);
    const blobs = await count("blobs");

    clock.advance(1000);
    const r = await resend(original.id);
    expect(r.status, r.body).toBe(201);
    const resent = r.json<Delivery>();
    expect(resent).toMatchObject({
      ...sameMessage(original),
      status: "ready",
      attempts: 0,
      receiptId: null,
      acknowledgedAt: null,
      resentFrom: original.id,
    });
    expect(resent.id).not.toBe(original.id);
    expect(resent.deliveryAttemptId).toBe(resent.id);
    expect(await getDelivery(resent.id)).toEqual(resent);
    // The same stored bytes: no copy of the blob.
    expect(await blobOf(resent.id)).toBe(await blobOf(original.id));
    expect(await count("blobs")).toBe(blobs);

    // The partner sees it in its mailbox like any other item, and collects the same bytes.
    expect((await mailbox()).map((e) => e.deliveryAttemptId)).toEqual([resent.id]);
    const again = await collect(resent.id);
    expect(again.equals(bytes)).toBe(true);
    expect(createHash("sha256").update(again).digest("hex")).toBe(original.payloadSha256);
    expect(await getDelivery(resent.id)).toMatchObject({ status: "acknowledged", resentFrom: original.id });
    // The original is untouched: still acknowledged with its own receipt.
    expect(await getDelivery(original.id)).toEqual(acknowledged);
  });

  it("is audited as delivery.resent, with ids only", async () => {
    const original = await newDelivery();
    const resent = (await resend(original.id)).json<Delivery>();
    const events = await call("GET", "/api/v1/admin/audit-events?type=delivery.resent&limit=100");
    const event = events
      .json<{ items: Record<string, unknown>[] }>()
      .items.find((e) => e.deliveryAttemptId === resent.id);
    expect(event).toMatchObject({
      type: "delivery.resent",
      connectionId: partner.connectionId,
      uploadId: original.uploadId,
      deliveryAttemptId: resent.id,
      principalId: expect.any(String),
      byteCount: null,
      // rules/contract §7: the operator's kind, the new delivery as the target, the request's origin.
      principalKind: expect.stringMatching(/^(user|access_token)$/),
      targetType: "delivery",
      targetId: resent.id,
      sourceAddress: expect.any(String),
      correlationId: expect.any(String),
    });
    const stored = await sql<{
      data: unknown;
    }>`SELECT data FROM audit_events WHERE id = ${String(event?.id)}`.execute(t.container.database.db);
    expect(stored.rows[0]?.data).toEqual({ resentFrom: original.id });
  });

  it("a failed delivery (its attempts used up): a new ready item; the original stays failed", async () => {
    const original = await newDelivery();
    await collect(original.id, false);
    clock.advance(301_000);
    await mailbox(); // ends the lease that ran out: with one attempt, the delivery fails
    expect(await getDelivery(original.id)).toMatchObject({ status: "failed", attempts: 1 });

    const r = await resend(original.id);
    expect(r.status).toBe(201);
    const resent = r.json<Delivery>();
    expect(resent).toMatchObject({
      ...sameMessage(original),
      status: "ready",
      attempts: 0,
      resentFrom: original.id,
    });
    expect(await getDelivery(original.id)).toMatchObject({ status: "failed", attempts: 1 });
    const bytes = await collect(resent.id);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(original.payloadSha256);
  });

  it("a ready delivery: both are in the mailbox, the new one last; each downloads the same bytes", async () => {
    const original = await newDelivery();
    const resent = (await resend(original.id)).json<Delivery>();
    const ids = (await mailbox()).map((e) => e.deliveryAttemptId);
    expect(ids.slice(-2)).toEqual([original.id, resent.id]);
    // A re-send of a re-send repeats the same payload again.
    const third = (await resend(resent.id)).json<Delivery>();
    expect(third).toMatchObject({ ...sameMessage(original), resentFrom: resent.id });
    const a = await collect(original.id);
    const b = await collect(resent.id);
    const c = await collect(third.id);
    expect(b.equals(a) && c.equals(a)).toBe(true);
  });

  it("an unknown or malformed id is 404 and nothing is created", async () => {
    const before = await count("exchange_deliveries");
    for (const id of ["01a20000-0000-7000-8000-000000000000", "not-an-id"]) {
      const r = await resend(id);
      expect(r.status).toBe(404);
      expect(r.json()).toMatchObject({ code: "ERR_NOT_FOUND" });
    }
    // Another tenant's delivery is unknown here.
    const other = await provisionTenant(t);
    const original = await newDelivery();
    expect((await resend(original.id, other.token)).status).toBe(404);
    expect(await count("exchange_deliveries")).toBe(before + 1);
  });

  it("a credential without admin:write is 403 and nothing is created or audited", async () => {
    const original = await newDelivery();
    const created = await call("POST", "/api/v1/admin/access-tokens", tenant.token, {
      name: "read only",
      scopes: ["admin:read"],
    });
    expect(created.status).toBe(201);
    const readOnly = created.json<{ token: string }>().token;
    const before = { deliveries: await count("exchange_deliveries"), audit: await count("audit_events") };
    const r = await resend(original.id, readOnly);
    expect(r.status).toBe(403);
    expect(r.json()).toMatchObject({ code: "ERR_FORBIDDEN" });
    expect(await count("exchange_deliveries")).toBe(before.deliveries);
    expect(await count("audit_events")).toBe(before.audit);
    // It may read, though.
    expect((await call("GET", `/api/v1/admin/exchange-deliveries/${original.id}`, readOnly)).status).toBe(
      200,
    );
  });
});

describe("a blob shared by a delivery and its re-sends (contract 24-2)", () => {
  it("housekeeping and retention keep it; removing one delivery leaves the other's payload whole", async () => {
    const original = await newDelivery();
    const resent = (await resend(original.id)).json<Delivery>();
    expect(await blobOf(resent.id)).toBe(await blobOf(original.id));

    // Weeks later, every housekeeping job has run: complete blobs are never touched.
    clock.advance(40 * 24 * 3600_000);
    await runJobNow(t, sweepPendingBlobsJobName);
    await runJobNow(t, retentionJobName);
    const bytes = await collect(original.id);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(original.payloadSha256);

    // Nothing in the service deletes a delivery today; should a delivery go (a future retention,
    // an operator's hand), its blob is not removed with it and the re-send still delivers.
    await sql`DELETE FROM exchange_deliveries WHERE id = ${original.id}`.execute(t.container.database.db);
    expect(await blobOf(original.id)).toBeUndefined();
    const again = await collect(resent.id);
    expect(again.equals(bytes)).toBe(true);
  });
});
