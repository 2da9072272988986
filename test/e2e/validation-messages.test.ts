import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allScopes } from "@hanse/client/protocol";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";

let t: TestApp;
let tenant: ProvisionedTenant;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
});

const profile = {
  directory: "D96A",
  syntaxVersion: 3,
  syntaxIdentifier: "UNOC",
  partnerIdentification: { id: "5412345000013", qualifier: "14" },
  ownIdentification: { id: "4012345500004", qualifier: "14" },
};

async function errorsOf(url: string, payload: object): Promise<{ pointer: string; message: string }[]> {
  const r = await t.inject({ method: "POST", url, headers: bearer(tenant.token), payload });
  expect(r.statusCode, r.body).toBe(400);
  const body = r.json<{ code: string; errors: { pointer: string; message: string }[] }>();
  expect(body.code).toBe("ERR_VALIDATION");
  return body.errors;
}

describe("issue 24 item 5: validation errors name what is expected, once, at their pointer", () => {
  it("a value outside an enumeration names the allowed values, once (no anyOf/const trail)", async () => {
    const errors = await errorsOf("/api/v1/admin/connections", {
      partnerId: "00000000-0000-4000-8000-000000000000",
      profile: { ...profile, directory: "D01B", syntaxVersion: 5, responses: { contrl: "sometimes" } },
    });
    expect(errors).toEqual([
      { pointer: "/profile/directory", message: "directory must be one of D96A, D25A" },
      { pointer: "/profile/syntaxVersion", message: "syntaxVersion must be one of 3, 4" },
      {
        pointer: "/profile/responses/contrl",
        message: "contrl must be one of always, on-request, on-error",
      },
    ]);
  });

  it("a wrong type inside a union of literals is the same single message", async () => {
    const errors = await errorsOf("/api/v1/admin/connections", {
      partnerId: "00000000-0000-4000-8000-000000000000",
      profile: { ...profile, syntaxVersion: "3" },
    });
    expect(errors).toEqual([
      { pointer: "/profile/syntaxVersion", message: "syntaxVersion must be one of 3, 4" },
    ]);
  });

  it("required, type, length and format errors say what is expected", async () => {
    const errors = await errorsOf("/api/v1/admin/access-tokens", {
      name: "",
      scopes: ["admin:read", "no-such-scope"],
      expiresAt: "tomorrow",
    });
    expect(errors).toEqual([
      { pointer: "/name", message: "name must not be empty" },
      { pointer: "/scopes/1", message: `scopes[1] must be one of ${allScopes.join(", ")}` },
      {
        pointer: "/expiresAt",
        message: "expiresAt must be a date-time such as 2026-01-31T12:00:00Z (RFC 3339)",
      },
    ]);
    const missing = await errorsOf("/api/v1/admin/partners", {});
    expect(missing).toEqual([{ pointer: "/name", message: "name is required" }]);
    const typed = await errorsOf("/api/v1/admin/partners", { name: 7 });
    expect(typed).toEqual([{ pointer: "/name", message: "name must be a string" }]);
  });

  it("an unknown field is named by its parent's pointer only, never by its own name", async () => {
    const errors = await errorsOf("/api/v1/admin/partners", { name: "ACME", secretField: 1 });
    expect(errors).toEqual([{ pointer: "", message: "unknown field" }]);
  });
});
