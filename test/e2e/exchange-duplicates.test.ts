// remote mode: in-process only: reads and writes its own database (processed times, the plan of the lookup)
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { duplicateLookup, interchangeKeyHash } from "../../src/modules/exchange/index.js";
import * as exchange from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { indexPlan, uploadAndProcess, uploadView, useTenantApp } from "../support/exchange-app.js";
import { bearer as as } from "../support/test-app.js";
import { defaultDuplicateWindow } from "../../src/platform/db/migrations/2026-11-28T1000-duplicate-interchanges.js";

/*
 * Issue 34 item 1 (rules/contract §8): an upload repeating the UNB sender identification, recipient
 * identification and control reference of an upload of the same connection processed within the
 * profile's `duplicateWindowDays` is rejected with a CONTRL UCI 4 / 26, no ORDRSP or APERAK, and
 * names the earlier upload (`duplicateOf`). The race of two processes is in
 * exchange-duplicates-multiprocess.test.ts.
 */
const { defaultProfile, rejectedOrders, setupPartner, upload, validOrders } = exchange;
const app = useTenantApp();
let counter = 0;

const db = () => app.t.container.database.db;

/** A new upload under a fresh key (or `key`), processed: its status and outbound messages. */
const processUpload = (p: exchange.PartnerSetup, body: string, key = `dup-key-${String(counter++)}`) =>
  uploadAndProcess(app.t, p, body, key);

/** The elements of the CONTRL's UCI segment (UCI itself first). */
function uciOf(contrl: string): string[] {
  const segment = contrl.split("'").find((s) => s.startsWith("UCI+"));
  if (!segment) throw new Error(`no UCI in ${contrl}`);
  return segment.split("+");
}

const operatorView = (uploadId: string) => uploadView(app.t, app.tenant.token, uploadId);

const withProfile = (profile: Record<string, unknown>) => ({ profile: { ...defaultProfile, ...profile } });

describe("duplicate interchanges (rules/contract §8)", () => {
  it("an upload repeating UNB sender, recipient and control reference of a processed upload under a new key is rejected: CONTRL UCI 4 with code 26, no ORDRSP or APERAK, duplicateOf names the earlier upload", async () => {
    const p = await setupPartner(app.t, app.tenant.token);
    const first = await processUpload(p, validOrders("DUP1"));
    expect(first.status).toBe("processed");
    expect(first.outbound.map((o) => o.type)).toEqual(["ORDRSP"]);
    expect((await operatorView(first.uploadId)).duplicateOf).toBeNull();

    const again = await processUpload(p, validOrders("DUP1"));
    expect(again.uploadId).not.toBe(first.uploadId);
    expect(again.status).toBe("rejected");
    expect(again.outbound.map((o) => o.type)).toEqual(["CONTRL"]);
    const uci = uciOf(again.outbound[0]?.text ?? "");
    // UCI 0020, S002 sender, S003 recipient (as received), 0083 action 4, 0085 code 26, on UNB
    // element 5 (0020).
    expect(uci.slice(1)).toEqual(["DUP1", "5412345000013:14", "4012345500004:14", "4", "26", "UNB", "5"]);
    const view = await operatorView(again.uploadId);
    expect(view.status).toBe("rejected");
    expect(view.duplicateOf).toBe(first.uploadId);
    expect(view.findings[0]).toMatchObject({ code: "26", segment: "UNB" });
    expect(view.findings[0]?.message).toContain(first.uploadId);

    // The list carries it too.
    const list = await app.t.inject({
      method: "GET",
      url: `/api/v1/admin/exchange-uploads?connectionId=${p.connectionId}`,
      headers: as(app.tenant.token),
    });
    expect(list.statusCode).toBe(200);
    const { items } = list.json<{ items: { id: string; duplicateOf: string | null }[] }>();
    expect(items.find((u) => u.id === again.uploadId)?.duplicateOf).toBe(first.uploadId);
    expect(items.find((u) => u.id === first.uploadId)?.duplicateOf).toBeNull();

    // A third copy is a duplicate of the processed one, not of the rejected duplicate.
    const third = await processUpload(p, validOrders("DUP1"));
    expect((await operatorView(third.uploadId)).duplicateOf).toBe(first.uploadId);
  });

  it("retrying with the same idempotency key and the same bytes stays a replay, not a duplicate", async () => {
    const p = await setupPartner(app.t, app.tenant.token);
    const first = await processUpload(p, validOrders("DUP2"), "dup-same-key");
    expect(first.status).toBe("processed");
    const retry = await upload(app.t, p, validOrders("DUP2"), "dup-same-key");
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toMatchObject({ uploadId: first.uploadId, replay: true, status: "processed" });
    await app.t.drainJobs();
    expect((await operatorView(first.uploadId)).duplicateOf).toBeNull();
    const count = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM exchange_uploads WHERE connection_id = ${p.connectionId}`.execute(db());
    expect(count.rows[0]?.n).toBe(1);
  });

  it("another control reference, sender or recipient, or another connection, is not a duplicate", async () => {
    const p = await setupPartner(app.t, app.tenant.token);
    expect((await processUpload(p, validOrders("DUP3"))).status).toBe("processed");
    expect((await processUpload(p, validOrders("DUP4"))).status).toBe("processed");
    const otherSender = validOrders("DUP3").replace(
      "UNB+UNOC:3+5412345000013:14",
      "UNB+UNOC:3+5412345000020:14",
    );
    expect((await processUpload(p, otherSender)).status).toBe("processed");
    const otherRecipient = validOrders("DUP3").replace(
      "+4012345500004:14+240315",
      "+4012345500011:14+240315",
    );
    expect((await processUpload(p, otherRecipient)).status).toBe("processed");
    const other = await setupPartner(app.t, app.tenant.token, { partnerId: p.partnerId });
    expect((await processUpload(other, validOrders("DUP3"))).status).toBe("processed");
  });

  it("an interchange repeating a rejected (not processed) upload is processed", async () => {
    const p = await setupPartner(app.t, app.tenant.token);
    const broken = await processUpload(p, rejectedOrders("DUP5"));
    expect(broken.status).toBe("rejected");
    const fixed = await processUpload(p, validOrders("DUP5"));
    expect(fixed.status).toBe("processed");
    expect((await operatorView(fixed.uploadId)).duplicateOf).toBeNull();
  });

  it("duplicateWindowDays 0 turns the check off: the repeat is processed", async () => {
    const p = await setupPartner(app.t, app.tenant.token, withProfile({ duplicateWindowDays: 0 }));
    expect((await processUpload(p, validOrders("DUP6"))).status).toBe("processed");
    const again = await processUpload(p, validOrders("DUP6"));
    expect(again.status).toBe("processed");
    expect(again.outbound.map((o) => o.type)).toEqual(["ORDRSP"]);
  });

  it("an earlier upload processed before the window is not a duplicate; one inside it is", async () => {
    const p = await setupPartner(app.t, app.tenant.token, withProfile({ duplicateWindowDays: 2 }));
    const first = await processUpload(p, validOrders("DUP7"));
    expect(first.status).toBe("processed");
    const back = async (hours: number) =>
      sql`UPDATE exchange_uploads SET completed_at = now() - make_interval(hours => ${hours})
          WHERE id = ${first.uploadId}`.execute(db());
    await back(47);
    const inside = await processUpload(p, validOrders("DUP7"));
    expect(inside.status).toBe("rejected");
    expect((await operatorView(inside.uploadId)).duplicateOf).toBe(first.uploadId);
    await back(49);
    expect((await processUpload(p, validOrders("DUP7"))).status).toBe("processed");
  });

  it("a profile that sends no CONTRL for this interchange (on-request, none requested): rejected, no mailbox entry; requested: the CONTRL with code 26", async () => {
    const p = await setupPartner(
      app.t,
      app.tenant.token,
      withProfile({ responses: { contrl: "on-request", aperak: "always", ordrsp: "auto" } }),
    );
    expect((await processUpload(p, validOrders("DUP8"))).status).toBe("processed");
    const silent = await processUpload(p, validOrders("DUP8"));
    expect(silent.status).toBe("rejected");
    expect(silent.outbound).toEqual([]);
    expect((await operatorView(silent.uploadId)).duplicateOf).not.toBeNull();
    const asked = await processUpload(p, validOrders("DUP8", { ack: true }));
    expect(asked.status).toBe("rejected");
    expect(asked.outbound.map((o) => o.type)).toEqual(["CONTRL"]);
    expect(uciOf(asked.outbound[0]?.text ?? "").slice(4, 6)).toEqual(["4", "26"]);
  });

  it("a large interchange (planned on a worker thread) that repeats a processed one is rejected the same way", async () => {
    const p = await setupPartner(app.t, app.tenant.token);
    const lines = Array.from({ length: 800 }, (_, i) => `40008621${String(i).padStart(5, "0")}`);
    const body = validOrders("DUPBIG", { lines });
    expect(body.length).toBeGreaterThan(16 * 1024);
    const first = await processUpload(p, body);
    expect(first.status).toBe("processed");
    const again = await processUpload(p, body);
    expect(again.status).toBe("rejected");
    expect(again.outbound.map((o) => o.type)).toEqual(["CONTRL"]);
    expect(uciOf(again.outbound[0]?.text ?? "").slice(4, 6)).toEqual(["4", "26"]);
    expect((await operatorView(again.uploadId)).duplicateOf).toBe(first.uploadId);
  });

  it("with CONTRL always, the first upload gets UCI 7 and the duplicate UCI 4 / 26 in syntax version 4", async () => {
    const p = await setupPartner(
      app.t,
      app.tenant.token,
      withProfile({ syntaxVersion: 4, responses: { contrl: "always", aperak: "always", ordrsp: "auto" } }),
    );
    const first = await processUpload(p, validOrders("DUP9"));
    expect(first.outbound.map((o) => o.type)).toEqual(["CONTRL", "ORDRSP"]);
    expect(uciOf(first.outbound[0]?.text ?? "")[4]).toBe("7");
    const again = await processUpload(p, validOrders("DUP9"));
    expect(again.outbound.map((o) => o.type)).toEqual(["CONTRL"]);
    expect(again.outbound[0]?.text).toContain("CONTRL:4:1:UN");
    expect(uciOf(again.outbound[0]?.text ?? "").slice(4, 6)).toEqual(["4", "26"]);
  });
});

describe("duplicateWindowDays on profile revisions", () => {
  it("defaults to 30, is read back on the connection and its revisions, and a new revision may change it", async () => {
    const p = await setupPartner(app.t, app.tenant.token);
    const connection = await app.t.inject({
      method: "GET",
      url: `/api/v1/admin/connections/${p.connectionId}`,
      headers: as(app.tenant.token),
    });
    expect(connection.json()).toMatchObject({
      activeProfileRevision: { revision: 1, duplicateWindowDays: 30 },
    });
    const created = await app.t.inject({
      method: "POST",
      url: `/api/v1/admin/connections/${p.connectionId}/profile-revisions`,
      headers: as(app.tenant.token),
      payload: { ...defaultProfile, duplicateWindowDays: 3650 },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ revision: 2, duplicateWindowDays: 3650 });
    const read = await app.t.inject({
      method: "GET",
      url: `/api/v1/admin/connections/${p.connectionId}/profile-revisions/2`,
      headers: as(app.tenant.token),
    });
    expect(read.json()).toMatchObject({ duplicateWindowDays: 3650 });
  });

  it("a revision made before the check existed gets 30 from the migration", async () => {
    const p = await setupPartner(app.t, app.tenant.token);
    await sql`UPDATE exchange_profile_revisions SET profile = profile - 'duplicateWindowDays'
      WHERE connection_id = ${p.connectionId}`.execute(db());
    await sql.raw(defaultDuplicateWindow).execute(db());
    const revision = await app.t.inject({
      method: "GET",
      url: `/api/v1/admin/connections/${p.connectionId}/profile-revisions/1`,
      headers: as(app.tenant.token),
    });
    expect(revision.json()).toMatchObject({ duplicateWindowDays: 30 });
  });

  it.each([[-1], [3651], [1.5], ["30"], [null]])(
    "duplicateWindowDays %j is 400 with its pointer, nothing created",
    async (value) => {
      const p = await setupPartner(app.t, app.tenant.token);
      const count = async () =>
        (
          await sql<{ n: number }>`SELECT
            (SELECT count(*) FROM exchange_connections WHERE tenant_id = ${app.tenant.id})
            + (SELECT count(*) FROM exchange_profile_revisions WHERE tenant_id = ${app.tenant.id}) AS n`.execute(
            db(),
          )
        ).rows[0]?.n;
      const before = await count();
      const connection = await app.t.inject({
        method: "POST",
        url: "/api/v1/admin/connections",
        headers: as(app.tenant.token),
        payload: { partnerId: p.partnerId, profile: { ...defaultProfile, duplicateWindowDays: value } },
      });
      expect(connection.statusCode, connection.body).toBe(400);
      expect(connection.json()).toMatchObject({
        code: "ERR_VALIDATION",
        errors: [{ pointer: "/profile/duplicateWindowDays" }],
      });
      const revision = await app.t.inject({
        method: "POST",
        url: `/api/v1/admin/connections/${p.connectionId}/profile-revisions`,
        headers: as(app.tenant.token),
        payload: { ...defaultProfile, duplicateWindowDays: value },
      });
      expect(revision.statusCode, revision.body).toBe(400);
      expect(revision.json()).toMatchObject({
        code: "ERR_VALIDATION",
        errors: [{ pointer: "/duplicateWindowDays" }],
      });
      expect(await count()).toBe(before);
    },
  );

  it("the OpenAPI document describes duplicateWindowDays and duplicateOf", async () => {
    const doc = (await app.t.inject({ method: "GET", url: "/openapi.json" })).body;
    expect(doc).toContain('"duplicateWindowDays"');
    expect(doc).toContain('"duplicateOf"');
  });
});

describe("the duplicate check is an index range, not a scan", () => {
  it("the lookup's plan is an index scan of exchange_uploads_processed_interchanges on connection, key and time", async () => {
    const p = await setupPartner(app.t, app.tenant.token);
    // Rows of other connections and statuses, so a scan would have something to read.
    for (let i = 0; i < 5; i++) await processUpload(p, validOrders(`DUPIX${String(i)}`));
    const lookup = duplicateLookup(
      app.t.container.database.db as never,
      app.tenant.id,
      p.connectionId,
      interchangeKeyHash(["5412345000013", "4012345500004", "DUPIX1"]),
      new Date(Date.now() - 30 * 86_400_000),
      "00000000-0000-4000-8000-000000000000",
    );
    const plan = await indexPlan(app.t, lookup);
    expect(plan).toMatch(/Index Scan( Backward)? using exchange_uploads_processed_interchanges/);
    expect(plan).toMatch(/Index Cond: .*interchange_key = /);
    expect(plan).toMatch(/Index Cond: .*completed_at >= /);
    expect(plan).not.toMatch(/Seq Scan|Sort/);
    // And the lookup finds the processed upload.
    expect(await lookup.executeTakeFirst()).toBeDefined();
  });
});
