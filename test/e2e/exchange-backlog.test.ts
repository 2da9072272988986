// remote mode: in-process only: a fake clock and backlog limits of its own
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backlogRefreshMs } from "../../src/modules/exchange/index.js";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import {
  setupPartner,
  streamUpload,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";

const clock = createManualClock(new Date());
let t: TestApp;
let a: ProvisionedTenant;
let b: ProvisionedTenant;
let pa: PartnerSetup;
let pb: PartnerSetup;
let base: string;

beforeAll(async () => {
  t = await createTestApp({
    clock,
    env: { HANSE_INBOX_MAX_BACKLOG_PER_TENANT: "3", HANSE_INBOX_MAX_BACKLOG: "5" },
  });
  a = await provisionTenant(t);
  b = await provisionTenant(t);
  pa = await setupPartner(t, a.token);
  pb = await setupPartner(t, b.token);
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await t.close();
});

const count = async (table: string) =>
  (
    await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(
      t.container.database.db,
    )
  ).rows[0]?.n ?? 0;
const stored = async () => ({
  uploads: await count("exchange_uploads"),
  blobs: await count("blobs"),
  chunks: await count("blob_chunks"),
  jobs: await count("jobs"),
  audit: await count("audit_events"),
});

/** A valid interchange over 64 KiB (its key is checked before the body is read). */
const large = (ref: string) => {
  const text = validOrders(ref);
  const unz = text.lastIndexOf("UNZ");
  return Buffer.from(`${text.slice(0, unz)}${"\n".repeat(200 * 1024)}${text.slice(unz)}`);
};

function expectRefused(r: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  expect(r.statusCode).toBe(503);
  expect(r.headers["retry-after"]).toBe("5");
  expect(String(r.headers["content-type"])).toContain("application/problem+json");
  expect(JSON.parse(r.body)).toMatchObject({ code: "ERR_B2B_EXCHANGE_UNAVAILABLE", status: 503 });
}

describe("issue 20 defect 9: back-pressure on the inbox (HANSE_INBOX_MAX_BACKLOG, _PER_TENANT)", () => {
  it("over a tenant's or the service's bound of unprocessed uploads, POST /inbox answers 503 with Retry-After and stores nothing; processing frees it", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await upload(t, pa, validOrders(`A${i}`), `a-${i}`)).statusCode).toBe(202);
    }
    // Tenant A is at its bound: small and streamed uploads, on any of its connections, are refused.
    // (The sibling connection and its key are made first: they are audited, the refusals are not.)
    const sibling = await setupPartner(t, a.token, { partnerId: pa.partnerId });
    const before = await stored();
    expectRefused(await upload(t, pa, validOrders("A3"), "a-3"));
    const streamed = await streamUpload(base, pa, large("A4"), "a-4");
    expectRefused({
      statusCode: streamed.statusCode,
      headers: streamed.headers,
      body: await streamed.body.text(),
    });
    expectRefused(await upload(t, sibling, validOrders("A5"), "a-5"));
    expect(await stored()).toEqual(before);

    // Tenant B is not, until the service as a whole reaches 5.
    expect((await upload(t, pb, validOrders("B0"), "b-0")).statusCode).toBe(202);
    expect((await upload(t, pb, large("B1"), "b-1")).statusCode).toBe(202);
    const full = await stored();
    expectRefused(await upload(t, pb, validOrders("B2"), "b-2"));
    expect(await stored()).toEqual(full);

    // A refusal is not a verdict on the request: authentication and the connection come first.
    const unknownKey = await upload(
      t,
      { ...pb, token: `${pb.apiKeyId}:hanse_pk_wrong` },
      validOrders("X"),
      "x",
    );
    expect(unknownKey.statusCode).toBe(401);

    // Processed uploads leave the backlog; the next read of the counts lets uploads in again.
    expect(await t.drainJobs()).toBeGreaterThanOrEqual(5);
    clock.advance(backlogRefreshMs);
    expect((await upload(t, pa, validOrders("A3"), "a-3")).statusCode).toBe(202);
    expect((await upload(t, pb, validOrders("B2"), "b-2")).statusCode).toBe(202);
  });
});
