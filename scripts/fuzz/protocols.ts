/**
 * `npm run fuzz -- protocols [--seconds N] [--runs N] [--seed S --path P] [--file F]
 * [--test-name T] [--database URL]`: the model-based tests of test/protocols (issue 37 item 2) run longer than
 * the short run of `npm test`: vitest on test/protocols with HANSE_PROTOCOL_SECONDS (each property
 * runs for N seconds) or HANSE_PROTOCOL_RUNS. A counterexample is printed with fast-check's
 * `{ seed, path }`; `--seed S --path P --file F --test-name T` (vitest's `-t`: the property) replays it. On PostgreSQL with `--database URL`
 * (DATABASE_URL), else on the embedded PGlite. Returns vitest's exit code (0: nothing found).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

const REPO_ROOT = join(import.meta.dirname, "../..");

export function protocolsEnv(args: readonly string[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const option = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const out: NodeJS.ProcessEnv = { ...env };
  const seconds = option("seconds");
  const runs = option("runs");
  if (seconds === undefined && runs === undefined) out.HANSE_PROTOCOL_SECONDS = "60";
  if (seconds !== undefined) out.HANSE_PROTOCOL_SECONDS = seconds;
  if (runs !== undefined) out.HANSE_PROTOCOL_RUNS = runs;
  const seed = option("seed");
  if (seed !== undefined) out.HANSE_PROTOCOL_SEED = seed;
  const path = option("path");
  if (path !== undefined) out.HANSE_PROTOCOL_PATH = path;
  const database = option("database");
  if (database !== undefined) out.DATABASE_URL = database;
  return out;
}

export function main(args: readonly string[]): Promise<number> {
  const i = args.indexOf("--file");
  const files = i >= 0 && args[i + 1] ? [args[i + 1] ?? ""] : ["test/protocols"];
  const n = args.indexOf("--test-name");
  const name = n >= 0 ? args[n + 1] : undefined;
  const env = protocolsEnv(args, process.env);
  console.log(
    `protocols: ${files.join(" ")} on ${env.DATABASE_URL ? "PostgreSQL" : "PGlite"}, ` +
      (env.HANSE_PROTOCOL_SECONDS
        ? `${env.HANSE_PROTOCOL_SECONDS} s per property`
        : `${env.HANSE_PROTOCOL_RUNS} runs per property`) +
      (env.HANSE_PROTOCOL_SEED ? `, replaying seed ${env.HANSE_PROTOCOL_SEED}` : ""),
  );
  // One file at a time (the machine's cores go to the server and its database).
  const vitest = join(REPO_ROOT, "node_modules/vitest/vitest.mjs");
  const child = spawn(
    process.execPath,
    [
      vitest,
      "run",
      "--no-file-parallelism",
      ...(name ? ["-t", name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")] : []),
      ...files,
    ],
    {
      cwd: REPO_ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  // vitest names a failing test in a FAIL line, then fast-check its `{ seed, path }`.
  const seeds: string[] = [];
  let failing = "";
  const scan = (line: string) => {
    const plain = line.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "");
    const fail = /FAIL\s+(test\/protocols\/\S+) > (.*)$/.exec(plain);
    if (fail) failing = `--file ${fail[1]} --test-name "${fail[2]?.split(" > ").at(-1) ?? ""}"`;
    const found = /\{ seed: (-?\d+), path: "([^"]*)"/.exec(plain);
    if (found) seeds.push(`--seed ${found[1]} --path "${found[2]}" ${failing}`);
  };
  const follow = (stream: NodeJS.ReadableStream, out: NodeJS.WriteStream) => {
    let pending = "";
    stream.on("data", (chunk: Buffer) => {
      out.write(chunk);
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      lines.forEach(scan);
    });
  };
  follow(child.stdout, process.stdout);
  follow(child.stderr, process.stderr);
  return new Promise((resolve) => {
    child.on("close", (code) => {
      for (const s of seeds)
        console.log(`protocols: counterexample; replay with npm run fuzz -- protocols ${s}`);
      if (code === 0) console.log("protocols: no counterexample");
      resolve(code ?? 1);
    });
  });
}
