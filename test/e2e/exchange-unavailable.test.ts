import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCuttableProxy } from "../support/cuttable-proxy.js";
import { provisionTenant } from "../support/fixtures.js";
import { onPostgres } from "../support/test-database.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import { inProcessOnly } from "../support/remote-app.js";
import {
  listMailbox,
  partnerUrl,
  setupPartner,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";

// The app reaches PostgreSQL through a TCP proxy that the test cuts: the database becomes
// unreachable under a running server, as when it restarts or the network fails. PGlite runs in
// the process and cannot become unreachable.
if (!onPostgres) console.warn("exchange-unavailable.test.ts: skipped — needs DATABASE_URL (PostgreSQL)");

describe.skipIf(
  inProcessOnly("cuts the connection of its own app to its database with a proxy; hung remotely") ||
    !onPostgres,
)("rules/interface Errors row: 503 ERR_B2B_EXCHANGE_UNAVAILABLE", () => {
  let t: TestApp;
  let p: PartnerSetup;
  let proxy: Awaited<ReturnType<typeof startCuttableProxy>>;

  beforeAll(async () => {
    proxy = await startCuttableProxy();
    t = await createTestApp({ connectVia: proxy.connectVia });
    const tenant = await provisionTenant(t);
    p = await setupPartner(t, tenant.token);
  });
  afterAll(async () => {
    await t.close().catch(() => undefined);
  });

  it("a partner request while the database is unreachable is 503 with Retry-After and a stable code; it recovers", async () => {
    expect((await upload(t, p, validOrders("UP1"), "before")).statusCode).toBe(202);
    // Cut: no new connections, every open one reset.
    await proxy.close();
    for (const request of [
      () =>
        t.inject({
          method: "GET",
          url: partnerUrl(p.connectionId, "/mailbox"),
          headers: { authorization: `Bearer ${p.token}` },
        }),
      () => upload(t, p, validOrders("UP2"), "during"),
    ]) {
      const r = await request();
      expect(r.statusCode, r.body).toBe(503);
      expect(r.headers["retry-after"]).toMatch(/^[0-9]+$/);
      expect(r.json()).toMatchObject({ code: "ERR_B2B_EXCHANGE_UNAVAILABLE", status: 503 });
      // No driver text, host or port reaches the client.
      expect(r.body).not.toMatch(/ECONN|127\.0\.0\.1|5432|connect/i);
    }
    // The database back: the same server answers again.
    await proxy.reopen();
    expect((await listMailbox(t, p)).items).toBeDefined();
  });
});
