// remote mode: in-process only: compares with the document of this checkout's routes
import { readFile, writeFile } from "node:fs/promises";
import openapiTS, { astToString } from "openapi-typescript";
import { format, resolveConfig } from "prettier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/test-app.js";

/**
 * Issue 36 item 3: the client's request and response types are generated from /openapi.json
 * (openapi-typescript) into packages/client/src/sdk/api.generated.ts, and the SDK's shapes are
 * aliases of them (packages/client/src/sdk/api.ts). This test fails when the committed file is
 * not what the served document generates; `npm run generate:client-types` rewrites it.
 */
const generatedFile = new URL("../../packages/client/src/sdk/api.generated.ts", import.meta.url);
const write = process.env.HANSE_WRITE_GENERATED === "1";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

function withoutExamples(value: unknown): void {
  if (Array.isArray(value)) value.forEach(withoutExamples);
  else if (value !== null && typeof value === "object") {
    const object = value as Record<string, unknown>;
    delete object.example;
    delete object.examples;
    Object.values(object).forEach(withoutExamples);
  }
}

async function generate(): Promise<string> {
  const response = await t.app.inject({ method: "GET", url: "/openapi.json" });
  expect(response.statusCode).toBe(200);
  const document = response.json<Record<string, unknown>>();
  // The server URL is the running server's (HANSE_PUBLIC_URL): not part of the types. Error
  // answers are all the one problem shape (`Problem` of @hanse/client/protocol) and examples are
  // documentation: both are left out, which keeps the file a tenth of its size.
  delete document.servers;
  const paths = document.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  for (const operation of Object.values(paths).flatMap((methods) => Object.values(methods))) {
    for (const status of Object.keys(operation.responses ?? {})) {
      if (Number(status) >= 400 && operation.responses) Reflect.deleteProperty(operation.responses, status);
    }
  }
  withoutExamples(document);
  const header =
    "// Generated from /openapi.json by `npm run generate:client-types` (openapi-typescript): do not edit.\n" +
    "// test/e2e/client-types.test.ts fails when it is stale.\n\n";
  const text = header + astToString(await openapiTS(document as never));
  return format(text, { ...(await resolveConfig(generatedFile.pathname)), filepath: generatedFile.pathname });
}

describe("the client's generated API types", () => {
  it("packages/client/src/sdk/api.generated.ts is what /openapi.json generates (npm run generate:client-types)", async () => {
    const generated = await generate();
    if (write) await writeFile(generatedFile, generated);
    const committed = await readFile(generatedFile, "utf8").catch(() => "");
    expect(
      committed === generated,
      "packages/client/src/sdk/api.generated.ts is stale: run npm run generate:client-types",
    ).toBe(true);
  });
});
