import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command, CommanderError } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerEdiCommands } from "../../src/cli/edi.command.js";
import { registerCliCommands } from "../../src/cli/index.js";
import { Capture, createCliRunner } from "../support/cli-runner.js";
import { bootstrapToken, createTestApp, type TestApp } from "../support/test-app.js";

/** docs/cli.md matches the CLI: every command it shows parses, and the read-only ones run. */
const markdown = readFileSync(new URL("../../docs/cli.md", import.meta.url), "utf8");

/** Shell words of one line: single and double quotes, no expansion. */
function words(line: string): string[] {
  const out: string[] = [];
  for (const match of line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    out.push(match[1] ?? match[2] ?? match[3] ?? "");
  }
  return out;
}

/** The `hanse …` invocations of the sh code blocks, as argv after `hanse`, with their source line. */
function documentedCommands(text: string): { line: string; argv: string[] }[] {
  const found: { line: string; argv: string[] }[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const lines = (block[1] ?? "").replace(/\\\n\s*/g, " ").split("\n");
    for (const raw of lines) {
      const line = raw.replace(/\s+#.*$/, "").trim();
      const invocation =
        /(?:^|\|\s*|<\()(?:\w+=\S+\s+)*(hanse|npm run hanse --|node bin\/hanse\.js)(?=\s|$)(.*)$/.exec(line);
      if (!invocation) continue;
      const argv: string[] = [];
      const tokens = words((invocation[2] ?? "").replace(/\)\s*$/, ""));
      for (let i = 0; i < tokens.length; i++) {
        const token = tokens[i] ?? "";
        if (token === ">" || token === "<") i++;
        else if (!token.startsWith(">") && !token.startsWith("<") && !token.startsWith("${"))
          argv.push(token);
        else if (/^<[\w-]+>$/.test(token)) argv.push(token);
      }
      found.push({ line, argv });
    }
  }
  return found;
}

const placeholder = /<[^>]+>/;
const someId = "01a20000-0000-7000-8000-000000000001";

/** The CLI with every action replaced: parsing alone (options, arguments, values) decides. */
function parseOnly(argv: string[]): { exitCode: number; err: string } {
  const err = new Capture();
  const program = new Command("hanse");
  registerCliCommands(program, { env: {}, stdout: new Capture(), stderr: err });
  registerEdiCommands(program);
  const stub = (command: Command) => {
    command.exitOverride();
    command.configureOutput({ writeOut: () => undefined, writeErr: (text) => err.write(text) });
    if (command.commands.length === 0) command.action(() => undefined);
    command.commands.forEach(stub);
  };
  stub(program);
  try {
    program.parse(argv, { from: "user" });
    return { exitCode: 0, err: err.text };
  } catch (error) {
    if (error instanceof CommanderError) return { exitCode: error.exitCode, err: err.text };
    throw error;
  }
}

const documented = documentedCommands(markdown);

describe("docs/cli.md shows the CLI as it is", () => {
  it("finds the commands of the page", () => {
    expect(documented.length).toBeGreaterThan(80);
  });

  it("every command it shows parses (known command, options and values, required ones given)", () => {
    const failures = documented
      .map(({ line, argv }) => ({
        line,
        result: parseOnly(argv.map((word) => (placeholder.test(word) ? someId : word))),
      }))
      .filter(({ result }) => result.exitCode !== 0)
      .map(({ line, result }) => `${line}\n  ${result.err.trim()}`);
    expect(failures).toEqual([]);
  });

  it("every client command is shown at least once", () => {
    const program = new Command("hanse");
    registerCliCommands(program, { env: {}, stdout: new Capture(), stderr: new Capture() });
    registerEdiCommands(program);
    // A leaf command as the word lists that call it (a command's aliases count: `show` for `get`).
    const leaves = (command: Command, paths: string[][]): string[][][] =>
      command.commands.length === 0
        ? [paths]
        : command.commands.flatMap((sub) =>
            leaves(
              sub,
              paths.flatMap((path) => [sub.name(), ...sub.aliases()].map((name) => [...path, name])),
            ),
          );
    const shown = documented.map(({ argv }) => `${argv.filter((w) => !w.startsWith("-")).join(" ")} `);
    const missing = leaves(program, [[]])
      .filter((paths) => !paths.some((path) => shown.some((line) => line.startsWith(`${path.join(" ")} `))))
      .map((paths) => paths[0]?.join(" "));
    expect(missing).toEqual([]);
  });
});

describe(
  "docs/cli.md: the read-only commands it shows run against a real server",
  { timeout: 120_000 },
  () => {
    let t: TestApp;
    let dir: string;
    const env: Record<string, string> = {};
    const { hanse } = createCliRunner(() => env);

    beforeAll(async () => {
      t = await createTestApp();
      dir = await mkdtemp(join(tmpdir(), "hanse-cli-docs-"));
      Object.assign(env, {
        HANSE_URL: await t.app.listen({ port: 0, host: "127.0.0.1" }),
        HANSE_TOKEN: bootstrapToken,
        HANSE_CLI_CONFIG: join(dir, "credentials.json"),
      });
    }, 180_000);
    afterAll(async () => {
      await t.close();
      await rm(dir, { recursive: true, force: true });
    });

    it("lists, whoami, discover, completion and --version exit 0; with --json one JSON document", async () => {
      const runnable = documented.filter(
        ({ argv }) =>
          !argv.some((word) => placeholder.test(word)) &&
          (argv[0] === "--version" ||
            ["whoami", "discover", "completion"].includes(argv[0] ?? "") ||
            argv.filter((word) => !word.startsWith("-")).at(-1) === "list"),
      );
      expect(runnable.length).toBeGreaterThan(15);
      for (const { line, argv } of runnable) {
        const run = await hanse(argv);
        expect(run.exitCode, `${line}\n${run.err}`).toBe(0);
        if (argv.includes("--json")) expect(() => JSON.parse(run.out) as unknown, line).not.toThrow();
      }
    });
  },
);
