// remote mode: in-process only: builds the package and starts a process of its own (nothing of the topology)
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VALID_ORDERS } from "../../src/edifact/testing/sample.fixture.js";
import { freePort } from "../support/server-process.js";
import { createTestDatabase, type TestDatabase } from "../support/test-database.js";

const root = new URL("../..", import.meta.url).pathname;
const token = "build-test-bootstrap-token-0123456789abcdef";

/** Runs `node args` in the repository; its exit code and output. */
async function node(args: string[], env: Record<string, string | undefined> = {}) {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env } });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, out, err };
}

async function* files(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

// The build goes to a directory of its own inside the repository (node_modules and package.json
// must be found from it, as from dist/), so the test neither needs nor touches dist/.
describe("the production build (npm run build) runs as plain JavaScript", () => {
  let outDir: string;
  let testDatabase: TestDatabase;
  let dataDir: string;
  let server: { url: string; stop: () => Promise<number | null>; output: () => string } | undefined;

  beforeAll(async () => {
    outDir = await mkdtemp(join(root, ".build-test-"));
    dataDir = await mkdtemp(join(tmpdir(), "hanse-build-"));
    const build = await node([
      "--import",
      "tsx",
      "scripts/build.ts",
      "--out-dir",
      relative(root, outDir),
      "--no-check",
    ]);
    expect(build.code, build.out + build.err).toBe(0);
    testDatabase = await createTestDatabase();
  }, 600_000);

  afterAll(async () => {
    await server?.stop();
    await testDatabase.drop();
    await rm(outDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it("imports only Node built-ins and the package's dependencies (no TypeScript loader, no dev dependency), and ships no tests", async () => {
    const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const allowed = new Set([...Object.keys(manifest.dependencies), ...builtinModules]);
    const imported = new Set<string>();
    const names: string[] = [];
    for await (const path of files(outDir)) {
      names.push(relative(outDir, path));
      if (!path.endsWith(".js")) continue;
      const text = await readFile(path, "utf8");
      for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"([^"\s]+)"/g)) {
        if (specifier && !specifier.startsWith(".")) imported.add(packageOf(specifier.replace(/^node:/, "")));
      }
    }
    expect(imported).toContain("fastify");
    expect([...imported].filter((name) => !allowed.has(name))).toEqual([]);
    expect(names).toContain("main.js");
    expect(names.filter((name) => /\.ts$|\.test\.|(^|\/)testing\//.test(name))).toEqual([]);
    // What the server reads at run time beside its modules.
    expect(names).toEqual(
      expect.arrayContaining([
        "edifact/directories/data/d96a.json",
        "edifact/directories/data/d25a.json",
        "modules/exchange/processing/processing.thread.js",
        "console/assets/app.js",
      ]),
    );
  });

  // A first start on the embedded database (initdb, migrations) takes a while on a busy machine.
  it(
    "the built server serves: /readyz and /openapi.json answer, the built CLI talks to it",
    { timeout: 300_000 },
    async () => {
      const port = await freePort();
      const env = {
        PORT: String(port),
        HANSE_BOOTSTRAP_TOKEN: token,
        ...(testDatabase.url ? { DATABASE_URL: testDatabase.url } : { DATABASE_URL: undefined }),
        HANSE_DATA_DIR: dataDir,
      };
      const child = spawn(process.execPath, [join(outDir, "main.js"), "serve"], {
        cwd: root,
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (d: Buffer) => (output += d.toString()));
      child.stderr.on("data", (d: Buffer) => (output += d.toString()));
      const url = `http://127.0.0.1:${port}`;
      server = {
        url,
        output: () => output,
        stop: async () => {
          if (child.exitCode !== null) return child.exitCode;
          child.kill("SIGTERM");
          const [code] = (await once(child, "exit")) as [number | null];
          return code;
        },
      };
      for (let ready = false; !ready;) {
        if (child.exitCode !== null) throw new Error(`the built server exited:\n${output}`);
        ready = await fetch(`${url}/readyz`).then(
          (response) => response.status === 200,
          () => false,
        );
        if (!ready) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const readyz = await fetch(`${url}/readyz`);
      expect(await readyz.json()).toEqual({ status: "ready" });
      const openapi = await fetch(`${url}/openapi.json`);
      expect(openapi.status).toBe(200);
      const document = (await openapi.json()) as { openapi: string; paths: Record<string, unknown> };
      expect(document.openapi).toMatch(/^3\.1\./);
      expect(Object.keys(document.paths)).toContain("/api/v1/profile/whoami");

      // The client package's CLI, built by the same npm run build into packages/client/dist.
      const whoami = await node([join(root, "packages/client/bin/hanse.js"), "whoami", "--json"], {
        HANSE_URL: url,
        HANSE_TOKEN: token,
      });
      expect(whoami.code, whoami.err).toBe(0);
      expect(JSON.parse(whoami.out)).toMatchObject({ tenant: { slug: "system" } });

      expect(await server.stop()).toBe(0);
      expect(output).not.toContain(token);
    },
  );

  it(
    "the built CLI validates an interchange with the shipped directories and WebAssembly",
    { timeout: 120_000 },
    async () => {
      const path = join(dataDir, "orders.edi");
      await writeFile(path, VALID_ORDERS, "latin1");
      const run = await node([join(outDir, "main.js"), "edi", "validate", path]);
      expect(run.err).toBe("");
      expect(run.code).toBe(0);
      expect(run.out).toContain("message 1 (ORDERS D:96A, directory D96A): accepted");
      expect(run.out).toContain("directory D96A");
    },
  );
});
