import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionTenant, systemToken } from "../../../test/support/fixtures.js";
import { adminHeaders, bearer, createTestApp, type TestApp } from "../../../test/support/test-app.js";
import type { Entrypoint } from "@hanse/client/protocol";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    env: { HANSE_BUILD_COMMIT: "abc1234", HANSE_BUILD_TIME: "2026-11-21T00:00:00.000Z" },
  });
});
afterAll(async () => {
  await t.close();
});

const entrypoints = async (headers: Record<string, string>) => {
  const response = await t.inject({ method: "GET", url: "/api/v1/profile/entrypoints", headers });
  expect(response.statusCode).toBe(200);
  return response.json<{ entrypoints: Entrypoint[] }>().entrypoints;
};
const tenantsEntry = async (headers: Record<string, string>) =>
  (await entrypoints(headers)).find((e) => e.id === "system.tenants");

describe("public discovery", () => {
  it("reports API major, server version, build metadata and capabilities without authentication", async () => {
    const response = await t.inject({ method: "GET", url: "/api/v1/meta/discovery" });
    expect(response.statusCode).toBe(200);
    const body = response.json<Record<string, unknown>>();
    expect(body).toMatchObject({
      apiMajor: 1,
      serverVersion: expect.stringMatching(/^\d+\.\d+\.\d+/) as unknown,
      build: { commit: "abc1234", builtAt: "2026-11-21T00:00:00.000Z" },
    });
    expect(Array.isArray(body.capabilities)).toBe(true);
  });

  it("rules/interface B rule 1: never mentions system resources", async () => {
    const response = await t.inject({ method: "GET", url: "/api/v1/meta/discovery" });
    expect(response.body).not.toMatch(/system\.tenants|\/api\/v1\/system/);
    const publicEntries = await t.inject({ method: "GET", url: "/api/v1/meta/entrypoints" });
    expect(publicEntries.body).not.toMatch(/system\.tenants|\/api\/v1\/system/);
  });

  it("public entrypoints list the session login (kind auth)", async () => {
    const response = await t.inject({ method: "GET", url: "/api/v1/meta/entrypoints" });
    expect(response.json()).toEqual({
      entrypoints: [
        {
          id: "auth.sessions",
          kind: "auth",
          href: "/api/v1/auth/sessions",
          actions: [
            { id: "create", method: "POST", href: "/api/v1/auth/sessions" },
            { id: "delete", method: "DELETE", href: "/api/v1/auth/sessions/current" },
            { id: "list", method: "GET", href: "/api/v1/auth/sessions" },
            { id: "end", method: "DELETE", href: "/api/v1/auth/sessions/{id}" },
          ],
        },
        {
          id: "auth.password",
          kind: "auth",
          href: "/api/v1/auth/password",
          actions: [{ id: "change", method: "POST", href: "/api/v1/auth/password" }],
        },
      ],
    });
  });
});

describe("authenticated entrypoints (rules/interface B)", () => {
  it("the system administrator sees system.tenants with list, read and create (and rules/contract §7's suspend and resume) and the create contract", async () => {
    const entry = await tenantsEntry(adminHeaders);
    expect(entry).toMatchObject({ kind: "system-resource", href: "/api/v1/system/tenants" });
    expect(entry?.actions.map((a) => a.id)).toEqual(["list", "read", "create", "suspend", "resume"]);
    expect(entry?.actions.find((a) => a.id === "create")).toEqual({
      id: "create",
      method: "POST",
      href: "/api/v1/system/tenants",
      requiredHeaders: ["Idempotency-Key"],
      acceptedStatus: 202,
      responseHeaders: ["Location", "Retry-After"],
      statusHref: "/api/v1/system/tenants/{tenantId}/provisioning",
      statusRequiredAnyScopes: ["tenants:read", "system_diagnostics:read"],
    });
  });

  it("rule 1: lists only the actions the session is allowed", async () => {
    const listOnly = await systemToken(t, ["tenants:list"]);
    expect((await tenantsEntry(bearer(listOnly)))?.actions.map((a) => a.id)).toEqual(["list"]);
    const createOnly = await systemToken(t, ["tenants:create"]);
    expect((await tenantsEntry(bearer(createOnly)))?.actions.map((a) => a.id)).toEqual(["create"]);
  });

  it("rule 1: no entry without at least one action scope", async () => {
    const diagnostics = await systemToken(t, ["system_diagnostics:read"]);
    expect(await tenantsEntry(bearer(diagnostics))).toBeUndefined();
  });

  it("rule 1: only sessions of the system tenant see system.tenants", async () => {
    const customer = await provisionTenant(t);
    const entries = await entrypoints(bearer(customer.token));
    expect(entries.find((e) => e.id === "system.tenants")).toBeUndefined();
    expect(JSON.stringify(entries)).not.toContain("/api/v1/system");
  });

  it("authenticated entries use only the kinds crud and system-resource; crud entries carry a metaHref", async () => {
    for (const entry of await entrypoints(adminHeaders)) {
      expect(["crud", "system-resource"]).toContain(entry.kind);
      if (entry.kind === "crud") expect(entry.metaHref).toBeDefined();
      else expect(entry.metaHref).toBeUndefined();
    }
  });

  it("a crud entry's metaHref serves the JSON Schemas of its payloads", async () => {
    const entry = (await entrypoints(adminHeaders)).find((e) => e.id === "admin.accessTokens");
    const response = await t.inject({ method: "GET", url: entry?.metaHref ?? "", headers: adminHeaders });
    expect(response.statusCode).toBe(200);
    const body = response.json<{
      id: string;
      schemas: { create: { properties: object }; update: null; item: object };
    }>();
    expect(body.id).toBe("admin.accessTokens");
    expect(Object.keys(body.schemas.create.properties)).toEqual(["name", "scopes", "expiresAt"]);
    expect(body.schemas.update).toBeNull();
  });

  it("a metaHref of an entry the session cannot see is 404; unauthenticated is 401", async () => {
    const noAdmin = await systemToken(t, ["tenants:list"]);
    const url = "/api/v1/profile/entrypoints/admin.accessTokens/meta";
    expect((await t.inject({ method: "GET", url, headers: bearer(noAdmin) })).statusCode).toBe(404);
    expect((await t.inject({ method: "GET", url })).statusCode).toBe(401);
    expect(
      (
        await t.inject({
          method: "GET",
          url: "/api/v1/profile/entrypoints/system.tenants/meta",
          headers: adminHeaders,
        })
      ).statusCode,
    ).toBe(404);
  });

  it("rule 2: paths that are not published do not exist (no update or delete on the collection)", async () => {
    for (const method of ["PUT", "PATCH", "DELETE"] as const) {
      const response = await t.inject({
        method,
        url: "/api/v1/system/tenants/01900000-0000-7000-8000-000000000000",
        headers: adminHeaders,
      });
      expect(response.statusCode).toBe(404);
    }
  });

  it("entrypoints need a session: none is 401", async () => {
    const response = await t.inject({ method: "GET", url: "/api/v1/profile/entrypoints" });
    expect(response.statusCode).toBe(401);
  });
});
