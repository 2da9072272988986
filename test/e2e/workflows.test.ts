import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkflowsService } from "../../src/modules/workflows/index.js";
import { createWorker } from "../../src/platform/jobs/index.js";
import { expectSessionRouteDenials } from "../support/auth-cases.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { adminHeaders, bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { directSocketOnly, inProcessOnly, ownDatabaseOnly, remote } from "../support/remote-app.js";
import { onPostgres } from "../support/test-database.js";

// Skipped in the remote mode (test/support/remote-app.ts), each printing why:
const ownWorkers = inProcessOnly("runs workers of its own on the container's jobs");
const plantsDeadWorker = ownDatabaseOnly("leaves a request processing by a dead worker in its database");
const readsLogs = inProcessOnly("reads the server's log lines");
const ownSocket = directSocketOnly(
  "reads the status line and the connection's end on Hanse's own socket; HAProxy stands between",
);

const countsRows = ownDatabaseOnly(
  "counts request, job and idempotency rows in its database (nothing created)",
);
const readsJobRow = ownDatabaseOnly("reads the queued job row in its database");
const readsService = inProcessOnly("reads the workflows module's service from the container");

const href = "/api/v1/workflows/transition-requests";
const maxBody = 1024 * 1024;

let t: TestApp;
let tenant: ProvisionedTenant;
let other: ProvisionedTenant;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let db: Kysely<any>;
let keyCounter = 0;
const newKey = (label = "k") => `${label}-${process.pid}-${Date.now().toString(36)}-${keyCounter++}`;

interface Entity {
  id: string;
  kind: string;
  state: string;
  version: number;
  attributes: Record<string, unknown>;
  createdAt: string;
}

interface StatusDocument {
  requestId: string;
  status: string;
  entity: string;
  entityId: string;
  transition: string;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  result: { fromState: string; toState: string } | null;
  error: { code: string; message: string } | null;
}

const headersFor = (who: ProvisionedTenant, key: string | undefined, extra: Record<string, string> = {}) => ({
  ...bearer(who.token),
  "x-tenant-id": who.id,
  ...(key === undefined ? {} : { "x-idempotency-key": key }),
  ...extra,
});

const requestTransition = (body: unknown, key: string | undefined, headers?: Record<string, string>) =>
  t.inject({
    method: "POST",
    url: href,
    headers: headers ?? headersFor(tenant, key),
    payload: body as object,
  });

async function createEntity(who = tenant, attributes: Record<string, unknown> = { name: "Widget" }) {
  const response = await t.inject({
    method: "POST",
    url: "/api/v1/admin/entities",
    headers: bearer(who.token),
    payload: { kind: "product", attributes },
  });
  expect(response.statusCode).toBe(201);
  return response.json<Entity>();
}

const readEntity = async (id: string, who = tenant) =>
  (
    await t.inject({ method: "GET", url: `/api/v1/admin/entities/${id}`, headers: bearer(who.token) })
  ).json<Entity>();

const readStatus = (statusUrl: string, headers: Record<string, string> = bearer(tenant.token)) =>
  t.inject({ method: "GET", url: statusUrl, headers });

async function transitionAndWait(entityId: string, transition: string, payload?: Record<string, unknown>) {
  const response = await requestTransition(
    { entity: "product", entityId, transition, ...(payload ? { payload } : {}) },
    newKey(transition),
  );
  expect(response.statusCode).toBe(202);
  await t.drainJobs();
  const status = await readStatus(response.json<{ statusUrl: string }>().statusUrl);
  expect(status.statusCode).toBe(200);
  return status.json<StatusDocument>();
}

const countRows = async (table: string, where: Record<string, string> = {}) => {
  let query = db.selectFrom(table).select(sql<number>`count(*)::int`.as("n"));
  for (const [column, value] of Object.entries(where)) query = query.where(column, "=", value);
  const row: { n: number } = await query.executeTakeFirstOrThrow();
  return row.n;
};

const requestRows = () => countRows("workflow_transition_requests", { tenant_id: tenant.id });
const jobRows = () => countRows("jobs", { name: "workflows.transition" });
const idempotencyRows = () =>
  countRows("idempotency_records", { tenant_id: tenant.id, endpoint: `POST ${href}` });

beforeAll(async () => {
  t = await createTestApp();
  // In the remote mode (remote-app.ts) there is no database of the test's own: what reads it is marked.
  if (!remote) db = t.container.database.db as Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  tenant = await provisionTenant(t);
  other = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
});

describe("workflow definitions and entities", () => {
  it("provisioning gives every tenant the product workflow (step workflow-definitions)", async () => {
    const provisioning = await t.inject({
      method: "GET",
      url: `/api/v1/system/tenants/${tenant.id}/provisioning`,
      headers: adminHeaders,
    });
    expect(provisioning.json<{ steps: { name: string; state: string }[] }>().steps).toContainEqual({
      name: "workflow-definitions",
      state: "succeeded",
    });
    const response = await t.inject({
      method: "GET",
      url: "/api/v1/admin/workflow-definitions/product",
      headers: bearer(tenant.token),
    });
    expect(response.statusCode).toBe(200);
    const definition = response.json<{ states: string[]; initialState: string; transitions: unknown[] }>();
    expect(definition).toMatchObject({
      kind: "product",
      initialState: "draft",
      states: ["draft", "in_review", "approved", "published", "retired"],
    });
    expect(definition.transitions).toContainEqual({ name: "submit", from: ["draft"], to: "in_review" });
    expect(definition.transitions).toContainEqual({
      name: "reject",
      from: ["in_review", "approved"],
      to: "draft",
    });
    const list = await t.inject({
      method: "GET",
      url: "/api/v1/admin/workflow-definitions",
      headers: bearer(tenant.token),
    });
    expect(list.json<{ items: { kind: string }[]; meta: unknown }>()).toMatchObject({
      items: [{ kind: "product" }],
      meta: { hasMore: false, nextCursor: null },
    });
    // The system tenant (created by bootstrap) has it too.
    const system = await t.inject({
      method: "GET",
      url: "/api/v1/admin/workflow-definitions/product",
      headers: adminHeaders,
    });
    expect(system.statusCode).toBe(200);
    const unknown = await t.inject({
      method: "GET",
      url: "/api/v1/admin/workflow-definitions/nothing",
      headers: bearer(tenant.token),
    });
    expect(unknown.statusCode).toBe(404);
  });

  it("a tenant can add a workflow for a new kind; an inconsistent one is 400, a duplicate 409", async () => {
    const definition = {
      kind: "document",
      states: ["open", "closed"],
      initialState: "open",
      transitions: [{ name: "close", from: ["open"], to: "closed" }],
    };
    const created = await t.inject({
      method: "POST",
      url: "/api/v1/admin/workflow-definitions",
      headers: bearer(other.token),
      payload: definition,
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject(definition);
    const again = await t.inject({
      method: "POST",
      url: "/api/v1/admin/workflow-definitions",
      headers: bearer(other.token),
      payload: definition,
    });
    expect(again.statusCode).toBe(409);
    const broken = await t.inject({
      method: "POST",
      url: "/api/v1/admin/workflow-definitions",
      headers: bearer(other.token),
      payload: { ...definition, kind: "broken", initialState: "nowhere" },
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json<{ errors: { pointer: string }[] }>().errors.map((e) => e.pointer)).toContain(
      "/initialState",
    );
    // Definitions are per tenant: the first tenant has no `document` workflow.
    const entity = await t.inject({
      method: "POST",
      url: "/api/v1/admin/entities",
      headers: bearer(tenant.token),
      payload: { kind: "document", attributes: {} },
    });
    expect(entity.statusCode).toBe(400);
  });

  it("POST /api/v1/admin/entities creates an entity in the initial state with version 1", async ({
    skip,
  }) => {
    skip(readsService);
    const response = await t.inject({
      method: "POST",
      url: "/api/v1/admin/entities",
      headers: bearer(tenant.token),
      payload: { kind: "product", attributes: { gtin: "4006381333931", name: "Pen" } },
    });
    expect(response.statusCode).toBe(201);
    const entity = response.json<Entity>();
    expect(entity).toMatchObject({
      kind: "product",
      state: "draft",
      version: 1,
      attributes: { gtin: "4006381333931", name: "Pen" },
    });
    expect(entity.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(entity.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await readEntity(entity.id)).toEqual(entity);
    // Another tenant cannot see it.
    const foreign = await t.inject({
      method: "GET",
      url: `/api/v1/admin/entities/${entity.id}`,
      headers: bearer(other.token),
    });
    expect(foreign.statusCode).toBe(404);
    const list = await t.inject({
      method: "GET",
      url: "/api/v1/admin/entities?kind=product&limit=100",
      headers: bearer(tenant.token),
    });
    expect(list.json<{ items: Entity[] }>().items.map((e) => e.id)).toContain(entity.id);
    const workflows = t.container.modules.find((m) => m.name === "workflows") as unknown as {
      service: WorkflowsService;
    };
    expect(
      (await workflows.service.findEntitiesByAttribute(tenant.id, "product", "gtin", "4006381333931")).map(
        (e) => e.id,
      ),
    ).toEqual([entity.id]);
  });

  it("entity bodies are validated; an unknown kind is 400 with a pointer", async () => {
    for (const [payload, pointer] of [
      [{ kind: "product" }, "/attributes"],
      [{ kind: "product", attributes: [] }, "/attributes"],
      [{ kind: "unknown", attributes: {} }, "/kind"],
      // An unknown field is named by the object that holds it: an error never repeats the request.
      [{ kind: "product", attributes: {}, state: "published" }, ""],
    ] as const) {
      const response = await t.inject({
        method: "POST",
        url: "/api/v1/admin/entities",
        headers: bearer(tenant.token),
        payload,
      });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json<{ errors: { pointer: string }[] }>().errors.map((e) => e.pointer)).toContain(
        pointer,
      );
    }
  });

  it("entity and definition routes deny without credentials and without admin scopes", async () => {
    await expectSessionRouteDenials(t, {
      method: "POST",
      url: "/api/v1/admin/entities",
      payload: { kind: "product", attributes: {} },
      insufficientScopes: ["admin:read"],
    });
    await expectSessionRouteDenials(t, {
      method: "GET",
      url: "/api/v1/admin/entities",
      insufficientScopes: ["workflows:read"],
    });
    await expectSessionRouteDenials(t, {
      method: "GET",
      url: "/api/v1/admin/workflow-definitions",
      insufficientScopes: ["workflows:transition"],
    });
  });
});

describe("discovery", () => {
  it("publishes the capability, the transition request entry with its headers, and metaHref schemas", async () => {
    const discovery = await t.inject({ method: "GET", url: "/api/v1/meta/discovery" });
    expect(discovery.json<{ capabilities: string[] }>().capabilities).toContain(
      "workflows.transitionRequests",
    );
    const response = await t.inject({
      method: "GET",
      url: "/api/v1/profile/entrypoints",
      headers: bearer(tenant.token),
    });
    const entries = response.json<{
      entrypoints: {
        id: string;
        kind: string;
        href: string;
        metaHref?: string;
        actions: Record<string, unknown>[];
      }[];
    }>().entrypoints;
    const entry = entries.find((e) => e.id === "workflows.transitionRequests");
    expect(entry).toMatchObject({ kind: "crud", href });
    expect(entry?.actions).toContainEqual({
      id: "create",
      method: "POST",
      href,
      requiredHeaders: ["X-Idempotency-Key", "X-Tenant-ID"],
      acceptedStatus: 202,
      responseHeaders: ["Location", "Retry-After"],
      statusHref: `${href}/{requestId}`,
      statusRequiredAnyScopes: ["workflows:read"],
    });
    expect(entry?.actions).toContainEqual({ id: "read", method: "GET", href: `${href}/{requestId}` });
    for (const id of ["workflows.transitionRequests", "admin.entities", "admin.workflowDefinitions"]) {
      const published = entries.find((e) => e.id === id);
      expect(published?.metaHref, id).toBeDefined();
      const meta = await t.inject({
        method: "GET",
        url: published?.metaHref ?? "",
        headers: bearer(tenant.token),
      });
      expect(meta.statusCode).toBe(200);
      const schemas = meta.json<{ id: string; schemas: { create: { properties: object }; update: null } }>();
      expect(schemas.id).toBe(id);
      expect(schemas.schemas.update).toBeNull();
    }
    const meta = await t.inject({
      method: "GET",
      url: entry?.metaHref ?? "",
      headers: bearer(tenant.token),
    });
    expect(
      Object.keys(meta.json<{ schemas: { create: { properties: object } } }>().schemas.create.properties),
    ).toEqual(["entity", "entityId", "transition", "payload"]);
  });

  it("the OpenAPI document describes the workflow routes", async () => {
    const response = await t.inject({ method: "GET", url: "/openapi.json" });
    expect(response.statusCode).toBe(200);
    const paths = response.json<{ paths: Record<string, Record<string, unknown>> }>().paths;
    expect(Object.keys(paths[href] ?? {})).toContain("post");
    expect(Object.keys(paths[`${href}/{requestId}`] ?? {})).toContain("get");
    for (const path of [
      "/api/v1/admin/entities",
      "/api/v1/admin/entities/{id}",
      "/api/v1/admin/workflow-definitions",
      "/api/v1/admin/workflow-definitions/{kind}",
      "/api/v1/admin/lifecycle-adapters",
    ]) {
      expect(paths[path], path).toBeDefined();
    }
  });

  it("a session without workflow scopes does not see the entry", async () => {
    const token = await t.inject({
      method: "POST",
      url: "/api/v1/admin/access-tokens",
      headers: bearer(tenant.token),
      payload: { name: "reader", scopes: ["admin:read"] },
    });
    const response = await t.inject({
      method: "GET",
      url: "/api/v1/profile/entrypoints",
      headers: bearer(token.json<{ token: string }>().token),
    });
    expect(response.json<{ entrypoints: { id: string }[] }>().entrypoints.map((e) => e.id)).not.toContain(
      "workflows.transitionRequests",
    );
  });
});

describe("POST /api/v1/workflows/transition-requests", () => {
  it("answers 202 with requestId, status pending and statusUrl, plus Location and Retry-After", async () => {
    const entity = await createEntity();
    const response = await requestTransition(
      { entity: "product", entityId: entity.id, transition: "submit" },
      newKey(),
    );
    expect(response.statusCode).toBe(202);
    const body = response.json<{ requestId: string; status: string; statusUrl: string }>();
    expect(Object.keys(body)).toEqual(["requestId", "status", "statusUrl"]);
    expect(body.status).toBe("pending");
    expect(body.statusUrl).toBe(`${href}/${body.requestId}`);
    expect(response.headers.location).toBe(body.statusUrl);
    expect(response.headers["retry-after"]).toMatch(/^\d+$/);
    expect(response.headers["content-type"]).toContain("application/json");
  });

  it("issue 38 defect 6: the queued transition job carries the definition's 12 attempts, not the queue's default", async ({
    skip,
  }) => {
    skip(readsJobRow);
    const entity = await createEntity();
    const response = await requestTransition(
      { entity: "product", entityId: entity.id, transition: "submit" },
      newKey(),
    );
    const { requestId } = response.json<{ requestId: string }>();
    const { rows } = await sql<{ max_attempts: number | string }>`SELECT max_attempts FROM jobs
      WHERE name = 'workflows.transition' AND payload ->> 'requestId' = ${requestId}`.execute(db);
    expect(rows.map((row) => Number(row.max_attempts))).toEqual([12]);
  });

  it("rules/interface D rule 1: the key is required, non-empty and at most 255 characters", async ({
    skip,
  }) => {
    skip(countsRows);
    const entity = await createEntity();
    const body = { entity: "product", entityId: entity.id, transition: "submit" };
    const before = await requestRows();
    for (const key of [undefined, ""]) {
      const response = await requestTransition(body, key);
      expect(response.statusCode).toBe(400);
      expect(response.json<{ code: string }>().code).toBe("ERR_IDEMPOTENCY_KEY_REQUIRED");
    }
    const long = await requestTransition(body, "k".repeat(256));
    expect(long.statusCode).toBe(400);
    expect(long.json<{ code: string }>().code).toBe("ERR_VALIDATION");
    expect(await requestRows()).toBe(before);
    const max = await requestTransition(body, `${"k".repeat(250)}${String(keyCounter++).padStart(5, "0")}`);
    expect(max.statusCode).toBe(202);
    expect(await requestRows()).toBe(before + 1);
  });

  it("rules/interface D rule 1: a key may hold any characters (a space, UTF-8 letters), counted as characters, not bytes", async ({
    skip,
  }) => {
    skip(countsRows);
    const entity = await createEntity();
    const body = { entity: "product", entityId: entity.id, transition: "submit" };
    // A header carries bytes: the key's UTF-8, which Node hands over one character per byte.
    const onTheWire = (key: string) => Buffer.from(key, "utf8").toString("latin1");
    const before = await requestRows();
    const spaced = await requestTransition(body, `order 4711 submit ${keyCounter++}`);
    expect(spaced.statusCode).toBe(202);
    const umlauts = `${"ä".repeat(250)}${String(keyCounter++).padStart(5, "0")}`; // 255 characters, 505 bytes
    const first = await requestTransition(body, onTheWire(umlauts));
    expect(first.statusCode).toBe(202);
    const again = await requestTransition(body, onTheWire(umlauts));
    expect(again.statusCode).toBe(202);
    expect(again.body).toBe(first.body);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    const over = await requestTransition(body, onTheWire(`ä${umlauts}`));
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({
      code: "ERR_VALIDATION",
      errors: [{ pointer: "/headers/x-idempotency-key" }],
    });
    expect(over.body).not.toContain(onTheWire("ä"));
    expect(await requestRows()).toBe(before + 2);
  });

  it("a body that is not JSON is 400 ERR_VALIDATION at the Content-Type (rules/contract §1 lists no 415), nothing created", async ({
    skip,
  }) => {
    skip(countsRows);
    const entity = await createEntity();
    const before = await requestRows();
    const response = await t.inject({
      method: "POST",
      url: href,
      headers: { ...headersFor(tenant, newKey()), "content-type": "text/plain" },
      payload: JSON.stringify({ entity: "product", entityId: entity.id, transition: "submit" }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: "ERR_VALIDATION",
      errors: [{ pointer: "/headers/content-type" }],
    });
    expect(await requestRows()).toBe(before);
  });

  it("rules/interface D rule 2: an exact retry returns 202 with the same body, byte for byte; one request, one queue event", async ({
    skip,
  }) => {
    skip(countsRows);
    const entity = await createEntity();
    const key = newKey("retry");
    const body = {
      entity: "product",
      entityId: entity.id,
      transition: "submit",
      payload: { note: "x", n: 1 },
    };
    const [requestsBefore, jobsBefore] = [await requestRows(), await jobRows()];
    const first = await requestTransition(body, key);
    expect(first.statusCode).toBe(202);
    // Same content, other key order: still the same business request.
    const second = await requestTransition(
      { payload: { n: 1, note: "x" }, transition: "submit", entityId: entity.id, entity: "product" },
      key,
    );
    expect(second.statusCode).toBe(202);
    expect(second.body).toBe(first.body);
    expect(second.headers["idempotent-replayed"]).toBe("true");
    expect(second.headers.location).toBe(first.headers.location);
    expect(await requestRows()).toBe(requestsBefore + 1);
    expect(await jobRows()).toBe(jobsBefore + 1);
    // Also after processing: the replay is still the first answer (status pending), not the outcome.
    await t.drainJobs();
    const third = await requestTransition(body, key);
    expect(third.statusCode).toBe(202);
    expect(third.body).toBe(first.body);
    expect((await readEntity(entity.id)).version).toBe(2);
  });

  it.skipIf(!onPostgres)(
    "rules/interface D rule 2: 50 concurrent identical requests → 50 identical 202 bodies, one request row, one queue event (PostgreSQL)",
    async () => {
      const entity = await createEntity();
      const key = newKey("race");
      const body = { entity: "product", entityId: entity.id, transition: "submit" };
      const [requestsBefore, jobsBefore, recordsBefore] = [
        await requestRows(),
        await jobRows(),
        await idempotencyRows(),
      ];
      const responses = await Promise.all(Array.from({ length: 50 }, () => requestTransition(body, key)));
      expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(202));
      expect(new Set(responses.map((r) => r.body)).size).toBe(1);
      expect(await requestRows()).toBe(requestsBefore + 1);
      expect(await jobRows()).toBe(jobsBefore + 1);
      expect(await idempotencyRows()).toBe(recordsBefore + 1);
      await t.drainJobs();
      expect((await readEntity(entity.id)).version).toBe(2);
    },
  );

  it("rules/interface D rule 3: reusing a key for another entity, entityId, transition or payload is 409 ERR_IDEMPOTENCY_MISMATCH", async ({
    skip,
  }) => {
    skip(countsRows);
    const entity = await createEntity();
    const another = await createEntity();
    const key = newKey("mismatch");
    const body = { entity: "product", entityId: entity.id, transition: "submit", payload: { a: 1 } };
    expect((await requestTransition(body, key)).statusCode).toBe(202);
    const before = await requestRows();
    const jobsBefore = await jobRows();
    for (const changed of [
      { ...body, entity: "document" },
      { ...body, entityId: another.id },
      { ...body, transition: "approve" },
      { ...body, payload: { a: 2 } },
      { ...body, payload: { a: 1, b: 1 } },
      { entity: body.entity, entityId: body.entityId, transition: body.transition },
    ]) {
      const response = await requestTransition(changed, key);
      expect(response.statusCode, JSON.stringify(changed)).toBe(409);
      expect(response.headers["content-type"]).toContain("application/problem+json");
      expect(response.json()).toMatchObject({ code: "ERR_IDEMPOTENCY_MISMATCH", status: 409 });
    }
    expect(await requestRows()).toBe(before);
    expect(await jobRows()).toBe(jobsBefore);
  });

  it("idempotency is scoped by tenant: another tenant may use the same key", async () => {
    const key = newKey("shared");
    const mine = await createEntity();
    const theirs = await createEntity(other);
    const first = await requestTransition(
      { entity: "product", entityId: mine.id, transition: "submit" },
      key,
    );
    const second = await requestTransition(
      { entity: "product", entityId: theirs.id, transition: "submit" },
      key,
      headersFor(other, key),
    );
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(second.json<{ requestId: string }>().requestId).not.toBe(
      first.json<{ requestId: string }>().requestId,
    );
  });

  it("rules/interface D rule 4: a missing key is 400 ERR_IDEMPOTENCY_KEY_REQUIRED (a problem document, no request)", async ({
    skip,
  }) => {
    skip(countsRows);
    const entity = await createEntity();
    const before = await requestRows();
    const response = await requestTransition(
      { entity: "product", entityId: entity.id, transition: "submit" },
      undefined,
    );
    expect(response.statusCode).toBe(400);
    expect(response.headers["content-type"]).toContain("application/problem+json");
    expect(response.json()).toMatchObject({
      type: "urn:hanse:error:ERR_IDEMPOTENCY_KEY_REQUIRED",
      title: "Bad Request",
      status: 400,
      code: "ERR_IDEMPOTENCY_KEY_REQUIRED",
    });
    expect(await requestRows()).toBe(before);
  });

  it("rules/interface D rule 5: a body of 1 MiB + 1 byte is 413 and creates neither a request nor a queue event", async ({
    skip,
  }) => {
    skip(countsRows);
    const entity = await createEntity();
    const key = newKey("big");
    const prefix = JSON.stringify({
      entity: "product",
      entityId: entity.id,
      transition: "submit",
      payload: { pad: "" },
    });
    const pad = "x".repeat(maxBody + 1 - prefix.length);
    const payload = prefix.replace('"pad":""', `"pad":"${pad}"`);
    expect(Buffer.byteLength(payload)).toBe(maxBody + 1);
    const [requests, jobs, records] = [await requestRows(), await jobRows(), await idempotencyRows()];
    const response = await t.inject({
      method: "POST",
      url: href,
      headers: { ...headersFor(tenant, key), "content-type": "application/json" },
      payload,
    });
    expect(response.statusCode).toBe(413);
    expect(response.headers["content-type"]).toContain("application/problem+json");
    expect(response.headers.connection).toBe("close");
    expect(response.json()).toMatchObject({
      status: 413,
      code: "ERR_PAYLOAD_TOO_LARGE",
      title: "Request Entity Too Large",
    });
    expect([await requestRows(), await jobRows(), await idempotencyRows()]).toEqual([
      requests,
      jobs,
      records,
    ]);
    // The key stays free: the same key with a body under the limit is accepted.
    const small = await requestTransition(
      { entity: "product", entityId: entity.id, transition: "submit" },
      key,
    );
    expect(small.statusCode).toBe(202);
    // Exactly 1 MiB is within the limit.
    const exact = prefix.replace('"pad":""', `"pad":"${pad.slice(1)}"`);
    const atLimit = await t.inject({
      method: "POST",
      url: href,
      headers: { ...headersFor(tenant, newKey("limit")), "content-type": "application/json" },
      payload: exact,
    });
    expect(atLimit.statusCode).toBe(202);
  });

  it("rules/interface D rule 5 over a real socket: the status line says 413 Request Entity Too Large and the connection closes", async ({
    skip,
  }) => {
    skip(ownSocket);
    const entity = await createEntity();
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = t.app.server.address() as AddressInfo;
    const before = await requestRows();
    const answer = await new Promise<{
      status: number;
      message: string;
      headers: Record<string, unknown>;
      body: string;
    }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: href,
          headers: {
            ...headersFor(tenant, newKey("socket")),
            "content-type": "application/json",
            "content-length": String(maxBody + 1),
          },
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => {
            resolve({
              status: res.statusCode ?? 0,
              message: res.statusMessage ?? "",
              headers: res.headers,
              body,
            });
          });
        },
      );
      req.on("error", reject);
      // Send only the start: the server answers from Content-Length without reading the rest.
      req.write(
        JSON.stringify({ entity: "product", entityId: entity.id, transition: "submit" }).slice(0, 20),
      );
    });
    expect(answer.status).toBe(413);
    expect(answer.message).toBe("Request Entity Too Large");
    expect(answer.headers.connection).toBe("close");
    expect(JSON.parse(answer.body)).toMatchObject({
      code: "ERR_PAYLOAD_TOO_LARGE",
      title: "Request Entity Too Large",
    });
    expect(await requestRows()).toBe(before);
  });

  it("rules/interface D rule 6: the idempotency key never reaches a log line; an opaque reference does", async ({
    skip,
  }) => {
    skip(readsLogs);
    const entity = await createEntity();
    const key = `customer-4711-order-${newKey("secret")}`;
    const body = { entity: "product", entityId: entity.id, transition: "submit" };
    await requestTransition(body, key);
    await requestTransition(body, key);
    await requestTransition({ ...body, transition: "approve" }, key);
    await requestTransition(body, `${key}${"x".repeat(300)}`);
    await t.drainJobs();
    const logs = t.logs.join("\n");
    expect(logs).not.toContain(key);
    expect(logs).not.toContain("customer-4711");
    const accepted = t.logs.filter((line) => line.includes("workflow transition request accepted"));
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.some((line) => /"idempotencyRef":"idem_[0-9a-f]{16}"/.test(line))).toBe(true);
  });

  it("X-Tenant-ID: missing or malformed → 400 ERR_VALIDATION, another tenant or empty → 403 ERR_FORBIDDEN", async ({
    skip,
  }) => {
    skip(countsRows);
    const entity = await createEntity();
    const body = { entity: "product", entityId: entity.id, transition: "submit" };
    const before = await requestRows();
    const { "x-tenant-id": _omitted, ...withoutTenant } = headersFor(tenant, newKey());
    const missing = await requestTransition(body, undefined, withoutTenant);
    expect(missing.statusCode).toBe(400);
    expect(missing.json<{ code: string }>().code).toBe("ERR_VALIDATION");
    const malformed = await requestTransition(body, undefined, { ...withoutTenant, "x-tenant-id": "acme" });
    expect(malformed.statusCode).toBe(400);
    const foreign = await requestTransition(body, undefined, { ...withoutTenant, "x-tenant-id": other.id });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json<{ code: string }>().code).toBe("ERR_FORBIDDEN");
    // Issue 38 defect 5: an empty header is sent, and names no tenant of the credential's.
    for (const empty of ["", "   "]) {
      const blank = await requestTransition(body, undefined, { ...withoutTenant, "x-tenant-id": empty });
      expect(blank.statusCode, JSON.stringify(empty)).toBe(403);
      expect(blank.json<{ code: string }>().code).toBe("ERR_FORBIDDEN");
    }
    const upper = await requestTransition(body, undefined, {
      ...withoutTenant,
      "x-tenant-id": tenant.id.toUpperCase(),
    });
    expect(upper.statusCode).toBe(202);
    expect(await requestRows()).toBe(before + 1);
  });

  it("schema errors are 400 ERR_VALIDATION with pointers and create nothing", async ({ skip }) => {
    skip(countsRows);
    const entity = await createEntity();
    const before = await requestRows();
    for (const [payload, pointer] of [
      [{ entityId: entity.id, transition: "submit" }, "/entity"],
      [{ entity: "product", entityId: "not-a-uuid", transition: "submit" }, "/entityId"],
      [{ entity: "product", entityId: entity.id }, "/transition"],
      [{ entity: "product", entityId: entity.id, transition: "submit", payload: "text" }, "/payload"],
      [{ entity: "product", entityId: entity.id, transition: "submit", extra: 1 }, ""],
    ] as const) {
      const response = await requestTransition(payload, newKey("schema"));
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      const problem = response.json<{ code: string; errors: { pointer: string }[] }>();
      expect(problem.code).toBe("ERR_VALIDATION");
      expect(problem.errors.map((e) => e.pointer)).toContain(pointer);
    }
    expect(await requestRows()).toBe(before);
  });

  it("needs workflows:transition; partner keys and anonymous callers are 401", async () => {
    const entity = await createEntity();
    const reader = await t.inject({
      method: "POST",
      url: "/api/v1/admin/access-tokens",
      headers: bearer(tenant.token),
      payload: { name: "reader", scopes: ["workflows:read", "admin:write"] },
    });
    const response = await requestTransition(
      { entity: "product", entityId: entity.id, transition: "submit" },
      undefined,
      headersFor({ ...tenant, token: reader.json<{ token: string }>().token }, newKey()),
    );
    expect(response.statusCode).toBe(403);
    await expectSessionRouteDenials(t, {
      method: "POST",
      url: href,
      headers: { "x-idempotency-key": newKey(), "x-tenant-id": tenant.id },
      payload: { entity: "product", entityId: entity.id, transition: "submit" },
      insufficientScopes: ["workflows:read"],
    });
  });
});

describe("the credential checked by the accept statement (one round trip)", () => {
  const issueToken = async (scopes: string[]) => {
    const created = await t.inject({
      method: "POST",
      url: "/api/v1/admin/access-tokens",
      headers: bearer(tenant.token),
      payload: { name: `accept-${keyCounter++}`, scopes },
    });
    expect(created.statusCode).toBe(201);
    return created.json<{ id: string; token: string }>();
  };
  const revoke = async (id: string) => {
    const revoked = await t.inject({
      method: "POST",
      url: `/api/v1/admin/access-tokens/${id}/revoke`,
      headers: bearer(tenant.token),
    });
    expect(revoked.statusCode).toBe(200);
  };
  const counts = async () => [await requestRows(), await jobRows(), await idempotencyRows()];

  it("401 and 403 come before every 400: header, key and body errors of an unauthenticated caller are 401", async ({
    skip,
  }) => {
    skip(countsRows);
    const entity = await createEntity();
    const weak = await issueToken(["workflows:read"]);
    const before = await counts();
    const unknown = "hanse_at_00000000000000000000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    const good = { entity: "product", entityId: entity.id, transition: "submit" };
    const cases: [string, Record<string, string>, unknown][] = [
      ["no key", { "x-tenant-id": tenant.id }, good],
      ["malformed tenant", { "x-tenant-id": "acme", "x-idempotency-key": newKey() }, good],
      ["invalid body", { "x-tenant-id": tenant.id, "x-idempotency-key": newKey() }, { entity: "product" }],
    ];
    for (const [label, headers, body] of cases) {
      const anonymous = await requestTransition(body, undefined, { ...bearer(unknown), ...headers });
      expect(anonymous.statusCode, label).toBe(401);
      expect(anonymous.json<{ code: string }>().code).toBe("ERR_UNAUTHENTICATED");
      expect(anonymous.headers["www-authenticate"]).toMatch(/^Bearer/);
      const forbidden = await requestTransition(body, undefined, { ...bearer(weak.token), ...headers });
      expect(forbidden.statusCode, label).toBe(403);
    }
    expect(await counts()).toEqual(before);
  });

  it("a revoked access token is 401 on a new key and on a replay answered from memory; nothing is created", async ({
    skip,
  }) => {
    skip(countsRows);
    const entity = await createEntity();
    const body = { entity: "product", entityId: entity.id, transition: "submit" };
    const token = await issueToken(["workflows:transition"]);
    const key = newKey("revoked");
    const headers = { ...bearer(token.token), "x-tenant-id": tenant.id };
    const first = await requestTransition(body, undefined, { ...headers, "x-idempotency-key": key });
    expect(first.statusCode).toBe(202);
    await revoke(token.id);
    const before = await counts();
    const replay = await requestTransition(body, undefined, { ...headers, "x-idempotency-key": key });
    expect(replay.statusCode).toBe(401);
    expect(replay.json<{ code: string }>().code).toBe("ERR_UNAUTHENTICATED");
    const fresh = await requestTransition(body, undefined, { ...headers, "x-idempotency-key": newKey() });
    expect(fresh.statusCode).toBe(401);
    expect(await counts()).toEqual(before);
  });

  it("an expired access token is 401 on a new key and creates nothing; one still valid is accepted", async ({
    skip,
  }) => {
    skip(countsRows);
    const entity = await createEntity();
    const body = { entity: "product", entityId: entity.id, transition: "submit" };
    const expiring = await issueToken(["workflows:transition"]);
    const valid = await issueToken(["workflows:transition"]);
    await sql`UPDATE credentials SET expires_at = now() - interval '1 second' WHERE id = ${expiring.id}`.execute(
      db,
    );
    await sql`UPDATE credentials SET expires_at = now() + interval '1 hour' WHERE id = ${valid.id}`.execute(
      db,
    );
    const before = await counts();
    const expired = await requestTransition(body, undefined, {
      ...bearer(expiring.token),
      "x-tenant-id": tenant.id,
      "x-idempotency-key": newKey("expired"),
    });
    expect(expired.statusCode).toBe(401);
    expect(expired.json<{ code: string }>().code).toBe("ERR_UNAUTHENTICATED");
    expect(await counts()).toEqual(before);
    const accepted = await requestTransition(body, undefined, {
      ...bearer(valid.token),
      "x-tenant-id": tenant.id,
      "x-idempotency-key": newKey("not-expired"),
    });
    expect(accepted.statusCode).toBe(202);
  });

  it("a token of another tenant naming this tenant is 403 and creates nothing, even with a key this tenant used", async ({
    skip,
  }) => {
    skip(countsRows);
    const entity = await createEntity();
    const body = { entity: "product", entityId: entity.id, transition: "submit" };
    const key = newKey("foreign");
    expect((await requestTransition(body, key)).statusCode).toBe(202);
    const before = await counts();
    const foreign = await requestTransition(body, undefined, {
      ...bearer(other.token),
      "x-tenant-id": tenant.id,
      "x-idempotency-key": key,
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json<{ code: string }>().code).toBe("ERR_FORBIDDEN");
    // Another body under that key would be this tenant's mismatch: still 403, so the answer tells
    // another tenant nothing about which keys this tenant used.
    const probe = await requestTransition({ ...body, transition: "approve" }, undefined, {
      ...bearer(other.token),
      "x-tenant-id": tenant.id,
      "x-idempotency-key": key,
    });
    expect(probe.statusCode).toBe(403);
    expect(probe.json<{ code: string }>().code).toBe("ERR_FORBIDDEN");
    expect(await counts()).toEqual(before);
  });

  it("requests arriving together share accept statements, and each gets its own answer", async ({ skip }) => {
    skip(countsRows);
    const entity = await createEntity();
    const body = { entity: "product", entityId: entity.id, transition: "submit" };
    const revoked = await issueToken(["workflows:transition"]);
    await revoke(revoked.id);
    const known = newKey("known");
    expect((await requestTransition(body, known)).statusCode).toBe(202);
    const before = await counts();
    const twice = newKey("twice");
    const fresh = Array.from({ length: 20 }, () => newKey("burst"));
    const calls: [string, Promise<{ statusCode: number; body: string }>][] = [
      ...fresh.map((key): [string, Promise<{ statusCode: number; body: string }>] => [
        "202",
        requestTransition(body, key),
      ]),
      ...Array.from({ length: 5 }, (): [string, Promise<{ statusCode: number; body: string }>] => [
        "202 twice",
        requestTransition(body, twice),
      ]),
      ["409", requestTransition({ ...body, transition: "approve" }, known)],
      [
        "401",
        requestTransition(body, undefined, { ...headersFor(tenant, newKey()), ...bearer(revoked.token) }),
      ],
      [
        "403",
        requestTransition(body, undefined, { ...headersFor(other, newKey()), "x-tenant-id": tenant.id }),
      ],
    ];
    const answers = await Promise.all(calls.map(async ([label, call]) => [label, await call] as const));
    for (const [label, answer] of answers) expect(answer.statusCode, label).toBe(Number(label.slice(0, 3)));
    const twiceBodies = answers.filter(([label]) => label === "202 twice").map(([, a]) => a.body);
    expect(new Set(twiceBodies).size).toBe(1);
    const ids = answers
      .filter(([label]) => label.startsWith("202"))
      .map(([, a]) => JSON.parse(a.body) as { requestId: string })
      .map((a) => a.requestId);
    expect(new Set(ids).size).toBe(21);
    // 20 fresh keys and one for the key sent five times: a request, a queue event and a record each.
    expect(await counts()).toEqual(before.map((n) => n + 21));
  });

  it("an unauthenticated body over 1 MiB is 401, and the connection closes", async ({ skip }) => {
    skip(countsRows);
    const before = await counts();
    const response = await t.inject({
      method: "POST",
      url: href,
      headers: {
        authorization: "Bearer not-a-token-we-ever-issued-0123456789",
        "x-tenant-id": tenant.id,
        "x-idempotency-key": newKey(),
        "content-type": "application/json",
      },
      payload: `{"entity":"${"x".repeat(maxBody)}"}`,
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers.connection).toBe("close");
    expect(await counts()).toEqual(before);
  });
});

describe("processing and status", () => {
  it("an allowed transition ends succeeded with from/to state and changes the entity", async () => {
    const entity = await createEntity();
    const response = await requestTransition(
      { entity: "product", entityId: entity.id, transition: "submit" },
      newKey(),
    );
    const { statusUrl, requestId } = response.json<{ statusUrl: string; requestId: string }>();
    const pending = await readStatus(statusUrl);
    expect(pending.statusCode).toBe(200);
    // Remotely the topology's workers run all the time: the first read may find one on it already.
    const first = pending.json<StatusDocument>();
    expect(first).toMatchObject({ requestId, entity: "product", entityId: entity.id, transition: "submit" });
    if (remote) expect(["pending", "processing", "succeeded"]).toContain(first.status);
    if (!remote || first.status !== "succeeded") {
      expect(first).toMatchObject({
        status: remote ? first.status : "pending",
        completedAt: null,
        result: null,
        error: null,
      });
      expect(pending.headers["retry-after"]).toMatch(/^\d+$/);
    }
    await t.drainJobs();
    const done = await readStatus(statusUrl);
    const document = done.json<StatusDocument>();
    expect(document).toMatchObject({
      status: "succeeded",
      result: { fromState: "draft", toState: "in_review" },
      error: null,
    });
    expect(document.completedAt).toMatch(/Z$/);
    expect(done.headers["retry-after"]).toBeUndefined();
    expect(Object.keys(document).sort()).toEqual(
      [
        "requestId",
        "status",
        "entity",
        "entityId",
        "transition",
        "createdAt",
        "updatedAt",
        "completedAt",
        "result",
        "error",
      ].sort(),
    );
    expect(await readEntity(entity.id)).toMatchObject({ state: "in_review", version: 2 });
  });

  it("walks the product lifecycle: submit, reject (from approved), submit, approve, publish, retire", async () => {
    const entity = await createEntity();
    const steps: [string, string, string][] = [
      ["submit", "draft", "in_review"],
      ["approve", "in_review", "approved"],
      ["reject", "approved", "draft"],
      ["submit", "draft", "in_review"],
      ["approve", "in_review", "approved"],
      ["publish", "approved", "published"],
      ["retire", "published", "retired"],
    ];
    for (const [transition, fromState, toState] of steps) {
      const status = await transitionAndWait(entity.id, transition);
      expect(status, transition).toMatchObject({ status: "succeeded", result: { fromState, toState } });
    }
    expect(await readEntity(entity.id)).toMatchObject({ state: "retired", version: steps.length + 1 });
  });

  it("a disallowed transition ends failed with ERR_WORKFLOW_TRANSITION_NOT_ALLOWED and leaves the entity alone", async () => {
    const entity = await createEntity();
    for (const transition of ["publish", "approve", "no_such_transition"]) {
      const status = await transitionAndWait(entity.id, transition);
      expect(status).toMatchObject({
        status: "failed",
        result: null,
        error: { code: "ERR_WORKFLOW_TRANSITION_NOT_ALLOWED" },
      });
      expect(status.error?.message).toEqual(expect.any(String));
      expect(status.completedAt).not.toBeNull();
    }
    expect(await readEntity(entity.id)).toMatchObject({ state: "draft", version: 1 });
  });

  it("an unknown entity, another tenant's entity or the wrong kind ends failed with ERR_WORKFLOW_ENTITY_NOT_FOUND", async () => {
    const foreign = await createEntity(other);
    for (const [entity, entityId] of [
      ["product", "01900000-0000-7000-8000-000000000000"],
      ["product", foreign.id],
      ["document", (await createEntity()).id],
    ]) {
      const response = await requestTransition({ entity, entityId, transition: "submit" }, newKey());
      expect(response.statusCode).toBe(202);
      await t.drainJobs();
      const status = await readStatus(response.json<{ statusUrl: string }>().statusUrl);
      expect(status.json<StatusDocument>()).toMatchObject({
        status: "failed",
        error: { code: "ERR_WORKFLOW_ENTITY_NOT_FOUND" },
      });
    }
    expect(await readEntity(foreign.id, other)).toMatchObject({ state: "draft", version: 1 });
  });

  it("status: another tenant's request is 404, X-Tenant-ID must match when sent, workflows:read is needed", async () => {
    const entity = await createEntity();
    const response = await requestTransition(
      { entity: "product", entityId: entity.id, transition: "submit" },
      newKey(),
    );
    const { statusUrl } = response.json<{ statusUrl: string }>();
    expect((await readStatus(statusUrl, bearer(other.token))).statusCode).toBe(404);
    expect(
      (await readStatus(statusUrl, { ...bearer(tenant.token), "x-tenant-id": tenant.id })).statusCode,
    ).toBe(200);
    const mismatch = await readStatus(statusUrl, { ...bearer(tenant.token), "x-tenant-id": other.id });
    expect(mismatch.statusCode).toBe(403);
    expect(mismatch.json<{ code: string }>().code).toBe("ERR_FORBIDDEN");
    // Issue 38 defect 5: an empty header is a mismatch too (it was read as no header: 200).
    for (const empty of ["", "   "]) {
      const blank = await readStatus(statusUrl, { ...bearer(tenant.token), "x-tenant-id": empty });
      expect(blank.statusCode, JSON.stringify(empty)).toBe(403);
      expect(blank.json<{ code: string }>().code).toBe("ERR_FORBIDDEN");
    }
    expect((await readStatus(`${href}/01900000-0000-7000-8000-000000000000`)).statusCode).toBe(404);
    expect((await readStatus(`${href}/nonsense`)).statusCode).toBe(404);
    await expectSessionRouteDenials(t, {
      method: "GET",
      url: statusUrl,
      insufficientScopes: ["workflows:transition", "admin:read"],
    });
  });

  it("crash safety: a request left processing by a dead worker is finished by another, once", async ({
    skip,
  }) => {
    skip(plantsDeadWorker);
    const entity = await createEntity();
    const response = await requestTransition(
      { entity: "product", entityId: entity.id, transition: "submit" },
      newKey(),
    );
    const { requestId } = response.json<{ requestId: string }>();
    // A worker claimed the job, moved the request to processing and died: its lease has expired.
    await db
      .updateTable("workflow_transition_requests")
      .set({ status: "processing" })
      .where("id", "=", requestId)
      .execute();
    // The request's queue event is found by its payload (the job has no unique key).
    const held = await sql`UPDATE jobs SET state = 'running', attempts = 1, locked_by = 'dead-worker',
        locked_until = ${new Date(Date.now() - 1000)}
      WHERE name = 'workflows.transition' AND payload ->> 'requestId' = ${requestId}`.execute(db);
    expect(Number(held.numAffectedRows)).toBe(1);
    await t.drainJobs();
    const status = await readStatus(`${href}/${requestId}`);
    expect(status.json<StatusDocument>()).toMatchObject({
      status: "succeeded",
      result: { fromState: "draft", toState: "in_review" },
    });
    // The queue event delivered again (at-least-once) must not transition the entity a second time.
    await db
      .insertInto("jobs")
      .values({
        id: "01900000-0000-7000-8000-0000000000aa",
        tenant_id: tenant.id,
        name: "workflows.transition",
        key: null,
        payload: JSON.stringify({ tenantId: tenant.id, requestId }),
        state: "queued",
        attempts: 0,
        max_attempts: 3,
        run_at: new Date(Date.now() - 1000),
        created_at: new Date(),
        updated_at: new Date(),
      })
      .execute();
    await t.drainJobs();
    expect(await readEntity(entity.id)).toMatchObject({ state: "in_review", version: 2 });
    expect((await readStatus(`${href}/${requestId}`)).json<StatusDocument>().status).toBe("succeeded");
  });

  it("concurrent requests on one entity never lose an update", async ({ skip }) => {
    skip(ownWorkers);
    const entity = await createEntity();
    // Alternating submit/reject with distinct keys: whichever order the workers pick, each applied
    // transition must start from the state the previous one produced.
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        requestTransition(
          { entity: "product", entityId: entity.id, transition: i % 2 === 0 ? "submit" : "reject" },
          newKey(`c${i}`),
        ),
      ),
    );
    expect(responses.every((r) => r.statusCode === 202)).toBe(true);
    const workers = Array.from({ length: 3 }, (_, i) =>
      createWorker({
        database: t.container.database,
        jobs: t.container.jobs,
        clock: t.container.clock,
        logger: t.container.logger,
        workerId: `race-${i}`,
        concurrency: 8,
        pollMs: 10,
      }),
    );
    await Promise.all(workers.map((w) => w.drain()));
    await t.drainJobs();
    const ids = responses.map((r) => r.json<{ requestId: string }>().requestId);
    const rows = (await db
      .selectFrom("workflow_transition_requests")
      .selectAll()
      .where("id", "in", ids)
      .execute()) as {
      status: string;
      result: { fromState: string; toState: string } | null;
      applied_version: number | null;
    }[];
    expect(rows.every((r) => r.status === "succeeded" || r.status === "failed")).toBe(true);
    const succeeded = rows
      .filter((r) => r.status === "succeeded")
      .sort((a, b) => (a.applied_version ?? 0) - (b.applied_version ?? 0));
    const final = await readEntity(entity.id);
    expect(final.version).toBe(1 + succeeded.length);
    expect(succeeded.map((r) => r.applied_version)).toEqual(succeeded.map((_, i) => i + 2));
    let state = "draft";
    for (const row of succeeded) {
      expect(row.result?.fromState).toBe(state);
      state = row.result?.toState ?? "";
    }
    expect(final.state).toBe(state);
    for (const row of rows.filter((r) => r.status === "failed")) {
      expect((row as unknown as { error: { code: string } }).error.code).toMatch(
        /^ERR_WORKFLOW_(TRANSITION_NOT_ALLOWED|CONFLICT)$/,
      );
    }
  });
});
