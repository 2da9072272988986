// remote mode: in-process only: HANSE_PUBLIC_URL of its own (the document's server URL)
import { readFileSync } from "node:fs";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/test-app.js";

interface Media {
  example?: unknown;
  examples?: unknown;
}
interface Parameter {
  name: string;
  in: string;
  schema?: { type?: string; minimum?: number; maximum?: number };
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}
interface Document {
  tags?: { name: string; description?: string }[];
  servers?: { url: string }[];
  info: { license?: { name: string } };
  paths: Record<string, Record<string, Operation>>;
}

const publicUrl = "https://hanse.example.com";
let t: TestApp;
let text: string;
let document: Document;
const operations: [string, Operation][] = [];

beforeAll(async () => {
  t = await createTestApp({ env: { HANSE_PUBLIC_URL: publicUrl } });
  const response = await t.inject({ method: "GET", url: "/openapi.json" });
  expect(response.statusCode).toBe(200);
  text = response.body;
  document = response.json<Document>();
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods))
      operations.push([`${method} ${path}`, operation]);
  }
});
afterAll(async () => {
  await t.close();
});

/** The operation ids documented in docs/api.md: `| \`id\` | METHOD | \`path\` | tag |`. */
function documentedOperationIds(): Map<string, string> {
  const doc = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8");
  const ids = new Map<string, string>();
  for (const match of doc.matchAll(/^\| `(\w+)` +\| (\w+) +\| `([^`]+)` +\|/gm)) {
    ids.set(match[1] ?? "", `${(match[2] ?? "").toLowerCase()} ${match[3] ?? ""}`);
  }
  return ids;
}

describe("/openapi.json", () => {
  it("has no error under Redocly's recommended rules", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: text, config });
    const errors = problems
      .filter((problem) => problem.severity === "error")
      .map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer ?? ""}: ${problem.message}`);
    expect(errors).toEqual([]);
    // Examples that do not match their schema are reported as warnings; there are none.
    const invalidExamples = problems.filter((problem) => problem.ruleId === "no-invalid-media-type-examples");
    expect(invalidExamples.map((problem) => problem.location[0]?.pointer)).toEqual([]);
  });

  it("is a valid OpenAPI 3.1 document for an independent validator", async () => {
    const result = await new Validator().validate(JSON.parse(text) as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("names this server (HANSE_PUBLIC_URL) and the package's license", () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: publicUrl })]);
    expect(document.info.license?.name).toContain("UNLICENSED");
  });

  it("gives every operation the operation id docs/api.md lists for it, once", () => {
    const documented = documentedOperationIds();
    const served = new Map(operations.map(([route, operation]) => [operation.operationId ?? route, route]));
    expect(served.size).toBe(operations.length);
    expect(Object.fromEntries(served)).toEqual(Object.fromEntries(documented));
  });

  it("gives every operation a summary, a description, one declared tag and its security", () => {
    const declared = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description ?? ""]));
    for (const [route, operation] of operations) {
      expect(operation.summary, route).toBeTruthy();
      expect(operation.description, route).toBeTruthy();
      expect(operation.tags, route).toHaveLength(1);
      expect(declared.get(operation.tags?.[0] ?? ""), route).toBeTruthy();
      expect(operation.security, route).toBeDefined();
    }
    // Public routes say so; the partner and service routes name their own schemes.
    expect(document.paths["/api/v1/meta/discovery"]?.get?.security).toEqual([]);
    expect(document.paths["/api/v1/auth/sessions"]?.post?.security).toEqual([]);
    expect(document.paths["/api/v1/admin/access-tokens"]?.post?.security).toEqual([
      { bearerAuth: ["admin:write"] },
    ]);
  });

  it("bounds every integer query and path parameter within what its column and a JavaScript number hold (issue 38)", () => {
    const unbounded: string[] = [];
    for (const [route, operation] of operations) {
      for (const parameter of operation.parameters ?? []) {
        const schema = parameter.schema ?? {};
        if (parameter.in === "header" || (schema.type !== "integer" && schema.type !== "number")) continue;
        expect(schema.type, `${route} ${parameter.name}`).toBe("integer");
        const { minimum, maximum } = schema;
        if (
          minimum === undefined ||
          maximum === undefined ||
          maximum > Number.MAX_SAFE_INTEGER ||
          minimum < 0
        )
          unbounded.push(`${route} ${parameter.in} ${parameter.name}`);
      }
    }
    expect(unbounded).toEqual([]);
  });

  it("has an example for every request body and success response, and a problem example for every error", () => {
    const hasExample = (media: Media) => media.example !== undefined || media.examples !== undefined;
    for (const [route, operation] of operations) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        expect(hasExample(media), `${route} request ${type}`).toBe(true);
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          expect(hasExample(media), `${route} ${status} ${type}`).toBe(true);
          if (Number(status) >= 400) {
            expect(type, `${route} ${status}`).toBe("application/problem+json");
            expect((media.example as { status?: number }).status, `${route} ${status}`).toBe(Number(status));
          }
        }
      }
    }
  });
});
