import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import { inProcessOnly, ownDatabaseOnly, remote } from "../support/remote-app.js";
import { uploadAndProcess, type OutboundMessage } from "../support/exchange-app.js";
import { absent, corpusDir, hasCorpus } from "../support/shared-data.js";
import { defaultChunkBytes } from "../../src/platform/blobs/index.js";
import {
  listMailbox,
  partlyBrokenOrders,
  rejectedOrders,
  setupPartner,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import {
  outboundIssues,
  type OutboundType,
  type ProcessingService,
} from "../../src/modules/exchange/index.js";

// Skipped in the remote mode (test/support/remote-app.ts), each printing why:
const readsCorpusRows = ownDatabaseOnly("reads each upload's status and deliveries in its database");
const ownService = inProcessOnly(
  "runs the processing service of the container and reads its rows and log lines",
);
const plantsProducts = ownDatabaseOnly("publishes catalogue products by writing them into its database");

let t: TestApp;
let tenant: ProvisionedTenant;
let counter = 0;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
});

const db = () => t.container.database.db;

/** Uploads, runs the processing job and returns the upload status and the outbound messages in mailbox order. */
async function process(p: PartnerSetup, body: string | Buffer) {
  if (!remote) return uploadAndProcess(t, p, body, `key-${counter++}`);
  const r = await upload(t, p, body, `key-${counter++}`);
  expect(r.statusCode, r.body).toBe(202);
  const { uploadId } = r.json<{ uploadId: string }>();
  await t.drainJobs();
  return processedRemotely(uploadId);
}

/**
 * The remote mode's reading of `process` (remote-app.ts): no database of its own, so the upload's
 * status and its outbound messages (in mailbox order, with their interchange ids) come from the
 * operator views, and each message's bytes from the delivery's content, which leaves the delivery
 * untouched. The upload, its processing by a worker process and these reads may each reach
 * another process.
 */
async function processedRemotely(uploadId: string) {
  const view = await t.inject({
    method: "GET",
    url: `/api/v1/admin/exchange-uploads/${uploadId}`,
    headers: bearer(tenant.token),
  });
  expect(view.statusCode, view.body).toBe(200);
  const detail = view.json<{
    status: string;
    outbound: { deliveryAttemptId: string; messageType: string; interchangeId: string }[];
  }>();
  const outbound: OutboundMessage[] = [];
  for (const item of detail.outbound) {
    const content = await t.inject({
      method: "GET",
      url: `/api/v1/admin/exchange-deliveries/${item.deliveryAttemptId}/content`,
      headers: bearer(tenant.token),
    });
    expect(content.statusCode, content.body).toBe(200);
    outbound.push({
      type: item.messageType,
      interchangeId: item.interchangeId,
      text: content.rawPayload.toString("latin1"),
    });
  }
  return { uploadId, status: detail.status, outbound, types: outbound.map((o) => o.type) };
}

const profileWith = (responses: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  profile: { responses: { contrl: "on-error", aperak: "on-error", ordrsp: "auto", ...responses }, ...extra },
});

describe("outbound envelope (rules/contract §4)", () => {
  it("UNB sender = own identification, recipient = partner identification, fresh control references", async () => {
    const p = await setupPartner(t, tenant.token, profileWith({ contrl: "always" }));
    const a = await process(p, validOrders("ENV1"));
    const b = await process(p, validOrders("ENV1"));
    expect(a.types).toEqual(["CONTRL", "ORDRSP"]);
    for (const o of [...a.outbound, ...b.outbound]) {
      expect(o.text).toMatch(/^UNB\+UNOC:3\+4012345500004:14\+5412345000013:14\+\d{6}:\d{4}\+/);
      expect(o.text).toContain(`+${o.interchangeId}'`);
      expect(o.text).toMatch(new RegExp(`UNZ\\+1\\+${o.interchangeId}'$`));
    }
    const refs = [...a.outbound, ...b.outbound].map((o) => o.interchangeId);
    expect(new Set(refs).size).toBe(refs.length);
  });

  it("mailbox items carry uploadId, inboundInterchangeId, messageReference and the outbound interchangeId", async () => {
    const p = await setupPartner(t, tenant.token, profileWith({ contrl: "always" }));
    const { uploadId, outbound } = await process(p, validOrders("MBX1"));
    const list = await listMailbox(t, p);
    expect(list.items).toHaveLength(2);
    for (const [i, item] of list.items.entries()) {
      expect(item).toMatchObject({
        uploadId,
        inboundInterchangeId: "MBX1",
        messageReference: "1",
        interchangeId: outbound[i]?.interchangeId,
        messageType: outbound[i]?.type,
        status: "ready",
        payloadSize: Buffer.byteLength(outbound[i]?.text ?? "", "latin1"),
      });
      expect(item.payloadSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(item.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });
});

describe("responses.contrl", () => {
  it("always: a positive CONTRL (UCI action 7, no action 8) for a clean interchange", async () => {
    const p = await setupPartner(t, tenant.token, profileWith({ contrl: "always" }));
    const r = await process(p, validOrders("C1"));
    expect(r.status).toBe("processed");
    expect(r.outbound[0]?.text).toContain("UNH+1+CONTRL:2:2:UN'UCI+C1+5412345000013:14+4012345500004:14+7'");
  });
  it("on-error (default): no CONTRL for a clean interchange, only the ORDRSP", async () => {
    const p = await setupPartner(t, tenant.token);
    const r = await process(p, validOrders("C2"));
    expect(r.types).toEqual(["ORDRSP"]);
  });
  it("on-error: a CONTRL when UNB 0031 = 1", async () => {
    const p = await setupPartner(t, tenant.token);
    const r = await process(p, validOrders("C3", { ack: true }));
    expect(r.types).toEqual(["CONTRL", "ORDRSP"]);
  });
  it("on-request: only when UNB 0031 = 1 — a rejected interchange without request gets none", async () => {
    const p = await setupPartner(t, tenant.token, profileWith({ contrl: "on-request" }));
    const rejected = await process(p, rejectedOrders("C4"));
    expect(rejected.status).toBe("rejected");
    expect(rejected.types).toEqual([]);
    const requested = await process(p, validOrders("C5", { ack: true }));
    expect(requested.types).toEqual(["CONTRL", "ORDRSP"]);
  });
  it("interchange-level error (UNZ count/reference mismatch): UCI action 4, upload rejected, no ORDRSP", async () => {
    const p = await setupPartner(t, tenant.token);
    const r = await process(p, rejectedOrders("C6"));
    expect(r.status).toBe("rejected");
    expect(r.types).toEqual(["CONTRL"]);
    expect(r.outbound[0]?.text).toMatch(/UCI\+C6\+5412345000013:14\+4012345500004:14\+4\+/);
  });
  it("message-level errors: UCI 7, UCM action 4 for the bad message; ORDRSP only for the accepted one; processed", async () => {
    const p = await setupPartner(t, tenant.token);
    const r = await process(p, partlyBrokenOrders("C7"));
    expect(r.status).toBe("processed");
    expect(r.types).toEqual(["CONTRL", "ORDRSP"]);
    expect(r.outbound[0]?.text).toContain("UCI+C7+5412345000013:14+4012345500004:14+7'");
    expect(r.outbound[0]?.text).toMatch(/UCM\+2\+ORDERS:D:96A:UN\+4/);
    expect(r.outbound[1]?.text).toContain("RFF+ON:PO1'");
  });
  it("every message rejected: the upload is rejected", async () => {
    const p = await setupPartner(t, tenant.token);
    const body = validOrders("C8").replace("ORDERS:D:96A:UN", "ORDERS:D:01B:UN");
    const r = await process(p, body);
    expect(r.status).toBe("rejected");
    expect(r.types).toEqual(["CONTRL"]);
  });
  it("syntax version 4 profile: CONTRL 4:1", async () => {
    const p = await setupPartner(t, tenant.token, profileWith({ contrl: "always" }, { syntaxVersion: 4 }));
    const r = await process(p, validOrders("C9"));
    expect(r.outbound[0]?.text).toMatch(/^UNB\+UNOC:4\+/);
    expect(r.outbound[0]?.text).toContain("CONTRL:4:1:UN");
  });
});

describe("directory of the active profile revision", () => {
  it("D25A: ORDERS D:25A validated and answered with ORDRSP D:25A; a D:96A message is rejected", async () => {
    const p = await setupPartner(t, tenant.token, { profile: { directory: "D25A" } });
    const ok = await process(p, validOrders("D1").replace("ORDERS:D:96A:UN", "ORDERS:D:25A:UN"));
    expect(ok.status).toBe("processed");
    expect(ok.outbound.at(-1)?.text).toContain("ORDRSP:D:25A:UN");
    const wrong = await process(p, validOrders("D2"));
    expect(wrong.status).toBe("rejected");
  });
  it("an upload is processed under the revision active when it was received", async () => {
    const p = await setupPartner(t, tenant.token);
    const headers = { authorization: `Bearer ${tenant.token}` };
    const rev = await t.inject({
      method: "POST",
      url: `/api/v1/admin/connections/${p.connectionId}/profile-revisions`,
      headers,
      payload: {
        directory: "D96A",
        syntaxVersion: 3,
        syntaxIdentifier: "UNOC",
        partnerIdentification: { id: "5412345000013", qualifier: "14" },
        ownIdentification: { id: "4012345500004", qualifier: "14" },
        responses: { contrl: "always", ordrsp: "never" },
      },
    });
    expect(rev.statusCode).toBe(201);
    const before = await process(p, validOrders("REV1"));
    expect(before.types).toEqual(["ORDRSP"]);
    const act = await t.inject({
      method: "POST",
      url: `/api/v1/admin/connections/${p.connectionId}/profile-revisions/2/activate`,
      headers,
    });
    expect(act.statusCode).toBe(200);
    const after = await process(p, validOrders("REV2"));
    expect(after.types).toEqual(["CONTRL"]);
  });
});

describe("order handling", () => {
  it('orderValidation "none": every line accepted as ordered — BGM response type 29, LIN action 5', async () => {
    const p = await setupPartner(t, tenant.token);
    const r = await process(p, validOrders("O1", { lines: ["4000862141404", "4000862141411"] }));
    const ordrsp = r.outbound[0]?.text ?? "";
    expect(ordrsp).toMatch(/BGM\+231\+[^+]+\+29'/);
    expect(ordrsp).toContain("LIN+1+5+4000862141404:EN'");
    expect(ordrsp).toContain("LIN+2+5+4000862141411:EN'");
  });

  it('orderValidation "catalog": published GTIN accepted (5), others not (7), unknown GTIN in an APERAK', async ({
    skip,
  }) => {
    skip(plantsProducts);
    const now = new Date();
    for (const [gtin, state] of [
      ["4000862141404", "published"],
      ["4000862141428", "draft"],
    ] as const) {
      await sql`INSERT INTO workflow_entities (tenant_id, id, kind, state, version, attributes, created_at, updated_at)
        VALUES (${tenant.id}, gen_random_uuid(), 'product', ${state}, 1, ${JSON.stringify({ gtin })}::jsonb, ${now}, ${now})`.execute(
        db(),
      );
    }
    const p = await setupPartner(t, tenant.token, { profile: { orderValidation: "catalog" } });
    const r = await process(
      p,
      validOrders("O2", { lines: ["4000862141404", "4000862141411", "4000862141428"] }),
    );
    expect(r.status).toBe("processed");
    expect(r.types).toEqual(["APERAK", "ORDRSP"]);
    const [aperak, ordrsp] = [r.outbound[0]?.text ?? "", r.outbound[1]?.text ?? ""];
    expect(aperak).toContain("BGM+313+");
    expect(aperak).toContain("4000862141411");
    expect(aperak).not.toContain("4000862141428");
    expect(aperak).toContain("RFF+ON:PO-O2'");
    expect(ordrsp).toMatch(/BGM\+231\+[^+]+\+4'/);
    expect(ordrsp).toContain("LIN+1+5+4000862141404:EN'");
    expect(ordrsp).toContain("LIN+2+7+4000862141411:EN'");
    expect(ordrsp).toContain("LIN+3+7+4000862141428:EN'");

    const never = await setupPartner(t, tenant.token, {
      profile: { orderValidation: "catalog", responses: { aperak: "never" } },
    });
    const quiet = await process(never, validOrders("O3", { lines: ["4000862141411"] }));
    expect(quiet.types).toEqual(["ORDRSP"]);
    expect(quiet.outbound[0]?.text).toMatch(/BGM\+231\+[^+]+\+27'/);
  });

  it("rules/contract §4: a LIN item number of type SRV is a GTIN, also in D.96A with a plain UN header", async ({
    skip,
  }) => {
    skip(plantsProducts);
    const now = new Date();
    await sql`INSERT INTO workflow_entities (tenant_id, id, kind, state, version, attributes, created_at, updated_at)
      VALUES (${tenant.id}, gen_random_uuid(), 'product', 'published', 1, ${JSON.stringify({ gtin: "4000862141435" })}::jsonb, ${now}, ${now})`.execute(
      db(),
    );
    const p = await setupPartner(t, tenant.token, {
      profile: { orderValidation: "catalog", responses: { contrl: "always" } },
    });
    const srv = validOrders("O9", { lines: ["4000862141435", "4000862141442"] }).replaceAll(":EN'", ":SRV'");
    expect(srv).toContain("UNH+1+ORDERS:D:96A:UN'");
    const r = await process(p, srv);
    expect(r.status).toBe("processed");
    expect(r.types).toEqual(["CONTRL", "APERAK", "ORDRSP"]);
    expect(r.outbound[0]?.text).not.toContain("UCM");
    const ordrsp = r.outbound[2]?.text ?? "";
    expect(ordrsp).toContain("LIN+1+5+4000862141435:SRV'");
    expect(ordrsp).toContain("LIN+2+7+4000862141442:SRV'");
  });

  it("issue 20 defect 7: codes an EANCOM order may carry but the UN directory lacks are left out of ORDRSP and APERAK", async () => {
    const p = await setupPartner(t, tenant.token, {
      profile: { orderValidation: "catalog", responses: { contrl: "always" } },
    });
    // EAN008 association: the order's codes follow the EANCOM guideline, not the UN lists.
    const eancom = validOrders("O10")
      .replace("ORDERS:D:96A:UN'", "ORDERS:D:96A:UN:EAN008'")
      .replace("NAD+BY+5412345000013::9'", "NAD+BY+5412345000013::XX'")
      .replace("4000862141404:EN'", "4000862141404:XYZ'");
    const r = await process(p, eancom);
    expect(r.status).toBe("processed");
    expect(r.types).toEqual(["CONTRL", "APERAK", "ORDRSP"]);
    const [aperak, ordrsp] = [r.outbound[1]?.text ?? "", r.outbound[2]?.text ?? ""];
    for (const text of [aperak, ordrsp]) {
      expect(text).toContain("NAD+BY+5412345000013'");
      expect(text).not.toContain("::XX");
      expect(text).not.toContain("XYZ");
    }
    expect(ordrsp).toContain("LIN+1+7+4000862141404'");
    // The test setup (outbound-check.setup.ts) validated each of them against D96A as well.
    for (const o of r.outbound) {
      expect(outboundIssues(o.type as OutboundType, Buffer.from(o.text, "latin1"), "D96A")).toEqual([]);
    }
  });

  it('responses.ordrsp "never": no ORDRSP', async () => {
    const p = await setupPartner(t, tenant.token, profileWith({ ordrsp: "never" }));
    const r = await process(p, validOrders("O4"));
    expect(r.status).toBe("processed");
    expect(r.types).toEqual([]);
  });

  it("one ORDRSP per accepted ORDERS message, in message order", async () => {
    const p = await setupPartner(t, tenant.token);
    const body = validOrders("O5").replace(
      "UNZ+1+O5'",
      "UNH+2+ORDERS:D:96A:UN'BGM+220+PO-SECOND+9'DTM+137:20240315:102'LIN+1++4000862141404:EN'QTY+21:1'UNS+S'UNT+7+2'UNZ+2+O5'",
    );
    const r = await process(p, body);
    expect(r.types).toEqual(["ORDRSP", "ORDRSP"]);
    expect(r.outbound[0]?.text).toContain("RFF+ON:PO-O5'");
    expect(r.outbound[1]?.text).toContain("RFF+ON:PO-SECOND'");
  });

  it("an ORDRSP larger than one blob chunk is stored whole: every line answered, its size and SHA-256 in the mailbox entry", async () => {
    const p = await setupPartner(t, tenant.token);
    const lines = Array.from({ length: 30_000 }, () => "4000862141404");
    const r = await process(p, validOrders("O6", { lines }));
    expect(r.status).toBe("processed");
    expect(r.types).toEqual(["ORDRSP"]);
    const bytes = Buffer.from(r.outbound[0]?.text ?? "", "latin1");
    expect(bytes.length).toBeGreaterThan(defaultChunkBytes);
    expect(bytes.toString("latin1").match(/'LIN\+/g)).toHaveLength(lines.length);
    expect(bytes.toString("latin1")).toMatch(/UNZ\+1\+\d+'$/);
    const [entry] = (await listMailbox(t, p)).items;
    expect(entry).toMatchObject({
      uploadId: r.uploadId,
      payloadSize: bytes.length,
      payloadSha256: createHash("sha256").update(bytes).digest("hex"),
    });
  });
});

describe("processing job", () => {
  it("status received → processing → processed, and re-running never duplicates mailbox entries", async ({
    skip,
  }) => {
    skip(ownService);
    const p = await setupPartner(t, tenant.token, profileWith({ contrl: "always" }));
    const r = await upload(t, p, validOrders("J1"), "job-rerun");
    const { uploadId } = r.json<{ uploadId: string }>();
    const processing = (
      t.container.modules.find((m) => m.name === "exchange") as unknown as { processing: ProcessingService }
    ).processing;
    await Promise.all([
      processing.processUpload(tenant.id, uploadId),
      processing.processUpload(tenant.id, uploadId),
    ]);
    await t.drainJobs();
    await processing.processUpload(tenant.id, uploadId);
    const rows = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM exchange_deliveries WHERE upload_id = ${uploadId}`.execute(db());
    expect(rows.rows[0]?.n).toBe(2);
    const audit = await sql<{
      type: string;
    }>`SELECT type FROM audit_events WHERE upload_id = ${uploadId} ORDER BY id`.execute(db());
    expect(audit.rows.map((a) => a.type)).toEqual(["upload.received", "upload.processed"]);
  });

  it("a job whose attempt budget is spent marks the upload failed and alerts the operator", async ({
    skip,
  }) => {
    skip(ownService);
    const p = await setupPartner(t, tenant.token);
    const r = await upload(t, p, validOrders("J2"), "job-dead");
    const { uploadId } = r.json<{ uploadId: string }>();
    const processing = (
      t.container.modules.find((m) => m.name === "exchange") as unknown as { processing: ProcessingService }
    ).processing;
    await processing.failUpload(tenant.id, uploadId, new Error("boom"));
    const row = await sql<{
      status: string;
    }>`SELECT status FROM exchange_uploads WHERE id = ${uploadId}`.execute(db());
    expect(row.rows[0]?.status).toBe("failed");
    expect(t.logs.some((l) => l.includes("exchange.upload.failed"))).toBe(true);
  });
});

/**
 * Expected outcome per corpus file under a D.96A profile with CONTRL `always`: "400" is the
 * synchronous "exactly one interchange" check (no UNB, no UNZ, several interchanges); otherwise
 * the upload status and the outbound messages in mailbox order. Only ORDERS are taken, so other
 * message types are rejected (14); a message of another release is rejected (14).
 */
const EXPECTED: Record<string, string> = {
  "aperak-d96a-bots-1.edi": "rejected CONTRL",
  "contrl-d3-jacobemcken-1.edi": "rejected CONTRL",
  "contrl-v41-edifabric-1.edi": "rejected CONTRL",
  "invoic-d97b-staedi-1.edi": "rejected CONTRL",
  "orders-d01b-edireader-1.edi": "rejected CONTRL",
  "orders-d01b-phpedifact-1.edi": "rejected CONTRL",
  "orders-d01b-phpedifact-2.edi": "rejected CONTRL",
  "orders-d96a-bots-1.edi":
    "processed CONTRL,ORDRSP,ORDRSP,ORDRSP,ORDRSP,ORDRSP,ORDRSP,ORDRSP,ORDRSP,ORDRSP,ORDRSP,ORDRSP,ORDRSP",
  "orders-d96a-bots-2.edi": "processed CONTRL,ORDRSP,ORDRSP,ORDRSP,ORDRSP",
  "orders-d96a-bots-3.edi": "400",
  "orders-d96a-bots-4.edi": "400",
  "orders-d96a-edifabric-1.edi": "processed CONTRL,ORDRSP",
  "orders-d96a-edifabric-10.edi": "processed CONTRL,ORDRSP",
  "orders-d96a-edifabric-11.edi": "processed CONTRL,ORDRSP",
  "orders-d96a-edifabric-2.edi": "rejected CONTRL",
  "orders-d96a-edifabric-3.edi": "rejected CONTRL",
  "orders-d96a-edifabric-4.edi": "rejected CONTRL",
  "orders-d96a-edifabric-5.edi": "400",
  "orders-d96a-edifabric-6.edi": "rejected CONTRL",
  "orders-d96a-edifabric-7.edi": "processed CONTRL,ORDRSP",
  "orders-d96a-edifabric-8.edi": "400",
  "orders-d96a-edifabric-9.edi": "processed CONTRL,ORDRSP",
  "orders-d96a-edifactrs-1.edi": "400",
  "orders-d96a-edifactrs-2.edi": "400",
  "orders-d96a-pydifact-1.edi": "400",
  "orders-d96a-pydifact-2.edi": "400",
  "orders-d96a-synthetic-v4-1.edi": "processed CONTRL,ORDRSP",
  "orders-d96b-staedi-1.edi": "rejected CONTRL",
  "ordrsp-d96a-edifabric-1.edi": "rejected CONTRL",
  "syntax-charset-phpedifact-1.edi": "rejected CONTRL",
  "syntax-linebreak-phpedifact-1.edi": "rejected CONTRL",
  "syntax-release-phpedifact-1.edi": "rejected CONTRL",
  "syntax-release-smooks-1.edi": "400",
  "syntax-una-edireader-1.edi": "rejected CONTRL",
  "syntax-una-staedi-1.edi": "rejected CONTRL",
  "syntax-una-staedi-2.edi": "rejected CONTRL",
};

describe.runIf(hasCorpus)("corpus: every interchange ends in the expected status", () => {
  it("uploads every corpus file", async ({ skip }) => {
    skip(readsCorpusRows);
    // Corpus files from one source share control references: the duplicate check (rules/contract §8,
    // exchange-duplicates.test.ts) is off here, each file's own outcome is what counts.
    const p = await setupPartner(
      t,
      tenant.token,
      profileWith({ contrl: "always" }, { duplicateWindowDays: 0 }),
    );
    const results: Record<string, string> = {};
    for (const file of readdirSync(corpusDir)
      .filter((f) => f.endsWith(".edi"))
      .sort()) {
      const bytes = readFileSync(join(corpusDir, file));
      const r = await upload(t, p, bytes, `corpus-${file}`);
      if (r.statusCode !== 202) {
        results[file] = `${r.statusCode}`;
        continue;
      }
      await t.drainJobs();
      const { uploadId } = r.json<{ uploadId: string }>();
      const status = (
        await sql<{ status: string }>`SELECT status FROM exchange_uploads WHERE id = ${uploadId}`.execute(
          db(),
        )
      ).rows[0]?.status;
      const types = (
        await sql<{
          t: string;
        }>`SELECT message_type AS t FROM exchange_deliveries WHERE upload_id = ${uploadId} ORDER BY position`.execute(
          db(),
        )
      ).rows.map((x) => x.t);
      results[file] = `${status} ${types.join(",")}`;
    }
    for (const [file, outcome] of Object.entries(results)) {
      expect(outcome, file).toBe(EXPECTED[file] ?? "(a new corpus file: add its expectation)");
    }
  });
});
if (!hasCorpus) console.warn(`corpus tests ${absent(corpusDir)}`);
