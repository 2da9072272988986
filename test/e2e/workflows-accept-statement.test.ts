// remote mode: in-process only: runs the accept statement on its own database
import { createHash } from "node:crypto";
import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as repo from "../../src/modules/workflows/workflows.repository.js";
import { uuidv7 } from "../../src/platform/crypto/index.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";

/*
 * The accept statement serves many transition requests at once (the service batches requests
 * that arrive together). Here one call mixes every kind of item, so they certainly share a
 * statement, and each must get exactly the outcome it would have got alone.
 */

const endpoint = "POST /api/v1/workflows/transition-requests";
const href = "/api/v1/workflows/transition-requests";

let t: TestApp;
let tenant: ProvisionedTenant;
let other: ProvisionedTenant;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let db: Kysely<any>;
let counter = 0;

beforeAll(async () => {
  t = await createTestApp();
  db = t.container.database.db as Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  tenant = await provisionTenant(t);
  other = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
});

async function accessToken(scopes: string[]): Promise<{ id: string; token: string }> {
  const created = await t.inject({
    method: "POST",
    url: "/api/v1/admin/access-tokens",
    headers: bearer(tenant.token),
    payload: { name: `batch-${counter++}`, scopes },
  });
  expect(created.statusCode).toBe(201);
  return created.json<{ id: string; token: string }>();
}

/** One accept item for `key`, checked with `token`, as the service builds it. */
function item(token: string, key: string): repo.AcceptItem {
  const now = new Date();
  const requestId = uuidv7();
  const body = JSON.stringify({ requestId, status: "pending", statusUrl: `${href}/${requestId}` });
  return {
    check: t.container.authenticator.rowCheck(token, {
      scopes: ["workflows:transition"],
      tenantId: tenant.id,
    }),
    record: {
      tenantId: tenant.id,
      endpoint,
      keyHash: createHash("sha256").update(key).digest(),
      fingerprint: createHash("sha256").update("same business request").digest(),
      statusCode: 202,
      responseBody: body,
      responseHeaders: JSON.stringify({ location: `${href}/${requestId}` }),
      createdAt: now,
      expiresAt: new Date(now.getTime() + 86_400_000),
    },
    request: {
      id: requestId,
      entityKind: "product",
      entityId: uuidv7(),
      transition: "submit",
      payload: JSON.stringify({ note: `it's "${key}" \\ {a,b}` }),
    },
    job: {
      id: uuidv7(),
      tenantId: tenant.id,
      name: "workflows.transition",
      key: null,
      payload: JSON.stringify({ tenantId: tenant.id, requestId }),
      maxAttempts: 10,
      runAt: now,
      createdAt: now,
    },
  };
}

const rowsWithIds = async (table: string, ids: string[]) =>
  (
    await sql<{ id: string }>`SELECT id FROM ${sql.table(table)} WHERE id IN (${sql.join(ids)})`.execute(db)
  ).rows.map((r) => r.id);

describe("the accept statement over many requests", () => {
  it("gives each item of one statement its own outcome; only new keys of valid credentials write, once", async () => {
    const revoked = await accessToken(["workflows:transition"]);
    const revokedAnswer = await t.inject({
      method: "POST",
      url: `/api/v1/admin/access-tokens/${revoked.id}/revoke`,
      headers: bearer(tenant.token),
    });
    expect(revokedAnswer.statusCode).toBe(200);
    const weak = await accessToken(["workflows:read"]);
    const known = `known-${counter++}`;
    const [before] = await repo.acceptRequests(t.container.database, [item(tenant.token, known)]);
    expect(before?.claimed).toBe(true);

    const fresh = `fresh-${counter++}`;
    const items = [
      item(tenant.token, fresh), // 0: new key, valid session
      item(`${tenant.token.slice(0, -4)}AAAA`, `wrong-secret-${counter++}`), // 1
      item(other.token, `foreign-${counter++}`), // 2: another tenant's session naming this tenant
      item(tenant.token, fresh), // 3: the key of item 0 again
      item(tenant.token, known), // 4: a key accepted before
      item(tenant.token, `second-${counter++}`), // 5: another new key
      item(revoked.token, `revoked-${counter++}`), // 6
      item(weak.token, `weak-${counter++}`), // 7: lacks workflows:transition
    ];
    const outcomes = await repo.acceptRequests(t.container.database, items);

    expect(outcomes.map((o) => o.claimed)).toEqual([true, false, false, false, false, true, false, false]);
    const principals = outcomes.map((o, i) => items[i]?.check.principalOf(o.credentialRow));
    expect(principals.map((p) => p?.tenant.id ?? null)).toEqual([
      tenant.id,
      null,
      other.id,
      tenant.id,
      tenant.id,
      tenant.id,
      null,
      tenant.id,
    ]);
    expect(principals[7]?.scopes.has("workflows:transition")).toBe(false);

    const requestIds = items.map((i) => i.request.id);
    expect(await rowsWithIds("workflow_transition_requests", requestIds)).toEqual(
      expect.arrayContaining([requestIds[0], requestIds[5]]),
    );
    expect((await rowsWithIds("workflow_transition_requests", requestIds)).length).toBe(2);
    const jobIds = items.map((i) => i.job.id);
    expect((await rowsWithIds("jobs", jobIds)).sort()).toEqual([jobIds[0], jobIds[5]].sort());
    const records = await sql<{ n: number }>`
      SELECT count(*)::integer AS n FROM idempotency_records
      WHERE tenant_id = ${tenant.id} AND key_hash IN (${sql.join(items.map((i) => i.record.keyHash))})`.execute(
      db,
    );
    // fresh, known (from before) and second: the refused items left no record.
    expect(records.rows[0]?.n).toBe(3);
    const stored = await sql<{ payload: unknown }>`
      SELECT payload FROM workflow_transition_requests WHERE id = ${requestIds[0]}`.execute(db);
    expect(stored.rows[0]?.payload).toEqual({ note: `it's "${fresh}" \\ {a,b}` });
  });

  it("an empty call runs no statement", async () => {
    expect(await repo.acceptRequests(t.container.database, [])).toEqual([]);
  });
});
