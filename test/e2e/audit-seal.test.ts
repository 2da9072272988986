// remote mode: in-process only: tampers with its own database's audit tables and runs the sealer itself
import { execFile } from "node:child_process";
import { get } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditSealJobName, pruneAuditTrails, sealAuditTrails } from "../../src/platform/audit/index.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { bearer, createTestApp, startWorker, type TestApp } from "../support/test-app.js";
import { waitUntil } from "../support/wait-until.js";

// rules/contract §7 "The trail is tamper-evident", issue 33 item 2: records are sealed into a hash chain
// within 60 s of being written; GET …/audit-events/verification finds any record changed, removed
// or reordered up to the last seal and names it; the NDJSON export carries each record's seal, and
// docs/audit/verify-export.mjs checks an export without Hanse. The tests tamper with the tables
// directly, as a database administrator could.

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp({ env: { HANSE_AUDIT_SEAL_SECONDS: "1" } });
  dir = await mkdtemp(join(tmpdir(), "hanse-audit-"));
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const db = () => t.container.database.db;
const auditUrl = "/api/v1/admin/audit-events";
const seal = () => sealAuditTrails(db(), () => new Date());

interface Verification {
  verified: boolean;
  checkedThrough: string;
  count: number;
  head: { sequence: number; hash: string } | null;
  unsealed: number;
  problem: { kind: string; sequence: number; eventId: string | null } | null;
}
async function verification(tenant: ProvisionedTenant): Promise<Verification> {
  const res = await t.inject({
    method: "GET",
    url: `${auditUrl}/verification`,
    headers: bearer(tenant.token),
  });
  expect(res.statusCode).toBe(200);
  return res.json<Verification>();
}

/** `n` administrative acts (partners created), each one audit record. */
async function acts(tenant: ProvisionedTenant, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    const res = await t.inject({
      method: "POST",
      url: "/api/v1/admin/partners",
      headers: bearer(tenant.token),
      payload: { name: `Partner ${i}` },
    });
    expect(res.statusCode).toBe(201);
  }
}

/** A tenant whose trail holds at least 6 sealed records. */
async function sealedTenant(): Promise<ProvisionedTenant & { count: number }> {
  const tenant = await provisionTenant(t);
  await acts(tenant, 5);
  await seal();
  const v = await verification(tenant);
  expect(v).toMatchObject({ verified: true, unsealed: 0, problem: null });
  expect(v.count).toBeGreaterThanOrEqual(6);
  return { ...tenant, count: v.count };
}

const idAt = async (tenantId: string, sequence: number): Promise<string> =>
  (
    await sql<{ id: string }>`SELECT id FROM audit_events
      WHERE tenant_id = ${tenantId}::uuid AND seal_sequence = ${sequence}`.execute(db())
  ).rows[0]?.id ?? "(none)";

async function exportOf(tenant: ProvisionedTenant, query = ""): Promise<string> {
  const res = await t.inject({
    method: "GET",
    url: `${auditUrl}/export${query}`,
    headers: bearer(tenant.token),
  });
  expect(res.statusCode).toBe(200);
  expect(res.headers["content-type"]).toBe("application/x-ndjson");
  return res.body;
}

const headArg = (head: Verification["head"]) => (head ? `${head.sequence}:${head.hash}` : "none");
const run = promisify(execFile);
const script = new URL("../../docs/audit/verify-export.mjs", import.meta.url).pathname;
/** The auditor's script on an export: its exit code and what it printed. */
async function auditorScript(ndjson: string, ...args: string[]): Promise<{ code: number; out: string }> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.ndjson`);
  await writeFile(file, ndjson);
  try {
    const { stdout } = await run(process.execPath, [script, file, ...args]);
    return { code: 0, out: stdout };
  } catch (error) {
    const e = error as { code: number; stderr: string };
    return { code: e.code, out: e.stderr };
  }
}

describe("audit trail: sealing (rules/contract §7, records are sealed within 60 s of being written)", () => {
  it("the worker's sealer seals a new record by itself; until then it is counted as unsealed", async () => {
    const tenant = await provisionTenant(t);
    const before = await verification(tenant);
    expect(before.unsealed).toBeGreaterThan(0);
    expect(t.container.jobs.map((j) => j.name)).toContain(auditSealJobName);
    const worker = await startWorker(t, "audit-sealer");
    try {
      const written = new Date();
      await acts(tenant, 1);
      await waitUntil(async () => (await verification(tenant)).unsealed === 0, {
        what: "the new record sealed",
        timeoutMs: 60_000,
      });
      const v = await verification(tenant);
      expect(v).toMatchObject({ verified: true, unsealed: 0, problem: null });
      expect(v.count).toBe(before.unsealed + 1);
      expect(v.head?.sequence).toBe(v.count);
      expect(new Date(v.checkedThrough).getTime()).toBeGreaterThanOrEqual(written.getTime());
    } finally {
      await worker.stop(5000);
    }
  });

  it("a record written after the last seal is unsealed, and checkedThrough stays at that seal", async () => {
    const tenant = await sealedTenant();
    const sealedAt = (await verification(tenant)).checkedThrough;
    await acts(tenant, 1);
    const v = await verification(tenant);
    expect(v).toMatchObject({ verified: true, count: tenant.count, unsealed: 1 });
    expect(new Date(v.checkedThrough).getTime()).toBeLessThanOrEqual(new Date(sealedAt).getTime() + 1000);
  });

  it("verification needs admin:read: without a session it is 401", async () => {
    const res = await t.inject({ method: "GET", url: `${auditUrl}/verification` });
    expect(res.statusCode).toBe(401);
  });
});

describe("audit trail: verification finds any record changed, removed or reordered (rules/contract §7)", () => {
  it("a record changed in the table: verified false, the record named", async () => {
    const tenant = await sealedTenant();
    const id = await idAt(tenant.id, 3);
    await sql`UPDATE audit_events SET source_address = '203.0.113.9'
      WHERE tenant_id = ${tenant.id}::uuid AND id = ${id}::uuid`.execute(db());
    const v = await verification(tenant);
    expect(v).toMatchObject({ verified: false, problem: { kind: "changed", sequence: 3, eventId: id } });
    expect(v.count).toBe(2);
  });

  it("a record changed with its own seal recomputed still breaks the chain after it", async () => {
    const tenant = await sealedTenant();
    const id = await idAt(tenant.id, 2);
    await sql`UPDATE audit_events SET occurred_at = occurred_at - interval '1 day', seal_hash = repeat('a', 64)
      WHERE tenant_id = ${tenant.id}::uuid AND id = ${id}::uuid`.execute(db());
    expect((await verification(tenant)).verified).toBe(false);
  });

  it("a record removed from the middle: verified false at its place", async () => {
    const tenant = await sealedTenant();
    const next = await idAt(tenant.id, 5);
    await sql`DELETE FROM audit_events WHERE tenant_id = ${tenant.id}::uuid AND seal_sequence = 4`.execute(
      db(),
    );
    expect(await verification(tenant)).toMatchObject({
      verified: false,
      count: 3,
      problem: { kind: "removed", sequence: 4, eventId: next },
    });
  });

  it("the newest records removed: the chain ends before its last seal", async () => {
    const tenant = await sealedTenant();
    await sql`DELETE FROM audit_events WHERE tenant_id = ${tenant.id}::uuid AND seal_sequence = ${tenant.count}`.execute(
      db(),
    );
    expect(await verification(tenant)).toMatchObject({
      verified: false,
      problem: { kind: "removed", sequence: tenant.count, eventId: null },
    });
  });

  it("two records swapped in the chain: verified false, reordered", async () => {
    const tenant = await sealedTenant();
    const second = await idAt(tenant.id, 2);
    await sql`UPDATE audit_events SET seal_sequence = CASE seal_sequence WHEN 2 THEN -3 ELSE -2 END
      WHERE tenant_id = ${tenant.id}::uuid AND seal_sequence IN (2, 3)`.execute(db());
    await sql`UPDATE audit_events SET seal_sequence = -seal_sequence
      WHERE tenant_id = ${tenant.id}::uuid AND seal_sequence < 0`.execute(db());
    expect(await verification(tenant)).toMatchObject({
      verified: false,
      problem: { kind: "reordered", sequence: 2 },
    });
    expect(await idAt(tenant.id, 3)).toBe(second);
  });

  it("another tenant's trail is checked on its own: tampering in one leaves the other verified", async () => {
    const tampered = await sealedTenant();
    const other = await sealedTenant();
    await sql`DELETE FROM audit_events WHERE tenant_id = ${tampered.id}::uuid AND seal_sequence = 1`.execute(
      db(),
    );
    expect((await verification(tampered)).verified).toBe(false);
    expect(await verification(other)).toMatchObject({ verified: true, count: other.count });
  });
});

describe("audit trail: export (rules/contract §7, NDJSON in order) checked without Hanse", () => {
  it("the export holds every record once with its seal, and the auditor's script verifies it against the head", async () => {
    const tenant = await sealedTenant();
    await acts(tenant, 1); // one not sealed yet: last, with seal null
    const body = await exportOf(tenant);
    const lines = body.trimEnd().split("\n");
    expect(lines).toHaveLength(tenant.count + 1);
    const records = lines.map(
      (line) => JSON.parse(line) as { id: string; type: string; seal: { sequence: number } | null },
    );
    expect(records.slice(0, -1).map((r) => r.seal?.sequence)).toEqual(
      Array.from({ length: tenant.count }, (_, i) => i + 1),
    );
    expect(records.at(-1)).toMatchObject({ type: "partner.created", seal: null });
    const { head } = await verification(tenant);
    const checked = await auditorScript(body, "--head", headArg(head));
    expect(checked).toMatchObject({ code: 0 });
    expect(checked.out).toContain(`verified: ${tenant.count} sealed records`);
  });

  it("the auditor's script names a changed, a removed and a reordered record of an export", async () => {
    const tenant = await sealedTenant();
    const lines = (await exportOf(tenant)).trimEnd().split("\n");
    const changed = [...lines];
    changed[2] = (changed[2] ?? "").replace('"type":"', '"type":"x');
    expect(await auditorScript(changed.join("\n"))).toMatchObject({
      code: 1,
      out: expect.stringContaining("sequence 3: changed") as string,
    });
    const removed = lines.filter((_, i) => i !== 3);
    expect(await auditorScript(removed.join("\n"))).toMatchObject({
      code: 1,
      out: expect.stringContaining("sequence 5: records missing before it") as string,
    });
    const reordered = [lines[0], lines[2], lines[1], ...lines.slice(3)];
    expect((await auditorScript(reordered.join("\n"))).code).toBe(1);
    const { head } = await verification(tenant);
    const cut = lines.slice(0, -1);
    expect(await auditorScript(cut.join("\n"), "--head", headArg(head))).toMatchObject({
      code: 1,
      out: expect.stringContaining("not at the head") as string,
    });
  });

  it("a time range exports an unbroken stretch of the chain that continues the export before it", async () => {
    const tenant = await sealedTenant();
    const all = (await exportOf(tenant))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { occurredAt: string; seal: { hash: string } });
    const middle = all[3]?.occurredAt ?? "";
    const earlier = await exportOf(tenant, `?occurredBefore=${encodeURIComponent(middle)}`);
    const later = await exportOf(tenant, `?occurredFrom=${encodeURIComponent(middle)}`);
    const earlierLines = earlier.trimEnd().split("\n");
    expect(earlierLines.length + later.trimEnd().split("\n").length).toBe(all.length);
    const lastHash = (JSON.parse(earlierLines.at(-1) ?? "{}") as { seal: { hash: string } }).seal.hash;
    expect((await auditorScript(later, "--after", lastHash)).code).toBe(0);
    expect((await auditorScript(later, "--after", "0".repeat(64))).code).toBe(1);
  });

  it("a bad range is 400 with the field named, before any line is sent", async () => {
    const tenant = await provisionTenant(t);
    const res = await t.inject({
      method: "GET",
      url: `${auditUrl}/export?occurredFrom=2026-11-28T10:00:00Z&occurredBefore=2026-11-28T09:00:00Z`,
      headers: bearer(tenant.token),
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers["content-type"]).toContain("application/problem+json");
    expect(res.json()).toMatchObject({ code: "ERR_VALIDATION" });
    expect(JSON.stringify(res.json())).toContain("occurredBefore");
    const notADate = await t.inject({
      method: "GET",
      url: `${auditUrl}/export?occurredFrom=yesterday`,
      headers: bearer(tenant.token),
    });
    expect(notADate.statusCode).toBe(400);
  });
});

describe("audit trail: retention (issue 33 item 3, HANSE_AUDIT_RETENTION_DAYS)", () => {
  const day = 86_400_000;
  it("prunes the oldest sealed records from the chain's start, records the prune, and the rest still verifies", async () => {
    const tampered = await sealedTenant();
    await sql`UPDATE audit_events SET type = 'partner.deleted'
      WHERE tenant_id = ${tampered.id}::uuid AND seal_sequence = 2`.execute(db());
    const tenant = await sealedTenant();
    const before = (await exportOf(tenant))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { occurredAt: string; seal: { sequence: number; hash: string } });
    const fourth = before[3];
    const third = before[2];
    if (!fourth || !third) throw new Error("the tenant has fewer than four records");
    const cutoff = new Date(fourth.occurredAt);
    expect(new Date(third.occurredAt).getTime()).toBeLessThan(cutoff.getTime());

    expect(await pruneAuditTrails(db(), new Date(), 3650 * day)).toBe(0);
    const pruned = await pruneAuditTrails(db(), new Date(cutoff.getTime() + day), day);
    expect(pruned).toBeGreaterThanOrEqual(3);

    const records = await t.inject({
      method: "GET",
      url: `${auditUrl}?type=audit.pruned`,
      headers: bearer(tenant.token),
    });
    expect(records.json<{ items: unknown[] }>().items).toEqual([
      expect.objectContaining({
        type: "audit.pruned",
        principalId: null,
        targetType: "audit_trail",
        targetId: tenant.id,
        data: { count: 3, throughSequence: 3, olderThan: cutoff.toISOString() },
      }),
    ]);
    await seal();
    expect(await verification(tenant)).toMatchObject({
      verified: true,
      count: tenant.count - 3 + 1,
      unsealed: 0,
    });
    const after = await exportOf(tenant);
    expect((JSON.parse(after.split("\n")[0] ?? "{}") as { seal: { sequence: number } }).seal.sequence).toBe(
      4,
    );
    expect((await auditorScript(after, "--after", third.seal.hash)).code).toBe(0);
  });
});

describe("audit trail: export at flat memory (issue 33 item 3: 100,000 records)", () => {
  it("streams 100,000 sealed records page by page: the heap after each 10,000 lines stays near where it began", async () => {
    const tenant = await provisionTenant(t);
    const filler = "x".repeat(400);
    await sql`INSERT INTO audit_events (tenant_id, id, type, occurred_at, data)
      SELECT ${tenant.id}::uuid, gen_random_uuid(), 'test.bulk',
        now() - interval '1 day' + n * interval '1 millisecond', jsonb_build_object('n', n, 'filler', ${filler}::text)
      FROM generate_series(1, 100000) AS n`.execute(db());
    await seal();
    const v = await verification(tenant);
    expect(v).toMatchObject({ verified: true, unsealed: 0 });
    expect(v.count).toBeGreaterThan(100_000);

    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const heap = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const url = await t.app.listen({ port: 0, host: "127.0.0.1" });
    const start = heap();
    let lines = 0;
    let peak = 0;
    let rest = "";
    let last = 0;
    await new Promise<void>((resolve, reject) => {
      get(`${url}${auditUrl}/export`, { headers: bearer(tenant.token) }, (res) => {
        expect(res.statusCode).toBe(200);
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          const parts = (rest + chunk).split("\n");
          rest = parts.pop() ?? "";
          for (const line of parts) {
            const sequence = (JSON.parse(line) as { seal: { sequence: number } }).seal.sequence;
            expect(sequence).toBe(last + 1);
            last = sequence;
          }
          const before = lines;
          lines += parts.length;
          if (Math.floor(lines / 10_000) > Math.floor(before / 10_000)) peak = Math.max(peak, heap() - start);
        });
        res.on("end", resolve);
        res.on("error", reject);
      }).on("error", reject);
    });
    expect(lines).toBe(v.count);
    // Buffered, the 100,000 records (~50 MB as JSON, several times that as rows) would show here.
    expect(peak).toBeLessThan(24 * 1024 * 1024);
  }, 300_000);
});
