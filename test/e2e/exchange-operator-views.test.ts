/* eslint-disable @typescript-eslint/no-unsafe-assignment -- vitest asymmetric matchers are typed any */
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectSessionRouteDenials } from "../support/auth-cases.js";
import { provisionTenant, systemToken, type ProvisionedTenant } from "../support/fixtures.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import { inProcessOnly, ownDatabaseOnly } from "../support/remote-app.js";
import type { SegmentTree as Segments, UploadFinding as Finding, UploadOutbound } from "@hanse/client";
import {
  ordersMessage,
  setupPartner,
  streamUpload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";

// Skipped in the remote mode (test/support/remote-app.ts), each printing why:
const countsAudit = ownDatabaseOnly("counts the audit events in its database (nothing audited)");
const readsLogs = inProcessOnly("checks the server's log lines and counts audit events in its database");

// Issue 24 item 2: an upload's operator view says why it was rejected (findings with their codes
// and positions) and lists what it produced; operators read the bytes of uploads and deliveries
// (audited, never logged) and their segment trees. Everything over a real port.

let t: TestApp;
let tenant: ProvisionedTenant;
let base: string;
let counter = 0;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await provisionTenant(t);
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await t.close();
});

const uploads = "/api/v1/admin/exchange-uploads";
const deliveries = "/api/v1/admin/exchange-deliveries";

async function get(path: string, token = tenant.token) {
  const response = await request(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  return {
    status: response.statusCode,
    headers: response.headers,
    bytes,
    json: <T = unknown>() => JSON.parse(bytes.toString("utf8")) as T,
  };
}

/** The upload's operator view and the four reads of stored interchanges. */
const viewPaths = (uploadId: string, deliveryId: string) => [
  `${uploads}/${uploadId}`,
  `${uploads}/${uploadId}/content`,
  `${uploads}/${uploadId}/segments`,
  `${deliveries}/${deliveryId}/content`,
  `${deliveries}/${deliveryId}/segments`,
];

interface UploadDetail {
  id: string;
  status: string;
  error: string | null;
  findings: Finding[];
  findingCount: number;
  outbound: UploadOutbound[];
  outboundCounts: Record<string, number>;
}

/** How many content reads the audit trail holds. */
const contentReads = async () =>
  (
    await t.container.database.db
      .selectFrom("audit_events" as never)
      .select("type" as never)
      .execute()
  ).filter((r) => (r as { type: string }).type.endsWith(".content.read")).length;

/** Uploads over HTTP, runs the processing job, answers the upload's operator view. */
async function processed(p: PartnerSetup, body: string | Buffer) {
  const bytes = typeof body === "string" ? Buffer.from(body, "latin1") : body;
  const response = await streamUpload(base, p, bytes, `views-${String(counter++)}`);
  expect(response.statusCode).toBe(202);
  const { uploadId } = (await response.body.json()) as { uploadId: string };
  await t.drainJobs();
  const view = await get(`${uploads}/${uploadId}`);
  expect(view.status).toBe(200);
  return { uploadId, bytes, view: view.json<UploadDetail>() };
}

const valid = validOrders("OV1");
// UNB=1 UNH=2 BGM=3 DTM=4 NAD=5 NAD=6 LIN=7 QTY=8 UNS=9 CNT=10 UNT=11 UNZ=12
expect(valid).toContain("UNT+10+1'");

describe("findings: why an upload was rejected (codes, positions, plain text)", () => {
  it.each([
    {
      rule: "a wrong UNT segment count is a message finding 29 on UNT",
      body: valid.replace("UNT+10+1", "UNT+9+1"),
      finding: {
        level: "message",
        code: "29",
        messageReference: "1",
        segment: "UNT",
        position: 11,
        element: "1",
      },
      text: /UNT counts 9 segments but message 1 has 10/,
    },
    {
      rule: "an invalid code value is a message finding 12 on its element",
      body: valid.replace("BGM+220+", "BGM+XXX+"),
      finding: {
        level: "message",
        code: "12",
        messageReference: "1",
        segment: "BGM",
        position: 3,
        element: "1:1",
      },
      text: /"XXX" is not a code of 1001/,
    },
    {
      rule: "a missing mandatory segment is a message finding 13 where it was expected",
      body: valid.replace("BGM+220+PO-OV1+9'", "").replace("UNT+10+1", "UNT+9+1"),
      finding: { level: "message", code: "13", messageReference: "1", position: 3, element: null },
      text: /Mandatory segment BGM is missing/,
    },
    {
      rule: "a bad UNB is an interchange finding on UNB",
      body: valid.replace("UNB+UNOC:3", "UNB+UNOX:3"),
      finding: {
        level: "interchange",
        code: "2",
        messageReference: null,
        segment: "UNB",
        position: 1,
        element: "1:1",
      },
      text: /Syntax identifier "UNOX" is not supported/,
    },
  ])("$rule", async ({ body, finding, text }) => {
    const p = await setupPartner(t, tenant.token);
    const { uploadId, view } = await processed(p, body);
    expect(view.status).toBe("rejected");
    expect(view.error).toBeNull();
    expect(view.findings).toEqual([
      { ...finding, segment: expect.any(String), message: expect.stringMatching(text) },
    ]);
    if (finding.segment) expect(view.findings[0]?.segment).toBe(finding.segment);
    expect(view.findingCount).toBe(1);
    // on-error: the rejection is answered with a CONTRL of the interchange.
    expect(view.outbound.map((o) => [o.messageType, o.answersMessageReference])).toEqual([["CONTRL", null]]);
    expect(view.outboundCounts).toEqual({ CONTRL: 1 });

    // The segment view puts the finding on its segment.
    const tree = await get(`${uploads}/${uploadId}/segments`);
    expect(tree.status).toBe(200);
    const segments = tree.json<Segments>();
    const at = segments.segments.find((s) => s.position === finding.position);
    expect(at?.findings).toEqual(view.findings);
    expect(segments.findings).toEqual([]);
    expect(segments.segments.filter((s) => s.findings.length > 0)).toHaveLength(1);
  });

  it("an application error (GTIN not in the catalogue) is an application finding on its LIN, answered by APERAK", async () => {
    const p = await setupPartner(t, tenant.token, { profile: { orderValidation: "catalog" } });
    const { view } = await processed(p, valid);
    expect(view.status).toBe("processed");
    expect(view.findings).toEqual([
      {
        level: "application",
        code: "GTIN",
        message: "GTIN 4000862141404 is not in the catalogue",
        messageReference: "1",
        segment: "LIN",
        position: 7,
        element: "3",
      },
    ]);
    expect(view.outbound.map((o) => [o.messageType, o.answersMessageReference])).toEqual([
      ["APERAK", "1"],
      ["ORDRSP", "1"],
    ]);
  });
});

describe("findings of a large interchange, analysed on a worker thread", () => {
  const lines = Array.from({ length: 700 }, () => "4000862141404");
  const large = (ref: string) =>
    `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}'${ordersMessage("1", `PO-${ref}`, lines)}UNZ+1+${ref}'`;

  it("a wrong UNT count of a large message is found on the thread and stored", async () => {
    const body = large("OVT1").replace("UNT+1408+1", "UNT+1407+1");
    expect(body.length).toBeGreaterThan(16 * 1024);
    const p = await setupPartner(t, tenant.token);
    const { view } = await processed(p, body);
    expect(view.status).toBe("rejected");
    expect(view.findings).toEqual([
      expect.objectContaining({ level: "message", code: "29", segment: "UNT", position: 1409, element: "1" }),
    ]);
  });

  it("application findings and the answered references of a large message come back from the thread", async () => {
    const p = await setupPartner(t, tenant.token, { profile: { orderValidation: "catalog" } });
    const { view } = await processed(p, large("OVT2"));
    expect(view.status).toBe("processed");
    expect(view.findings).toHaveLength(700);
    expect(view.findings[699]).toMatchObject({
      level: "application",
      code: "GTIN",
      segment: "LIN",
      position: 1405,
    });
    expect(view.outbound.map((o) => [o.messageType, o.answersMessageReference])).toEqual([
      ["APERAK", "1"],
      ["ORDRSP", "1"],
    ]);
  });
});

describe("outbound: what an accepted upload produced", () => {
  it("an accepted ORDERS lists its CONTRL and ORDRSP in mailbox order with answersMessageReference; the list counts them", async () => {
    const p = await setupPartner(t, tenant.token, {
      profile: { responses: { contrl: "always", aperak: "on-error", ordrsp: "auto" } },
    });
    const two = `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+OV2'${ordersMessage("7", "PO7")}${ordersMessage("8", "PO8")}UNZ+2+OV2'`;
    const { uploadId, view } = await processed(p, two);
    expect(view).toMatchObject({ status: "processed", findings: [], findingCount: 0 });
    expect(view.outbound).toEqual([
      expect.objectContaining({ messageType: "CONTRL", answersMessageReference: null, status: "ready" }),
      expect.objectContaining({ messageType: "ORDRSP", answersMessageReference: "7", messageReference: "1" }),
      expect.objectContaining({ messageType: "ORDRSP", answersMessageReference: "8", acknowledgedAt: null }),
    ]);
    expect(view.outboundCounts).toEqual({ CONTRL: 1, ORDRSP: 2 });
    const mailbox = await get(`${deliveries}?limit=100`);
    const ids = mailbox
      .json<{ items: { deliveryAttemptId: string; uploadId: string }[] }>()
      .items.filter((d) => d.uploadId === uploadId)
      .map((d) => d.deliveryAttemptId);
    expect(view.outbound.map((o) => o.deliveryAttemptId).sort()).toEqual(ids.sort());

    const list = await get(`${uploads}?limit=100`);
    const item = list.json<{ items: Record<string, unknown>[] }>().items.find((u) => u.id === uploadId);
    expect(item).toMatchObject({ outboundCounts: { CONTRL: 1, ORDRSP: 2 }, findingCount: 0 });
    expect(item).not.toHaveProperty("findings");
    expect(item).not.toHaveProperty("outbound");
  });
});

describe("content and segments: the bytes, audited, never logged", () => {
  it("upload content is exactly the uploaded bytes; delivery content is exactly what the partner downloads, without touching the delivery", async ({
    skip,
  }) => {
    skip(readsLogs);
    const p = await setupPartner(t, tenant.token);
    const body = Buffer.from(
      `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+OV3'${ordersMessage("1", "PO-Müller-Straße")}UNZ+1+OV3'`,
      "latin1",
    );
    const { uploadId, view } = await processed(p, body);
    expect(view.status).toBe("processed");
    const logsBefore = t.logs.length;

    const content = await get(`${uploads}/${uploadId}/content`);
    expect(content.status).toBe(200);
    expect(content.headers["content-type"]).toBe("application/edifact");
    expect(content.headers["content-length"]).toBe(String(body.length));
    expect(content.headers["cache-control"]).toBe("no-store");
    expect(content.bytes.equals(body)).toBe(true);

    const deliveryId = view.outbound[0]?.deliveryAttemptId ?? "";
    const outbound = await get(`${deliveries}/${deliveryId}/content`);
    expect(outbound.status).toBe(200);
    expect(outbound.headers["content-type"]).toBe("application/edifact");
    // Not a partner read: the delivery is still ready, with no attempt used.
    const delivery = await get(`${deliveries}/${deliveryId}`);
    expect(delivery.json()).toMatchObject({ status: "ready", attempts: 0, acknowledgedAt: null });
    const partnerBase = `${base}/api/v1/b2b-exchange/partner/connections/${p.connectionId}/mailbox/${deliveryId}`;
    const claim = await request(`${partnerBase}/claim`, {
      method: "POST",
      headers: { authorization: `Bearer ${p.token}` },
    });
    expect(claim.statusCode).toBe(200);
    const { claimToken } = (await claim.body.json()) as { claimToken: string };
    const download = await request(`${partnerBase}/payload`, {
      headers: { authorization: `Bearer ${p.token}`, "x-b2b-claim-token": claimToken },
    });
    expect(download.statusCode).toBe(200);
    const downloaded = Buffer.from(await download.body.arrayBuffer());
    expect(outbound.bytes.equals(downloaded)).toBe(true);
    expect(outbound.headers["content-length"]).toBe(String(downloaded.length));

    const uploadTree = await get(`${uploads}/${uploadId}/segments`);
    const tree = uploadTree.json<Segments>();
    expect(tree.segments.map((s) => s.text).join("")).toBe(body.toString("latin1"));
    expect(tree.segments[2]).toMatchObject({ position: 3, tag: "BGM", depth: 2, group: null });
    expect(tree.segments.find((s) => s.tag === "NAD")).toMatchObject({ group: "SG2", depth: 3 });
    expect(tree.segments.find((s) => s.tag === "LIN")).toMatchObject({ group: "SG25" });
    expect(tree.notes).toEqual([]);
    const deliveryTree = (await get(`${deliveries}/${deliveryId}/segments`)).json<Segments>();
    expect(deliveryTree.segments.map((s) => s.text).join("")).toBe(downloaded.toString("latin1"));
    expect(deliveryTree.segments.find((s) => s.tag === "UNH")?.text).toContain("ORDRSP");

    // Audited: who read how many bytes, in which view.
    const audit = async (type: string) =>
      (await get(`/api/v1/admin/audit-events?type=${type}&limit=100`)).json<{
        items: {
          uploadId: string | null;
          deliveryAttemptId: string | null;
          byteCount: number | null;
          principalId: string | null;
        }[];
      }>().items;
    const uploadReads = (await audit("upload.content.read")).filter((e) => e.uploadId === uploadId);
    expect(uploadReads).toHaveLength(2);
    for (const e of uploadReads)
      expect(e).toMatchObject({ byteCount: body.length, principalId: expect.any(String) });
    const deliveryReads = (await audit("delivery.content.read")).filter(
      (e) => e.deliveryAttemptId === deliveryId,
    );
    expect(deliveryReads).toHaveLength(2);
    for (const e of deliveryReads) expect(e).toMatchObject({ byteCount: downloaded.length, uploadId });
    const rows = await t.container.database.db
      .selectFrom("audit_events" as never)
      .select(["type", "data"] as never)
      .where("upload_id" as never, "=", uploadId as never)
      .execute();
    const views = (rows as { type: string; data: { view?: string } }[])
      .filter((r) => r.type.endsWith(".content.read"))
      .map((r) => `${r.type}:${String(r.data.view)}`)
      .sort();
    expect(views).toEqual([
      "delivery.content.read:content",
      "delivery.content.read:segments",
      "upload.content.read:content",
      "upload.content.read:segments",
    ]);

    // Never logged: no log line since the reads carries a segment of either interchange.
    const logged = t.logs.slice(logsBefore).join("\n");
    expect(logged).toContain(`${uploads}/${uploadId}/content`);
    for (const secret of ["PO-M", "UNH+1+ORDERS", "ORDRSP", "UNB+UNOC", "4000862141404"]) {
      expect(logged).not.toContain(secret);
    }
  });

  it("unknown ids are 404 on every view", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    for (const path of viewPaths(unknown, unknown)) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers["content-type"]).toContain("application/problem+json");
    }
  });

  it("an id that is no UUID is 404 like an unknown one (as on getUpload), and nothing is audited", async ({
    skip,
  }) => {
    skip(countsAudit);
    const before = await contentReads();
    for (const path of viewPaths("not-an-id", "not-an-id")) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers["content-type"]).toContain("application/problem+json");
    }
    expect(await contentReads()).toBe(before);
  });

  it("another tenant's upload or delivery is 404, and nothing is audited", async ({ skip }) => {
    skip(countsAudit);
    const p = await setupPartner(t, tenant.token);
    const { uploadId, view } = await processed(p, validOrders("OV4"));
    const other = await provisionTenant(t);
    const deliveryId = view.outbound[0]?.deliveryAttemptId ?? "";
    for (const path of viewPaths(uploadId, deliveryId)) {
      expect((await get(path, other.token)).status, path).toBe(404);
    }
    const audited = await t.container.database.db
      .selectFrom("audit_events" as never)
      .select("type" as never)
      .where("upload_id" as never, "=", uploadId as never)
      .execute();
    expect((audited as { type: string }[]).filter((r) => r.type.endsWith(".content.read"))).toEqual([]);
  });

  it("a key without admin:read gets 403; a partner credential or none is not a session (401)", async () => {
    const p = await setupPartner(t, tenant.token);
    const { uploadId, view } = await processed(p, validOrders("OV5"));
    const deliveryId = view.outbound[0]?.deliveryAttemptId ?? "";
    const weak = await systemToken(t, ["workflows:read"]);
    for (const path of viewPaths(uploadId, deliveryId)) {
      // Admin routes authenticate sessions only: a partner API key is no credential there (as on every admin route).
      expect((await get(path, p.token)).status, path).toBe(401);
      expect((await get(path, weak)).status, path).toBe(403);
      await expectSessionRouteDenials(t, {
        method: "GET",
        url: path,
        insufficientScopes: ["workflows:read"],
      });
    }
  });
});
