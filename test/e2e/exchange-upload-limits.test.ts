import { Readable } from "node:stream";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionTenant } from "../support/fixtures.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import { inProcessOnly } from "../support/remote-app.js";
import {
  setupPartner,
  streamUpload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";

let t: TestApp;
let p: PartnerSetup;
let base: string;

beforeAll(async () => {
  t = await createTestApp({ env: { HANSE_PARTNER_MAX_CONCURRENT_UPLOADS: "2" } });
  const tenant = await provisionTenant(t);
  p = await setupPartner(t, tenant.token);
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await t.close();
});

const uploads = async () =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM exchange_uploads`.execute(t.container.database.db))
    .rows[0]?.n ?? 0;

const send = (body: Buffer | Readable, key: string) => streamUpload(base, p, body, key);

describe.skipIf(
  inProcessOnly(
    "runs the server with its own upload limit (HANSE_PARTNER_MAX_CONCURRENT_UPLOADS) and counts in its database; hung remotely",
  ),
)("uploads in progress per API key (HANSE_PARTNER_MAX_CONCURRENT_UPLOADS)", () => {
  it("one stream more than the limit is 429 with Retry-After and stores nothing; the limit frees as streams end", async () => {
    const before = await uploads();
    const bodies = ["S1", "S2"].map((ref) => Buffer.from(validOrders(ref)));
    const slow = bodies.map((body) => {
      const stream = new Readable({ read() {} });
      stream.push(body.subarray(0, 100));
      return stream;
    });
    const streaming = slow.map((stream, i) => send(stream, `streaming-${String(i)}`));
    // Both streams authenticate and reach the inbox long before this.
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const third = await send(Buffer.from(validOrders("S3")), "one-too-many");
    expect(third.statusCode).toBe(429);
    expect(third.headers["retry-after"]).toBe("1");
    expect(((await third.body.json()) as { code: string }).code).toBe("ERR_B2B_EXCHANGE_RATE_LIMITED");

    slow.forEach((stream, i) => {
      stream.push((bodies[i] as Buffer).subarray(100));
      stream.push(null);
    });
    const finished = await Promise.all(streaming);
    expect(finished.map((r) => r.statusCode)).toEqual([202, 202]);
    await Promise.all(finished.map((r) => r.body.dump()));

    const later = await send(Buffer.from(validOrders("S3")), "one-too-many");
    expect(later.statusCode).toBe(202);
    await later.body.dump();
    expect(await uploads()).toBe(before + 3);
  });
});
