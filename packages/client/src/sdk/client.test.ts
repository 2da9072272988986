import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import {
  EntrypointMissingError,
  HanseApiError,
  HanseNetworkError,
  HanseProtocolError,
  LocationMismatchError,
} from "./errors.js";
import { retryAfterMs } from "./http.js";
import { createWorkflowsClient } from "./workflows.js";
import {
  sendJson,
  startFakeApi,
  systemTenantsEntry,
  type FakeApi,
  type FakeRequest,
} from "./testing/fake-api.js";

const token = "secret-token-that-must-never-leak-0123456789";
const tenantId = "01a2002b-23a8-7036-922f-00e75614c1d4";
let api: FakeApi | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
});

type Route = (request: FakeRequest, response: ServerResponse) => boolean | undefined;

/** A fake server publishing `entries`; `route` answers everything else, else 404 problem. */
async function serve(entries: unknown[], route: Route = () => false): Promise<FakeApi> {
  api = await startFakeApi((request, response) => {
    if (request.url === "/api/v1/profile/entrypoints") {
      sendJson(response, 200, { entrypoints: entries });
      return;
    }
    if (route(request, response) === true) return;
    sendJson(response, 404, {
      type: "urn:hanse:error:ERR_NOT_FOUND",
      title: "Not Found",
      status: 404,
      code: "ERR_NOT_FOUND",
      detail: "No such resource.",
      correlationId: request.headers["x-correlation-id"],
    });
  });
  return api;
}

/** A fake server whose public entrypoints publish `auth.sessions` with `actions` under /x/sessions. */
const serveAuthSessions = (actions: unknown[], route: Route) =>
  serve([], (request, response) => {
    if (request.url !== "/api/v1/meta/entrypoints") return route(request, response);
    sendJson(response, 200, {
      entrypoints: [{ id: "auth.sessions", kind: "auth", href: "/x/sessions", actions }],
    });
    return true;
  });

const accept = (response: ServerResponse, location: string | undefined) => {
  sendJson(
    response,
    202,
    { tenantId, status: "provisioning", statusHref: `/api/v1/system/tenants/${tenantId}/provisioning` },
    { "retry-after": "0", ...(location === undefined ? {} : { location }) },
  );
  return true;
};

describe("createClient", () => {
  it("a missing action throws EntrypointMissingError and no request goes to a guessed path", async () => {
    const fake = await serve([systemTenantsEntry(["create"])]);
    const client = createClient({ baseUrl: fake.url, token });
    await expect(client.tenants.list()).rejects.toBeInstanceOf(EntrypointMissingError);
    await expect(client.tenants.get(tenantId)).rejects.toMatchObject({ reason: "action", actionId: "read" });
    await expect(client.action("system.tenants", "delete")).rejects.toBeInstanceOf(EntrypointMissingError);
    expect(fake.requests.map((r) => r.url)).toEqual(["/api/v1/profile/entrypoints"]); // read once, cached
  });

  it("a session without the entry gets EntrypointMissingError for every tenants call", async () => {
    const fake = await serve([]);
    const client = createClient({ baseUrl: fake.url, token });
    await expect(client.findEntry("system.tenants")).rejects.toMatchObject({ reason: "entry" });
    await expect(client.tenants.create({ name: "A", slug: "a1" })).rejects.toBeInstanceOf(
      EntrypointMissingError,
    );
    await expect(client.tenants.provisioning(tenantId)).rejects.toBeInstanceOf(EntrypointMissingError);
    expect(fake.requests.every((r) => r.url === "/api/v1/profile/entrypoints")).toBe(true);
  });

  it("uses only the published hrefs, expanding templates", async () => {
    const entry = systemTenantsEntry();
    entry.actions = entry.actions.map((a) => ({
      ...a,
      href: a.href.replace("/system/tenants", "/elsewhere/t"),
    }));
    const fake = await serve([entry], (request, response) => {
      if (request.url === `/api/v1/elsewhere/t/${tenantId}`) {
        sendJson(response, 200, { id: tenantId, slug: "acme" });
        return true;
      }
      if (request.url === "/api/v1/elsewhere/t?limit=2&cursor=abc") {
        sendJson(response, 200, { items: [], meta: { hasMore: false, nextCursor: null } });
        return true;
      }
      return false;
    });
    const client = createClient({ baseUrl: fake.url, token });
    await expect(client.tenants.get(tenantId)).resolves.toMatchObject({ slug: "acme" });
    await expect(client.tenants.list({ limit: 2, cursor: "abc" })).resolves.toMatchObject({ items: [] });
  });

  it("sends a fresh X-Correlation-ID and the bearer token only to public-free routes", async () => {
    const fake = await serve([], (request, response) => {
      if (request.url === "/api/v1/meta/discovery") {
        sendJson(response, 200, { apiMajor: 1, serverVersion: "1.0.0", build: {}, capabilities: [] });
        return true;
      }
      return false;
    });
    const client = createClient({ baseUrl: fake.url, token });
    await client.discovery();
    await client.entrypoints();
    const [discovery, entrypoints] = fake.requests;
    expect(discovery?.headers.authorization).toBeUndefined();
    expect(entrypoints?.headers.authorization).toBe(`Bearer ${token}`);
    expect(discovery?.headers["x-correlation-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(discovery?.headers["x-correlation-id"]).not.toBe(entrypoints?.headers["x-correlation-id"]);
  });

  it("problem+json becomes HanseApiError with status, code and correlation id, never the token", async () => {
    const fake = await serve([systemTenantsEntry()]);
    const client = createClient({ baseUrl: fake.url, token });
    const error = await client.tenants.get(tenantId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HanseApiError);
    const apiError = error as HanseApiError;
    expect(apiError).toMatchObject({ status: 404, code: "ERR_NOT_FOUND", detail: "No such resource." });
    expect(apiError.correlationId).toBe(fake.requests.at(-1)?.headers["x-correlation-id"]);
    const fields = Object.entries(apiError).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
    expect([apiError.message, ...fields].join("\n")).not.toContain(token);
  });

  it("create sends Idempotency-Key, verifies Location and returns the published status link", async () => {
    const fake = await serve([systemTenantsEntry()], (request, response) =>
      request.method === "POST" ? accept(response, `/api/v1/system/tenants/${tenantId}`) : false,
    );
    const client = createClient({ baseUrl: fake.url, token });
    const result = await client.tenants.create({ name: "Acme", slug: "acme" }, { idempotencyKey: "key-1" });
    expect(result).toMatchObject({
      tenantId,
      location: `${fake.url}/api/v1/system/tenants/${tenantId}`,
      statusHref: `${fake.url}/api/v1/system/tenants/${tenantId}/provisioning`,
      idempotencyKey: "key-1",
      retryAfterMs: 0,
    });
    const post = fake.requests.find((r) => r.method === "POST");
    expect(post?.headers["idempotency-key"]).toBe("key-1");
    expect(JSON.parse(post?.body ?? "")).toEqual({ name: "Acme", slug: "acme" });
  });

  it.each([
    ["another tenant", `/api/v1/system/tenants/00000000-0000-7000-8000-000000000000`],
    ["another origin", `http://evil.example/api/v1/system/tenants/${tenantId}`],
    ["no Location", undefined],
  ])("create rejects a Location naming %s", async (_case, location) => {
    const fake = await serve([systemTenantsEntry()], (request, response) =>
      request.method === "POST" ? accept(response, location) : false,
    );
    const client = createClient({ baseUrl: fake.url, token });
    await expect(client.tenants.create({ name: "Acme", slug: "acme" })).rejects.toBeInstanceOf(
      LocationMismatchError,
    );
  });

  it("a create whose answer is lost is retried with the same idempotency key", async () => {
    let posts = 0;
    const fake = await serve([systemTenantsEntry()], (request, response) => {
      if (request.method !== "POST") return false;
      posts++;
      if (posts === 1) {
        response.socket?.destroy();
        return true;
      }
      return accept(response, `/api/v1/system/tenants/${tenantId}`);
    });
    const client = createClient({ baseUrl: fake.url, token });
    const result = await client.tenants.create({ name: "Acme", slug: "acme" }, { retryDelayMs: 10 });
    const keys = fake.requests.filter((r) => r.method === "POST").map((r) => r.headers["idempotency-key"]);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(result.idempotencyKey).toBe(keys[0]);
  });

  it("gives up after maxAttempts with HanseNetworkError", async () => {
    const fake = await serve([systemTenantsEntry()], (request, response) => {
      if (request.method !== "POST") return false;
      response.socket?.destroy();
      return true;
    });
    const client = createClient({ baseUrl: fake.url, token });
    await expect(
      client.tenants.create({ name: "A", slug: "a1" }, { maxAttempts: 2, retryDelayMs: 5 }),
    ).rejects.toBeInstanceOf(HanseNetworkError);
    expect(fake.requests.filter((r) => r.method === "POST")).toHaveLength(2);
  });

  it("waitForProvisioning follows the published statusHref and Retry-After until terminal", async () => {
    let reads = 0;
    const states = ["pending", "running", "succeeded"] as const;
    const fake = await serve([systemTenantsEntry(["create"])], (request, response) => {
      if (request.url !== `/api/v1/system/tenants/${tenantId}/provisioning`) return false;
      const state = states[Math.min(reads++, 2)] ?? "succeeded";
      const terminal = state === "succeeded";
      sendJson(
        response,
        200,
        {
          tenantId,
          state,
          terminal,
          steps: [{ name: "a", state }],
          error: null,
          startedAt: null,
          completedAt: null,
        },
        terminal ? {} : { "retry-after": "0" },
      );
      return true;
    });
    const client = createClient({ baseUrl: fake.url, token });
    const seen: string[] = [];
    const final = await client.tenants.waitForProvisioning(tenantId, {
      onProgress: (status) => seen.push(status.state),
    });
    expect(final.state).toBe("succeeded");
    expect(seen).toEqual(["pending", "running", "succeeded"]);
  });

  it("waitForTransition pauses as long as each Retry-After says, and the fallback when there is none", async () => {
    const requestId = "01a2002b-23a8-7036-922f-00e75614c1d5";
    const statusUrl = `/api/v1/workflows/transition-requests/${requestId}`;
    const answers: [string, Record<string, string>][] = [
      ["pending", { "retry-after": "1" }],
      ["processing", {}],
      ["processing", { "retry-after": "1" }],
      ["succeeded", {}],
    ];
    const readAt: number[] = [];
    const fake = await serve([], (request, response) => {
      if (request.url !== statusUrl) return false;
      readAt.push(performance.now());
      const [status, headers] = answers[Math.min(readAt.length - 1, answers.length - 1)] ?? ["succeeded", {}];
      sendJson(
        response,
        200,
        { requestId, status, entity: "product", entityId: requestId, transition: "submit" },
        headers,
      );
      return true;
    });
    const workflows = createWorkflowsClient({ baseUrl: fake.url, token });
    const final = await workflows.waitForTransition(statusUrl, { fallbackPollIntervalMs: 10 });
    expect(final.status).toBe("succeeded");
    const gaps = readAt.slice(1).map((at, i) => at - (readAt[i] ?? at));
    // After each Retry-After: 1 at least a second; after a read without one, the 10 ms fallback.
    expect(gaps[0]).toBeGreaterThanOrEqual(990);
    expect(gaps[1]).toBeLessThan(900);
    expect(gaps[2]).toBeGreaterThanOrEqual(990);
  });

  it("refuses to follow a published href to another origin (the token stays home)", async () => {
    const entry = systemTenantsEntry(["list"]);
    entry.actions = entry.actions.map((a) => ({ ...a, href: "http://evil.example/steal" }));
    const fake = await serve([entry]);
    const client = createClient({ baseUrl: fake.url, token });
    await expect(client.tenants.list()).rejects.toBeInstanceOf(HanseProtocolError);
  });

  it("login follows the public auth.sessions entrypoint", async () => {
    const fake = await serveAuthSessions(
      [{ id: "create", method: "POST", href: "/x/sessions" }],
      (request, response) => {
        if (request.url === "/x/sessions" && request.method === "POST") {
          sendJson(response, 201, { id: "s", token: "t0k", expiresAt: "x", scopes: [], createdAt: "x" });
          return true;
        }
        return false;
      },
    );
    const session = await createClient({ baseUrl: fake.url }).login({
      tenant: "a",
      email: "e@x",
      password: "p",
    });
    expect(session.token).toBe("t0k");
    expect(JSON.parse(fake.requests.at(-1)?.body ?? "")).toEqual({
      tenant: "a",
      email: "e@x",
      password: "p",
    });
  });

  it("sessions.list and sessions.end follow the published auth.sessions actions, with the token", async () => {
    const sessionId = "01a2002b-23a8-7036-922f-00e75614c1d5";
    const actions = [
      { id: "list", method: "GET", href: "/x/sessions" },
      { id: "end", method: "DELETE", href: "/x/sessions/{id}" },
    ];
    const fake = await serveAuthSessions(actions, (request, response) => {
      if (request.url === "/x/sessions?limit=2" && request.method === "GET") {
        sendJson(response, 200, { items: [], meta: { hasMore: false, nextCursor: null } });
        return true;
      }
      if (request.url === `/x/sessions/${sessionId}` && request.method === "DELETE") {
        response.writeHead(204).end();
        return true;
      }
      return false;
    });
    const client = createClient({ baseUrl: fake.url, token });
    expect(await client.sessions.list({ limit: 2 })).toEqual({
      items: [],
      meta: { hasMore: false, nextCursor: null },
    });
    await client.sessions.end(sessionId);
    const calls = fake.requests.filter((r) => r.url.startsWith("/x/"));
    expect(calls.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /x/sessions?limit=2",
      `DELETE /x/sessions/${sessionId}`,
    ]);
    for (const call of calls) expect(call.headers.authorization).toBe(`Bearer ${token}`);
    // The public entrypoints are read without the token.
    const published = fake.requests.filter((r) => r.url === "/api/v1/meta/entrypoints");
    expect(published.map((r) => r.headers.authorization)).toEqual([undefined, undefined]);
  });
});

describe("retryAfterMs", () => {
  it("reads seconds and HTTP dates, clamps and falls back", () => {
    expect(retryAfterMs("3", { fallbackMs: 1000 })).toBe(3000);
    expect(retryAfterMs(undefined, { fallbackMs: 1000 })).toBe(1000);
    expect(retryAfterMs("soon", { fallbackMs: 700 })).toBe(700);
    expect(retryAfterMs("9999", { fallbackMs: 1000, maxMs: 30_000 })).toBe(30_000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:05 GMT", { fallbackMs: 0, now })).toBe(5000);
  });
});
