import { CompiledQuery, sql, type Kysely } from "kysely";
import { afterAll, beforeAll, expect } from "vitest";
import { upload, type PartnerSetup } from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { provisionTenant, type ProvisionedTenant } from "./fixtures.js";
import { bearer, createTestApp, type TestApp } from "./test-app.js";
import type { HanseTables } from "../../src/platform/db/tables.js";

/** The app and tenant of a test file, opened before its tests and closed after them. */
export function useTenantApp(): { readonly t: TestApp; readonly tenant: ProvisionedTenant } {
  let app: TestApp | undefined;
  let provisioned: ProvisionedTenant | undefined;
  beforeAll(async () => {
    app = await createTestApp();
    provisioned = await provisionTenant(app);
  });
  afterAll(async () => {
    await app?.close();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the test app is not open (use it inside a test)");
    return value;
  };
  return {
    get t() {
      return ready(app);
    },
    get tenant() {
      return ready(provisioned);
    },
  };
}

export interface OutboundMessage {
  type: string;
  text: string;
  interchangeId: string;
}

/** An upload's outbound messages in mailbox order, their payloads read from blob storage (latin1). */
export async function readOutbound(db: Kysely<HanseTables>, uploadId: string): Promise<OutboundMessage[]> {
  const rows = await sql<{ message_type: string; blob_id: string; interchange_id: string }>`
    SELECT message_type, blob_id, interchange_id FROM exchange_deliveries
    WHERE upload_id = ${uploadId} ORDER BY position`.execute(db);
  const outbound: OutboundMessage[] = [];
  for (const row of rows.rows) {
    const chunks = await sql<{ data: Uint8Array }>`
      SELECT data FROM blob_chunks WHERE blob_id = ${row.blob_id} ORDER BY seq`.execute(db);
    outbound.push({
      type: row.message_type,
      interchangeId: row.interchange_id,
      text: Buffer.concat(chunks.rows.map((c) => Buffer.from(c.data))).toString("latin1"),
    });
  }
  return outbound;
}

/** Uploads a new upload under `key` (202), runs the jobs and returns its status and outbound messages in mailbox order. */
export async function uploadAndProcess(t: TestApp, p: PartnerSetup, body: string | Buffer, key: string) {
  const r = await upload(t, p, body, key);
  expect(r.statusCode, r.body).toBe(202);
  const { uploadId } = r.json<{ uploadId: string }>();
  await t.drainJobs();
  const db = t.container.database.db;
  const status = (
    await sql<{ status: string }>`SELECT status FROM exchange_uploads WHERE id = ${uploadId}`.execute(db)
  ).rows[0]?.status;
  const outbound = await readOutbound(db, uploadId);
  return { uploadId, status, outbound, types: outbound.map((o) => o.type) };
}

/** The operator's view of an upload (GET /api/v1/admin/exchange-uploads/{id}), asserted 200. */
export async function uploadView(t: TestApp, token: string, uploadId: string) {
  const r = await t.inject({
    method: "GET",
    url: `/api/v1/admin/exchange-uploads/${uploadId}`,
    headers: bearer(token),
  });
  expect(r.statusCode, r.body).toBe(200);
  return r.json<{
    status: string;
    duplicateOf: string | null;
    completedAt: string | null;
    findings: { code: string; segment: string | null; message: string }[];
  }>();
}

/** The plan of a query on the test app's database, sequential scans off (what the index allows). */
export async function indexPlan(t: TestApp, query: { compile(): CompiledQuery }): Promise<string> {
  const compiled = query.compile();
  return t.container.database.transaction(async (trx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    const rows = await trx.executeQuery<{ "QUERY PLAN": string }>(
      CompiledQuery.raw(`EXPLAIN ${compiled.sql}`, [...compiled.parameters]),
    );
    return rows.rows.map((r) => r["QUERY PLAN"]).join("\n");
  });
}
