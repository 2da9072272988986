import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import Fastify from "fastify";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminHeaders, createTestApp, type TestApp } from "../../../test/support/test-app.js";
import { authPlugin } from "../auth/index.js";

let t: TestApp;
let baseUrl: string;
beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await t.close();
});

describe("X-Correlation-ID (rules/contract §1)", () => {
  it("echoes a well-formed correlation id on success and on errors", async () => {
    for (const url of ["/healthz", "/api/v1/profile/whoami", "/no/such/route"]) {
      const response = await t.inject({
        method: "GET",
        url,
        headers: { "x-correlation-id": "abc.DEF_1:2-3" },
      });
      expect(response.headers["x-correlation-id"]).toBe("abc.DEF_1:2-3");
    }
    const failed = await t.inject({
      method: "GET",
      url: "/api/v1/profile/whoami",
      headers: { "x-correlation-id": "c-1" },
    });
    expect(failed.json<{ correlationId: string }>().correlationId).toBe("c-1");
  });

  it("replaces a correlation id with illegal characters or over 128 characters; it is not echoed", async () => {
    for (const given of ["has space", "semi;colon", "<script>", "x".repeat(129), "ümlaut"]) {
      const response = await t.inject({
        method: "GET",
        url: "/healthz",
        headers: { "x-correlation-id": given },
      });
      const id = response.headers["x-correlation-id"] as string;
      expect(id).not.toBe(given);
      expect(id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    }
    const max = "y".repeat(128);
    expect(
      (await t.inject({ method: "GET", url: "/healthz", headers: { "x-correlation-id": max } })).headers[
        "x-correlation-id"
      ],
    ).toBe(max);
  });

  it("generates one when none is sent, different per request", async () => {
    const a = await t.inject({ method: "GET", url: "/healthz" });
    const b = await t.inject({ method: "GET", url: "/healthz" });
    expect(a.headers["x-correlation-id"]).toBeTruthy();
    expect(a.headers["x-correlation-id"]).not.toBe(b.headers["x-correlation-id"]);
  });
});

describe("problem details (rules/contract §1)", () => {
  it("an unknown route is 404 problem+json with the full shape", async () => {
    const response = await t.inject({ method: "GET", url: "/api/v1/nothing-here" });
    expect(response.statusCode).toBe(404);
    expect(response.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(response.json()).toEqual({
      type: "urn:hanse:error:ERR_NOT_FOUND",
      title: "Not Found",
      status: 404,
      code: "ERR_NOT_FOUND",
      detail: expect.any(String) as unknown,
      correlationId: response.headers["x-correlation-id"],
    });
  });

  it("a 401 carries WWW-Authenticate", async () => {
    const response = await t.inject({ method: "GET", url: "/api/v1/profile/whoami" });
    expect(response.statusCode).toBe(401);
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="hanse"');
  });

  it("a body of another content type is 400 ERR_VALIDATION at the header (rules/contract §1 has no 415), and a malformed JSON body is 400 with a pointer", async () => {
    const text = await t.inject({
      method: "POST",
      url: "/api/v1/auth/sessions",
      headers: { "content-type": "text/plain" },
      payload: "hello",
    });
    expect(text.statusCode).toBe(400);
    expect(text.json()).toMatchObject({
      code: "ERR_VALIDATION",
      errors: [{ pointer: "/headers/content-type" }],
    });
    const malformed = await t.inject({
      method: "POST",
      url: "/api/v1/auth/sessions",
      headers: { "content-type": "application/json" },
      payload: "{nope",
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: "ERR_VALIDATION", errors: [{ pointer: "" }] });
  });
});

describe("headers that take one value (issue 38 defect 2)", () => {
  const once = [
    "Authorization",
    "X-Platform-Service-Credential",
    "X-Platform-Service-Timestamp",
    "X-Platform-Service-Nonce",
    "X-Platform-Service-Signature",
    "X-B2B-Claim-Token",
    "Idempotency-Key",
    "X-Idempotency-Key",
    "X-Tenant-ID",
  ];
  const send = (path: string, pairs: [string, string][]) =>
    request(`${baseUrl}${path}`, { method: "GET", headers: pairs.flat() });
  const admin = ["Authorization", adminHeaders.authorization] as [string, string];

  it("refuses every one of them sent twice with 400 ERR_VALIDATION naming the header, never its values", async () => {
    for (const name of once) {
      // Twice the same value, and two values: Node keeps the first of some and joins others.
      for (const values of [
        ["same-value-1", "same-value-1"],
        ["first-value-2", "second-value-3"],
      ]) {
        const pairs: [string, string][] = values.map((value) => [name, value]);
        const response = await send(
          "/api/v1/profile/whoami",
          name === "Authorization" ? pairs : [admin, ...pairs],
        );
        const text = await response.body.text();
        expect(response.statusCode, name).toBe(400);
        expect(response.headers["content-type"]).toContain("application/problem+json");
        expect(JSON.parse(text)).toMatchObject({
          code: "ERR_VALIDATION",
          errors: [{ pointer: `/headers/${name.toLowerCase()}`, message: "must be sent once" }],
        });
        for (const value of values) {
          expect(text).not.toContain(value);
          expect(JSON.stringify(response.headers)).not.toContain(value);
        }
      }
    }
  });

  it("counts names case-insensitively, on every route (public, unknown, partner), with the route's own code", async () => {
    const pairs: [string, string][] = [
      ["authorization", "Bearer one"],
      ["AUTHORIZATION", "Bearer two"],
    ];
    for (const path of ["/healthz", "/no/such/route"]) {
      const response = await send(path, pairs);
      expect(response.statusCode, path).toBe(400);
      expect(await response.body.json()).toMatchObject({ code: "ERR_VALIDATION" });
    }
    const partner = await send(`/api/v1/b2b-exchange/partner/connections/${randomUUID()}/mailbox`, pairs);
    expect(partner.statusCode).toBe(400);
    expect(await partner.body.json()).toMatchObject({ code: "ERR_B2B_EXCHANGE_INVALID_REQUEST" });
  });

  it("a header of the service family we do not know yet is refused without its name", async () => {
    const response = await send("/healthz", [
      ["X-Platform-Service-Marker-9f3", "a"],
      ["x-platform-service-marker-9f3", "b"],
    ]);
    const text = await response.body.text();
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(text)).toMatchObject({ errors: [{ pointer: "/headers/x-platform-service-*" }] });
    expect(text.toLowerCase()).not.toContain("marker-9f3");
  });

  it("still serves each of them sent once, and other repeated headers", async () => {
    const response = await send("/api/v1/profile/whoami", [
      admin,
      ["X-Tenant-ID", randomUUID()],
      ["Accept", "application/json"],
      ["Accept", "text/plain"],
    ]);
    await response.body.dump();
    expect(response.statusCode).toBe(200);
  });
});

describe("body limits (rules/contract §1: a 413 reaches the client as a 413)", () => {
  it("a real client sending 2 MiB to a 1 MiB route receives 413 ERR_PAYLOAD_TOO_LARGE, not a reset", async () => {
    const before = (
      await t.inject({ method: "GET", url: "/api/v1/admin/access-tokens?limit=100", headers: adminHeaders })
    ).json<{
      items: unknown[];
    }>().items.length;
    const body = JSON.stringify({ name: "x".repeat(2 * 1024 * 1024), scopes: ["admin:read"] });
    const response = await request(`${baseUrl}/api/v1/admin/access-tokens`, {
      method: "POST",
      headers: { ...adminHeaders, "content-type": "application/json" },
      body,
    });
    expect(response.statusCode).toBe(413);
    const problem = (await response.body.json()) as { code: string; title: string };
    expect(problem.code).toBe("ERR_PAYLOAD_TOO_LARGE");
    expect(problem.title).toBe("Request Entity Too Large");
    const after = (
      await t.inject({ method: "GET", url: "/api/v1/admin/access-tokens?limit=100", headers: adminHeaders })
    ).json<{
      items: unknown[];
    }>().items.length;
    expect(after).toBe(before);
  });

  it("a chunked body without Content-Length is cut off at the limit while reading", async () => {
    async function* chunks() {
      const piece = Buffer.alloc(64 * 1024, 0x61);
      yield Buffer.from('{"name":"');
      for (let i = 0; i < 40; i++) yield piece;
      yield Buffer.from('","scopes":["admin:read"]}');
    }
    const response = await request(`${baseUrl}/api/v1/admin/access-tokens`, {
      method: "POST",
      headers: { ...adminHeaders, "content-type": "application/json" },
      body: Readable.from(chunks()),
    });
    expect(response.statusCode).toBe(413);
    await response.body.dump();
  });
});

describe("OpenAPI and reference page", () => {
  it("/openapi.json is OpenAPI 3.1 and describes every route with its error responses", async () => {
    const response = await t.inject({ method: "GET", url: "/openapi.json" });
    expect(response.statusCode).toBe(200);
    const document = response.json<{
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    }>();
    expect(document.openapi).toBe("3.1.0");
    const routes = t.app
      .printRoutes({ commonPrefix: false })
      .split("\n")
      .filter((line) => line.includes("("));
    expect(routes.length).toBeGreaterThan(0);
    const expected: [string, string][] = [
      ["/api/v1/meta/discovery", "get"],
      ["/api/v1/meta/entrypoints", "get"],
      ["/api/v1/profile/entrypoints", "get"],
      ["/api/v1/profile/entrypoints/{entryId}/meta", "get"],
      ["/api/v1/profile/whoami", "get"],
      ["/api/v1/auth/sessions", "post"],
      ["/api/v1/system/tenants", "get"],
      ["/api/v1/system/tenants", "post"],
      ["/api/v1/system/tenants/{tenantId}", "get"],
      ["/api/v1/system/tenants/{tenantId}/provisioning", "get"],
      ["/api/v1/admin/access-tokens", "post"],
      ["/healthz", "get"],
      ["/readyz", "get"],
    ];
    for (const [path, method] of expected) {
      const operation = document.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
    }
    // Every authenticated operation documents 401; every operation with a body documents 400.
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const op = operation as {
          security?: unknown[];
          responses: Record<string, unknown>;
          requestBody?: unknown;
        };
        if (op.security?.length) expect(op.responses, `${method} ${path}`).toHaveProperty("401");
        if (op.requestBody) expect(op.responses, `${method} ${path}`).toHaveProperty("400");
        // A path parameter that names nothing (unknown, or not even an id) is 404.
        if (path.includes("{")) expect(op.responses, `${method} ${path}`).toHaveProperty("404");
      }
    }
    expect(document.paths["/api/v1/system/tenants"]?.post?.responses).toHaveProperty("409");
    // Success responses are named by what they are, never Fastify's placeholder.
    expect(response.body).not.toContain("Default Response");
    // The partner upload documents its body and its Idempotency-Key; the payload its headers.
    const partner = "/api/v1/b2b-exchange/partner/connections/{connectionID}";
    const inbox = document.paths[`${partner}/inbox`]?.post as unknown as {
      requestBody: { content: Record<string, unknown> };
      parameters: { in: string; name: string; required?: boolean }[];
    };
    expect(Object.keys(inbox.requestBody.content).sort()).toEqual([
      "application/edifact",
      "application/octet-stream",
    ]);
    expect(inbox.parameters).toContainEqual(
      expect.objectContaining({ in: "header", name: "idempotency-key", required: true }),
    );
    const payload = document.paths[`${partner}/mailbox/{deliveryAttemptID}/payload`]?.get as unknown as {
      responses: { "200": { headers: Record<string, unknown> } };
    };
    expect(Object.keys(payload.responses["200"].headers)).toEqual(
      expect.arrayContaining(["X-B2B-Payload-Size", "X-B2B-Payload-SHA256", "Repr-Digest", "Trailer"]),
    );
  });

  it("/docs serves the API reference page and its assets from this server only", async () => {
    const response = await t.inject({ method: "GET", url: "/docs" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toContain("text/html");
    const csp = String(response.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    // Every script and style the page loads is served here, with the same policy.
    const assets = [...response.body.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1] ?? "");
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      expect(asset, asset).not.toMatch(/^(?:https?:)?\/\//);
      const url = asset.startsWith("/") ? asset : `/docs/${asset.replace(/^\.\//, "")}`;
      const served = await t.inject({ method: "GET", url });
      expect(served.statusCode, url).toBe(200);
      expect(served.headers["content-security-policy"], url).toBe(csp);
    }
    // The page renders the document /openapi.json serves.
    const shown = await t.inject({ method: "GET", url: "/docs/json" });
    const document = await t.inject({ method: "GET", url: "/openapi.json" });
    expect(shown.json()).toEqual(document.json());
  });
});

describe("operations", () => {
  it("/healthz answers while the process is up; /readyz when the database is migrated", async () => {
    expect((await t.inject({ method: "GET", url: "/healthz" })).json()).toEqual({ status: "ok" });
    expect((await t.inject({ method: "GET", url: "/readyz" })).json()).toEqual({ status: "ready" });
  });

  it("deny by default: a route without an auth declaration cannot be registered", async () => {
    const app = Fastify();
    await app.register(authPlugin, {
      authenticator: {
        authenticateBearer: async () => null,
        rowCheck: () => {
          throw new Error("not used by this test");
        },
        claimedCredentialId: () => "",
        hasPartnerKeyForm: () => false,
      },
    });
    expect(() => app.get("/undeclared", async () => "open")).toThrow(/declares no auth requirement/);
    // A statement's credential check cannot express "any of" scopes or "system tenant only".
    const deferred = { kind: "session", deferred: true } as const;
    expect(() =>
      app.post("/any", { config: { auth: { ...deferred, anyScopes: ["admin:read"] } } }, async () => "x"),
    ).toThrow(/deferred auth takes allScopes only/);
    expect(() =>
      app.post("/system", { config: { auth: { ...deferred, systemTenant: true } } }, async () => "x"),
    ).toThrow(/deferred auth takes allScopes only/);
  });
});
