// remote mode: in-process only: a fake clock (retention by age)
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealAuditTrails } from "../../src/platform/audit/index.js";
import { uuidv7 } from "../../src/platform/crypto/index.js";
import {
  deadJobRetentionMs,
  purgeExpired,
  retentionEveryMs,
  retentionJobName,
  succeededJobRetentionMs,
} from "../../src/platform/jobs/index.js";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { bearer, createTestApp, startWorker, type TestApp } from "../support/test-app.js";

const clock = createManualClock(new Date("2026-11-22T00:00:00.000Z"));
let t: TestApp;
let tenant: ProvisionedTenant;
const db = () => t.container.database.db;
const day = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  t = await createTestApp({ clock, env: { HANSE_AUDIT_RETENTION_DAYS: "30" } });
  tenant = await provisionTenant(t);
  const created = await t.inject({
    method: "POST",
    url: "/api/v1/admin/access-tokens",
    headers: bearer(tenant.token),
    payload: { name: "retention", scopes: ["workflows:transition", "workflows:read"] },
  });
  token = created.json<{ token: string }>().token;
});
afterAll(async () => {
  await t.close();
});

/** An access token without expiry (a session would not outlive the 30 days this test skips). */
let token: string;
const transition = (entityId: string, key: string) =>
  t.inject({
    method: "POST",
    url: "/api/v1/workflows/transition-requests",
    headers: { ...bearer(token), "x-tenant-id": tenant.id, "x-idempotency-key": key },
    payload: { entity: "product", entityId, transition: "submit" },
  });

async function insertJob(state: "succeeded" | "dead" | "queued", finishedAgoMs: number): Promise<string> {
  const id = uuidv7();
  const at = new Date(clock.now().getTime() - finishedAgoMs);
  await sql`INSERT INTO jobs (id, name, payload, state, attempts, max_attempts, run_at, created_at, updated_at, completed_at)
    VALUES (${id}, 'retention.test', '{}', ${state}, 1, 1, ${at}, ${at}, ${at}, ${state === "succeeded" ? at : null})`.execute(
    db(),
  );
  return id;
}

const jobExists = async (id: string) =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs WHERE id = ${id}::uuid`.execute(db())).rows[0]
    ?.n === 1;

describe("retention (platform.retention, every 6 hours)", () => {
  it("an idempotency key is used again once its record expired (30 days) and was removed", async () => {
    const entity = await t.inject({
      method: "POST",
      url: "/api/v1/admin/entities",
      headers: bearer(tenant.token),
      payload: { kind: "product", attributes: {} },
    });
    const entityId = entity.json<{ id: string }>().id;
    const first = await transition(entityId, "monthly-key");
    expect(first.statusCode).toBe(202);
    expect((await transition(entityId, "monthly-key")).body).toBe(first.body);

    clock.advance(30 * day + 60_000);
    const removed = await purgeExpired(db(), clock.now());
    expect(removed.idempotency_records).toBeGreaterThanOrEqual(1);
    const again = await transition(entityId, "monthly-key");
    expect(again.statusCode).toBe(202);
    expect(again.json<{ requestId: string }>().requestId).not.toBe(
      first.json<{ requestId: string }>().requestId,
    );
    // The first request's status document is kept.
    const status = await t.inject({
      method: "GET",
      url: first.json<{ statusUrl: string }>().statusUrl,
      headers: bearer(token),
    });
    expect(status.statusCode).toBe(200);
  });

  it("removes succeeded jobs after a day and dead jobs after 30 days, nothing else", async () => {
    const oldSucceeded = await insertJob("succeeded", succeededJobRetentionMs + 60_000);
    const recentSucceeded = await insertJob("succeeded", succeededJobRetentionMs - 60_000);
    const oldDead = await insertJob("dead", deadJobRetentionMs + 60_000);
    const recentDead = await insertJob("dead", deadJobRetentionMs - 60_000);
    const oldQueued = await insertJob("queued", deadJobRetentionMs + 60_000);
    await purgeExpired(db(), clock.now());
    expect(await jobExists(oldSucceeded)).toBe(false);
    expect(await jobExists(recentSucceeded)).toBe(true);
    expect(await jobExists(oldDead)).toBe(false);
    expect(await jobExists(recentDead)).toBe(true);
    expect(await jobExists(oldQueued)).toBe(true);
    await sql`DELETE FROM jobs WHERE id = ${oldQueued}::uuid`.execute(db());
  });

  it("runs as a recurring job and logs counts only", async () => {
    const old = await insertJob("succeeded", succeededJobRetentionMs + 60_000);
    // A starting worker schedules the recurring row; it first runs one interval later.
    await (await startWorker(t, "retention-test")).stop(1000);
    await t.drainJobs();
    expect(await jobExists(old)).toBe(true);
    clock.advance(retentionEveryMs);
    const logsBefore = t.logs.length;
    await t.drainJobs();
    expect(await jobExists(old)).toBe(false);
    const line = t.logs
      .slice(logsBefore)
      .map((l) => JSON.parse(l) as { job?: string; deleted?: Record<string, number>; msg: string })
      .find((l) => l.job === retentionJobName);
    expect(line?.msg).toBe("removed expired rows");
    expect(line?.deleted?.jobs).toBeGreaterThanOrEqual(1);
  });

  it("with HANSE_AUDIT_RETENTION_DAYS the run also prunes sealed audit records older than that, and records it", async () => {
    await sealAuditTrails(db(), () => clock.now());
    clock.advance(31 * day);
    const logsBefore = t.logs.length;
    await t.drainJobs();
    const line = t.logs
      .slice(logsBefore)
      .map((l) => JSON.parse(l) as { job?: string; deleted?: Record<string, number> })
      .find((l) => l.job === retentionJobName);
    expect(line?.deleted?.audit_events).toBeGreaterThanOrEqual(1);
    // The tenant administrator's session has expired by now: the record is read from the table.
    const pruned = await sql<{ data: { count: number } }>`SELECT data FROM audit_events
      WHERE tenant_id = ${tenant.id}::uuid AND type = 'audit.pruned'`.execute(db());
    expect(pruned.rows[0]?.data.count).toBeGreaterThanOrEqual(1);
  });
});
