import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapToken, createTestApp, type TestApp } from "../support/test-app.js";

const run = promisify(execFile);
const tsc = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));

/** A typed call through the generated types: it compiles only if the operation and its schemas are there. */
const typedCall = `import type { operations, paths } from "./hanse-api.js";

type ListTenants = operations["listTenants"];
type Page = ListTenants["responses"][200]["content"]["application/json"];
type Query = NonNullable<ListTenants["parameters"]["query"]>;

export async function listTenants(baseUrl: string, token: string, query: Query): Promise<Page> {
  const path: keyof paths = "/api/v1/system/tenants";
  const response = await fetch(\`\${baseUrl}\${path}?limit=\${String(query.limit ?? 50)}\`, {
    headers: { authorization: \`Bearer \${token}\` },
  });
  if (response.status !== 200) throw new Error(\`status \${String(response.status)}\`);
  return (await response.json()) as Page;
}

export async function tenantSlugs(baseUrl: string, token: string): Promise<{ slugs: string[]; more: boolean }> {
  const page = await listTenants(baseUrl, token, { limit: 10 });
  const more: boolean = page.meta.hasMore;
  return { slugs: page.items.map((tenant) => tenant.slug), more };
}
`;

let t: TestApp;
let baseUrl: string;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  dir = await mkdtemp(join(tmpdir(), "hanse-client-"));
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe("a TypeScript client generated from /openapi.json", () => {
  it("compiles with tsc, has a type for every operation id, and calls a route typed", async () => {
    const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    // openapi-typescript, a mainstream generator, writes the types of every path and operation.
    await writeFile(join(dir, "hanse-api.ts"), astToString(await openapiTS(document as never)));
    const ids = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    // Each id must name a generated operation with responses, or this file does not compile.
    await writeFile(
      join(dir, "operation-ids.ts"),
      `import type { operations } from "./hanse-api.js";\n` +
        `export type Responses = [\n${ids.map((id) => `  operations[${JSON.stringify(id)}]["responses"],`).join("\n")}\n];\n`,
    );
    await writeFile(join(dir, "call.ts"), typedCall);
    await writeFile(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noUncheckedIndexedAccess: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2022", "DOM"],
          types: [],
          skipLibCheck: false,
          outDir: "out",
        },
        files: ["hanse-api.ts", "operation-ids.ts", "call.ts"],
      }),
    );
    await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    const compiled = await run(process.execPath, [tsc, "-p", dir]).then(
      () => "",
      // tsc reports its errors on stdout and exits non-zero.
      (error: unknown) => (error as { stdout?: string }).stdout ?? "tsc did not run",
    );
    expect(compiled).toBe("");

    const client = (await import(pathToFileURL(join(dir, "out", "call.js")).href)) as {
      tenantSlugs(baseUrl: string, token: string): Promise<{ slugs: string[]; more: boolean }>;
    };
    // The first page, oldest first, begins with the system tenant (remotely, many tenants follow).
    const { slugs, more } = await client.tenantSlugs(baseUrl, bootstrapToken);
    expect(slugs[0]).toBe("system");
    expect(typeof more).toBe("boolean");
  });
});
