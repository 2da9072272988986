/**
 * `npm run build`: compiles the client package (packages/client: its dist/ with type declarations,
 * which the server imports through the workspace link) and then src/ to plain JavaScript in dist/ (tsconfig.build.json in build mode:
 * when no source changed since the last build it checks in under a second) and copies the files the server reads at run time
 * (assets) next to the modules that read them, so that paths relative to `import.meta.url` hold
 * in dist/ as in src/.
 *
 *   npm run build                      # into dist/
 *   npm run build -- --out-dir <dir>   # elsewhere in the repository (the build test); a directory
 *                                      # outside it would not find node_modules or package.json
 *   npm run build -- --out-dir <dir> --no-check
 *                                      # without checking types (a third of the time; the build
 *                                      # test: `npm run typecheck` checks the types)
 *
 * An asset is every file under src/ that is not TypeScript (compiled), WebAssembly text (built
 * into TypeScript by `npm run build:wasm`) or test material (`testing/`, `__golden__/`): the
 * EDIFACT directories today, the console's files when it comes.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";

const root = resolve(import.meta.dirname, "..");
const source = join(root, "src");
const { values } = parseArgs({ options: { "out-dir": { type: "string" }, "no-check": { type: "boolean" } } });
const outDir = resolve(root, values["out-dir"] ?? "dist");
if (values["no-check"] && !values["out-dir"]) {
  // dist/.tsbuildinfo would then record an unchecked build as up to date.
  process.stderr.write("--no-check needs --out-dir\n");
  process.exit(2);
}

const compiled = [".ts", ".wat"];
const testMaterial = new Set(["testing", "__golden__"]);

function* assets(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!testMaterial.has(entry.name)) yield* assets(path);
    } else if (!compiled.some((extension) => entry.name.endsWith(extension))) {
      yield path;
    }
  }
}

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
// The client first: the server's build reads its declarations (tsconfig.build.json has no `paths`).
const client = spawnSync(process.execPath, [tsc, "-b", "packages/client/tsconfig.build.json"], {
  cwd: root,
  stdio: "inherit",
});
if (client.status !== 0) process.exit(client.status ?? 1);
// Build mode keeps its record in dist/.tsbuildinfo (tsconfig.build.json) and takes no other
// options; elsewhere, a full build.
const compilerArguments = values["out-dir"]
  ? [
      "-p",
      "tsconfig.build.json",
      "--outDir",
      outDir,
      "--tsBuildInfoFile",
      join(outDir, ".tsbuildinfo"),
      ...(values["no-check"] ? ["--noCheck"] : []),
    ]
  : ["-b", "tsconfig.build.json"];
const compile = spawnSync(process.execPath, [tsc, ...compilerArguments], { cwd: root, stdio: "inherit" });
if (compile.status !== 0) process.exit(compile.status ?? 1);

for (const path of assets(source)) {
  const target = join(outDir, relative(source, path));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(path, target);
}
