// remote mode: in-process only: reads its own database (mailbox positions, jobs) and damages a stored upload
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { batchDuplicateLookup, interchangeKeyHash } from "../../src/modules/exchange/index.js";
import * as exchange from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { processUploadBatchMax } from "../../src/modules/exchange/processing/process-upload.job.js";
import { indexPlan, uploadView, useTenantApp } from "../support/exchange-app.js";

/*
 * Issue 35 item 2: when a backlog of uploads waits, a worker processes several in one transaction
 * (docs/partner-exchange.md, "Processing in batches"). What a partner and an operator see stays
 * what they see of uploads processed one at a time: each connection's mailbox in upload order
 * with gap-free positions, duplicates rejected, and one upload that fails never holds back the
 * others of its batch.
 */
const { defaultProfile, listMailbox, rejectedOrders, setupPartner, upload, validOrders } = exchange;
const app = useTenantApp();
const db = () => app.t.container.database.db;
let counter = 0;

/** CONTRL and ORDRSP for every clean upload: two mailbox entries each. */
const both = { profile: { ...defaultProfile, responses: { ...defaultProfile.responses, contrl: "always" } } };

async function accept(p: exchange.PartnerSetup, body: string): Promise<string> {
  const r = await upload(app.t, p, body, `batch-key-${String(counter++)}`);
  expect(r.statusCode, r.body).toBe(202);
  return r.json<{ uploadId: string }>().uploadId;
}

const operatorView = (uploadId: string) => uploadView(app.t, app.tenant.token, uploadId);

/** The uploads' distinct completion times: uploads processed in one transaction share theirs. */
async function completionTimes(uploadIds: readonly string[]): Promise<number> {
  const times = new Set<string | null>();
  for (const id of uploadIds) times.add((await operatorView(id)).completedAt);
  return times.size;
}

describe("processing a backlog in batches (issue 35 item 2)", () => {
  it("a backlog of two connections: each mailbox in upload order, positions gap-free, in fewer transactions than uploads", async () => {
    const a = await setupPartner(app.t, app.tenant.token, both);
    const b = await setupPartner(app.t, app.tenant.token, both);
    const uploaded: Record<string, string[]> = { [a.connectionId]: [], [b.connectionId]: [] };
    // Interleaved, more than one batch holds.
    for (let i = 0; i < processUploadBatchMax + 4; i++) {
      for (const p of [a, b]) uploaded[p.connectionId]?.push(await accept(p, validOrders(`BAT${String(i)}`)));
    }
    await app.t.drainJobs();
    for (const p of [a, b]) {
      const ids = uploaded[p.connectionId] ?? [];
      for (const id of ids) expect((await operatorView(id)).status).toBe("processed");
      // The mailbox lists in position order: CONTRL, ORDRSP of each upload, in upload order.
      const items = [];
      let query = "?limit=100";
      for (;;) {
        const page = await listMailbox(app.t, p, query);
        items.push(...page.items);
        if (!page.meta.nextCursor) break;
        query = `?limit=100&cursor=${encodeURIComponent(page.meta.nextCursor)}`;
      }
      expect(items.map((item) => item.uploadId)).toEqual(ids.flatMap((id) => [id, id]));
      expect(items.map((item) => item.messageType)).toEqual(ids.flatMap(() => ["CONTRL", "ORDRSP"]));
      const positions = await sql<{ position: number }>`
        SELECT position FROM exchange_deliveries WHERE connection_id = ${p.connectionId} ORDER BY position`.execute(
        db(),
      );
      expect(positions.rows.map((row) => row.position)).toEqual(
        ids.flatMap((_, i) => [2 * i + 1, 2 * i + 2]),
      );
      // Batched: uploads of one transaction share their completion time.
      expect(await completionTimes(ids)).toBeLessThan(ids.length / 2);
    }
    // Every upload has its audit record.
    const audited = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM audit_events
      WHERE type = 'upload.processed' AND connection_id IN (${a.connectionId}, ${b.connectionId})`.execute(
      db(),
    );
    expect(audited.rows[0]?.n).toBe(2 * (processUploadBatchMax + 4));
  });

  it("two uploads of one interchange in one batch: the second is the duplicate of the first; one repeating an earlier upload is its duplicate", async () => {
    const p = await setupPartner(app.t, app.tenant.token);
    const earlier = await accept(p, validOrders("BDUPE"));
    await app.t.drainJobs();
    const before = await accept(p, validOrders("BDUPA"));
    const repeat = await accept(p, validOrders("BDUPE"));
    const first = await accept(p, validOrders("BDUP"));
    const second = await accept(p, validOrders("BDUP"));
    const after = await accept(p, validOrders("BDUPB"));
    await app.t.drainJobs();
    expect(await operatorView(first)).toMatchObject({ status: "processed", duplicateOf: null });
    expect(await operatorView(second)).toMatchObject({ status: "rejected", duplicateOf: first });
    // One of a batch repeating an upload processed before is its duplicate too.
    expect(await operatorView(repeat)).toMatchObject({ status: "rejected", duplicateOf: earlier });
    for (const id of [before, after]) expect((await operatorView(id)).status).toBe("processed");
    const mailbox = await listMailbox(app.t, p);
    expect(mailbox.items.map((item) => [item.uploadId, item.messageType])).toEqual([
      [earlier, "ORDRSP"],
      [before, "ORDRSP"],
      [repeat, "CONTRL"],
      [first, "ORDRSP"],
      [second, "CONTRL"],
      [after, "ORDRSP"],
    ]);
  });

  it("a rejected interchange in a batch is rejected with its CONTRL and audit record, beside the processed ones", async () => {
    const p = await setupPartner(app.t, app.tenant.token);
    const clean = await accept(p, validOrders("BREJ1"));
    const broken = await accept(p, rejectedOrders("BREJ2"));
    const later = await accept(p, validOrders("BREJ3"));
    await app.t.drainJobs();
    expect((await operatorView(broken)).status).toBe("rejected");
    for (const id of [clean, later]) expect((await operatorView(id)).status).toBe("processed");
    expect(await completionTimes([clean, broken, later])).toBe(1);
    const mailbox = await listMailbox(app.t, p);
    expect(mailbox.items.map((item) => [item.uploadId, item.messageType])).toEqual([
      [clean, "ORDRSP"],
      [broken, "CONTRL"],
      [later, "ORDRSP"],
    ]);
    const audited = await sql<{ type: string }>`
      SELECT type FROM audit_events WHERE upload_id = ${broken}`.execute(db());
    const types = audited.rows.map((row) => row.type);
    expect(types.filter((type) => type === "upload.rejected")).toHaveLength(1);
    expect(types).not.toContain("upload.processed");
  });

  it("uploads without outbound messages are processed in a batch; one repeating an earlier upload is its duplicate, answered with its CONTRL", async () => {
    const quiet = {
      profile: { ...defaultProfile, responses: { ...defaultProfile.responses, ordrsp: "never" } },
    };
    const p = await setupPartner(app.t, app.tenant.token, quiet);
    const earlier = await accept(p, validOrders("BQUIET"));
    await app.t.drainJobs();
    // Nothing to reserve: the batch locks the connection for its duplicate check only.
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await accept(p, validOrders(`BQUIET${String(i)}`)));
    await app.t.drainJobs();
    for (const id of [earlier, ...ids]) expect((await operatorView(id)).status).toBe("processed");
    expect(await completionTimes(ids)).toBe(1);
    const repeat = await accept(p, validOrders("BQUIET"));
    const later = await accept(p, validOrders("BQUIET9"));
    await app.t.drainJobs();
    expect(await operatorView(repeat)).toMatchObject({ status: "rejected", duplicateOf: earlier });
    expect((await operatorView(later)).status).toBe("processed");
    const mailbox = await listMailbox(app.t, p);
    expect(mailbox.items.map((item) => [item.uploadId, item.messageType])).toEqual([[repeat, "CONTRL"]]);
    const positions = await sql<{ position: number }>`
      SELECT position FROM exchange_deliveries WHERE connection_id = ${p.connectionId}`.execute(db());
    expect(positions.rows.map((row) => row.position)).toEqual([1]);
  });

  it("an upload whose processing fails (its stored bytes damaged) retries alone; the others of its batch are processed", async () => {
    const p = await setupPartner(app.t, app.tenant.token, both);
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(await accept(p, validOrders(`BFAIL${String(i)}`)));
    const damaged = ids[2] ?? "";
    await sql`DELETE FROM blob_chunks WHERE blob_id = (SELECT blob_id FROM exchange_uploads WHERE id = ${damaged})`.execute(
      db(),
    );
    await app.t.drainJobs();
    const others = ids.filter((id) => id !== damaged);
    for (const id of others) expect((await operatorView(id)).status).toBe("processed");
    // The failing upload is not processed, nothing of it is in the mailbox, and its job waits for
    // its own second attempt.
    expect((await operatorView(damaged)).status).toBe("processing");
    const mailbox = await listMailbox(app.t, p);
    expect(mailbox.items.map((item) => item.uploadId)).toEqual(others.flatMap((id) => [id, id]));
    const job = await sql<{ state: string; attempts: number; last_error: string | null }>`
      SELECT state, attempts, last_error FROM jobs
      WHERE name = 'exchange.process-upload' AND payload->>'uploadId' = ${damaged}`.execute(db());
    expect(job.rows[0]).toMatchObject({ state: "queued", attempts: 1 });
    expect(job.rows[0]?.last_error).toContain("stored upload is incomplete");
    expect(app.t.logs.some((line) => line.includes("processing a batch of uploads failed"))).toBe(true);
  });

  it("the batch's duplicate check is an index range per connection, not a scan", async () => {
    const p = await setupPartner(app.t, app.tenant.token);
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await accept(p, validOrders(`BIX${String(i)}`)));
    await app.t.drainJobs();
    const since = new Date(Date.now() - 30 * 86_400_000);
    const lookup = batchDuplicateLookup(
      db() as never,
      ["BIX1", "BIX2", "BIX9"].map((ref) => ({
        tenantId: app.tenant.id,
        connectionId: p.connectionId,
        key: interchangeKeyHash(["5412345000013", "4012345500004", ref]),
        since,
      })),
      ["00000000-0000-4000-8000-000000000000"],
    );
    const plan = await indexPlan(app.t, lookup);
    // The connection's window of processed uploads, its keys as one `= ANY` (an index condition
    // or, on a table this small, PostgreSQL's filter within the range).
    expect(plan).toMatch(/Index Scan using exchange_uploads_processed_interchanges/);
    expect(plan).toMatch(/Index Cond: .*connection_id = .*completed_at >= /);
    expect(plan).toMatch(/interchange_key = ANY/);
    expect(plan).not.toMatch(/Seq Scan|Sort/);
    // And it finds a processed upload repeated.
    expect(await lookup.executeTakeFirst()).toBeDefined();
  });
});
