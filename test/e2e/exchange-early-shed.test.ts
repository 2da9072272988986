// remote mode: in-process only: a fake clock, backlog bounds and a rate limit of its own
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backlogRefreshMs } from "../../src/modules/exchange/index.js";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { rowCounts } from "../support/row-counts.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import {
  partnerUrl,
  setupPartner,
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
let port: number;

beforeAll(async () => {
  t = await createTestApp({
    clock,
    env: {
      HANSE_INBOX_MAX_BACKLOG_PER_TENANT: "2",
      HANSE_INBOX_MAX_BACKLOG: "100",
      // Five requests per key and no refill on the fake clock: a refusal that took one shows.
      HANSE_PARTNER_RATE_LIMIT_BURST: "5",
      HANSE_PARTNER_RATE_LIMIT_PER_SECOND: "1",
    },
  });
  a = await provisionTenant(t);
  b = await provisionTenant(t);
  pa = await setupPartner(t, a.token);
  pb = await setupPartner(t, b.token);
  port = Number(new URL(await t.app.listen({ port: 0, host: "127.0.0.1" })).port);
});
afterAll(async () => {
  await t.close();
});

const stored = () =>
  rowCounts(t.container.database.db, ["exchange_uploads", "blobs", "jobs", "audit_events"]);

function expectRefused(r: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  expect(r.statusCode).toBe(503);
  expect(r.headers["retry-after"]).toBe("5");
  expect(JSON.parse(r.body)).toMatchObject({ code: "ERR_B2B_EXCHANGE_UNAVAILABLE", status: 503 });
}

/** Sends the head and a first piece of a 20,000-byte body, never the rest; resolves with what came back. */
function stalledUpload(setup: PartnerSetup, key: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to a stalled body; received: ${received}`));
    }, 5000);
    socket.on("data", (data: Buffer) => {
      received += data.toString();
      if (received.includes("ERR_B2B_EXCHANGE")) {
        clearTimeout(timer);
        socket.destroy();
        resolve(received);
      }
    });
    socket.on("error", reject);
    socket.write(
      `POST ${partnerUrl(setup.connectionId, "/inbox")} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${setup.token}\r\nContent-Type: application/edifact\r\n` +
        `Idempotency-Key: ${key}\r\nContent-Length: 20000\r\n\r\nUNB+UNOC:3+`,
    );
  });
}

describe("issue 35 item 3: a flooding partner is shed before its body is read", () => {
  it("a key refused over its tenant's bound is refused again from the head: no statement, no token of its rate limit, nothing stored; another tenant's partner and other faults are answered as before", async () => {
    for (let i = 0; i < 2; i++) {
      expect((await upload(t, pa, validOrders(`A${i}`), `a-${i}`)).statusCode).toBe(202);
    }
    const before = await stored();
    // The first refusal takes the ordinary path (key, connection, headers, then the bound) ...
    expectRefused(await upload(t, pa, validOrders("A2"), "a-2"));
    // ... the next ones are refused from the head: ten more would have spent the key's five requests.
    for (let i = 3; i < 13; i++) expectRefused(await upload(t, pa, validOrders(`A${i}`), `a-${i}`));
    // A body that never finishes still gets its answer (it is not read).
    const stalled = await stalledUpload(pa, "a-stalled");
    expect(stalled).toMatch(/^HTTP\/1\.1 503 /);
    expect(stalled.toLowerCase()).toContain("retry-after: 5");

    // Other requests are answered as before the flood: a wrong key is 401, a bad header 400.
    const wrongKey = await upload(
      t,
      { ...pa, token: `${pa.apiKeyId}:hanse_pk_wrong` },
      validOrders("X"),
      "x",
    );
    expect(wrongKey.statusCode).toBe(401);
    const badType = await upload(t, pa, validOrders("A13"), "a-13", "text/plain");
    expect(badType.statusCode).toBe(400);
    expect(await stored()).toEqual(before);

    // Another tenant's partner, below its bound, is not shed.
    expect((await upload(t, pb, validOrders("B0"), "b-0")).statusCode).toBe(202);

    // Processed uploads leave the backlog; the next read of the counts lets the key in again.
    expect(await t.drainJobs()).toBeGreaterThanOrEqual(3);
    clock.advance(backlogRefreshMs);
    expect((await upload(t, pa, validOrders("A14"), "a-14")).statusCode).toBe(202);
  });
});
