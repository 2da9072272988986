// remote mode: in-process only: reads the in-process registry of entrypoint definitions
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminCollectionEntries,
  authPasswordEntryId,
  authSessionsEntryId,
  entitlementAdminEntries,
  ssoEntryId,
  systemTenantsEntryId,
  usersEntryId,
  webhookSubscriptionsEntryId,
  workflowTransitionsEntryId,
} from "@hanse/client";
import { createTestApp, type TestApp } from "../support/test-app.js";

/**
 * Issue 36 item 3: the entrypoint tables (each module's published entries and actions: method,
 * href template, scopes) name routes that exist, with the scopes the route itself requires, so an
 * entry can never publish a path or a scope the API does not have. Compared with the served
 * OpenAPI document, which is built from the routes.
 */
interface Operation {
  operationId: string;
  security?: Record<string, string[]>[];
}

let t: TestApp;
let operations: Map<string, Operation>;
/** `GET /api/v1/admin/partners/{}`: a method and a path with its parameters unnamed. */
const key = (method: string, href: string) => `${method.toUpperCase()} ${href.replace(/\{[^}]+\}/g, "{}")}`;

beforeAll(async () => {
  t = await createTestApp();
  const document = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json<{
    paths: Record<string, Record<string, Operation>>;
  }>();
  operations = new Map(
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => [key(method, path), operation] as const),
    ),
  );
});
afterAll(async () => {
  await t.close();
});

describe("every published entrypoint action is a route of the API", () => {
  it("has entries to check", () => {
    expect(t.container.registry.all().length).toBeGreaterThan(10);
  });

  it("each action's method and href name an operation, and its scopes are the operation's", () => {
    const problems: string[] = [];
    let checked = 0;
    for (const entry of t.container.registry.all()) {
      for (const action of entry.actions) {
        checked++;
        const operation = operations.get(key(action.method, action.href));
        if (!operation) {
          problems.push(`${entry.id}.${action.id}: no route ${action.method} ${action.href}`);
          continue;
        }
        const scopes = (operation.security ?? []).flatMap((requirement) => Object.values(requirement).flat());
        const missing = action.anyScopes.filter((scope) => !scopes.includes(scope));
        if (missing.length > 0) {
          problems.push(
            `${entry.id}.${action.id} (${operation.operationId}): publishes ${missing.join(", ")}, the route takes ${scopes.join(", ") || "none"}`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });
});

describe("every entry the client package names is published", () => {
  it("the SDK's entry ids are entries of the server (authenticated or public)", async () => {
    const published = new Set(t.container.registry.all().map((entry) => entry.id));
    const publicList = (await t.app.inject({ method: "GET", url: "/api/v1/meta/entrypoints" })).json<{
      entrypoints: { id: string }[];
    }>();
    for (const entry of publicList.entrypoints) published.add(entry.id);
    const named = [
      ...Object.values(adminCollectionEntries),
      ...Object.values(entitlementAdminEntries),
      authPasswordEntryId,
      authSessionsEntryId,
      ssoEntryId,
      systemTenantsEntryId,
      usersEntryId,
      webhookSubscriptionsEntryId,
      workflowTransitionsEntryId,
    ];
    expect(named.filter((id) => !published.has(id))).toEqual([]);
  });
});
