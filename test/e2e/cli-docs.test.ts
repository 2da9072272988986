import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command, CommanderError } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerServerCommands } from "../../src/commands/index.js";
import { registerCliCommands } from "../../packages/client/src/cli/index.js";
import { Capture, createCliRunner } from "../support/cli-runner.js";
import { provisionTenant } from "../support/fixtures.js";
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

type Program = "hanse" | "hanse-server";

/**
 * The `hanse …` (client package) and `hanse-server …` (the server's own commands) invocations of
 * the sh code blocks, as argv after the program's name, with their source line.
 */
function documentedCommands(text: string): { line: string; program: Program; argv: string[] }[] {
  const found: { line: string; program: Program; argv: string[] }[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const lines = (block[1] ?? "").replace(/\\\n\s*/g, " ").split("\n");
    for (const raw of lines) {
      const line = raw.replace(/\s+#.*$/, "").trim();
      const invocation =
        /(?:^|\|\s*|<\()(?:\w+=\S+\s+)*(hanse-server|hanse|npm run hanse --|npm run hanse-server --)(?=\s|$)(.*)$/.exec(
          line,
        );
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
      found.push({
        line,
        program: (invocation[1] ?? "").includes("hanse-server") ? "hanse-server" : "hanse",
        argv,
      });
    }
  }
  return found;
}

const placeholder = /<[^>]+>/;
const someId = "01a20000-0000-7000-8000-000000000001";

/** The CLI with every action replaced: parsing alone (options, arguments, values) decides. */
function parseOnly(name: Program, argv: string[]): { exitCode: number; err: string } {
  const err = new Capture();
  const program = commands(name, err);
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

/** The program as its bin builds it, actions not yet stubbed. */
function commands(name: Program, stderr = new Capture()): Command {
  const program = new Command(name);
  if (name === "hanse") registerCliCommands(program, { env: {}, stdout: new Capture(), stderr });
  else registerServerCommands(program);
  return program;
}

const documented = documentedCommands(markdown);

describe("docs/cli.md shows the CLI as it is", () => {
  it("finds the commands of the page", () => {
    expect(documented.length).toBeGreaterThan(80);
  });

  it("every command it shows parses (known command, options and values, required ones given)", () => {
    const failures = documented
      .map(({ line, program, argv }) => ({
        line,
        result: parseOnly(
          program,
          argv.map((word) => (placeholder.test(word) ? someId : word)),
        ),
      }))
      .filter(({ result }) => result.exitCode !== 0)
      .map(({ line, result }) => `${line}\n  ${result.err.trim()}`);
    expect(failures).toEqual([]);
  });

  it.each(["hanse", "hanse-server"] as const)("every command of %s is shown at least once", (name) => {
    const program = commands(name);
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
    const shown = documented
      .filter((command) => command.program === name)
      .map(({ argv }) => `${argv.filter((w) => !w.startsWith("-")).join(" ")} `);
    const missing = leaves(program, [[]])
      .filter((paths) => !paths.some((path) => shown.some((line) => line.startsWith(`${path.join(" ")} `))))
      .map((paths) => paths[0]?.join(" "));
    expect(missing).toEqual([]);
  });
});

const repoFile = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

/**
 * The shell variables of the guides (issue 38): the table "Names used in these guides" of
 * docs/getting-started.md, each name with the JSON fields (last component) it may be read from.
 */
function guideNames(): Map<string, string[]> {
  const markdown = repoFile("docs/getting-started.md");
  const start = markdown.indexOf("\n## Names used in these guides");
  expect(start).toBeGreaterThan(-1);
  const section = markdown.slice(start, markdown.indexOf("\n## ", start + 1) >>> 0 || undefined);
  const names = new Map<string, string[]>();
  for (const row of section.matchAll(/^\| `([A-Za-z_]\w*)`\s*\|[^|\n]*\|([^|\n]*)\|$/gm)) {
    const fields = [...(row[2] ?? "").matchAll(/`\.([\w.]+)`/g)].map(
      (m) => (m[1] ?? "").split(".").at(-1) ?? "",
    );
    names.set(row[1] ?? "", fields);
  }
  return names;
}

/** Settings of the server (.env.example), which a guide may set or use too. */
const settings = new Set(
  [...repoFile(".env.example").matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]),
);
/** Lower-case locals of the guides' functions and snippets (the table says so), and zsh's own `fpath`. */
const locals = new Set(["method", "target", "body", "ts", "nonce", "hash", "sig", "key", "id", "fpath"]);

/** The test suite's own settings (HANSE_TEST_*, read by test/support; docs/operations.md). */
const testSettings = /^HANSE_TEST_[A-Z0-9_]+$/;

/** The guides: README.md and docs/*.md. */
const guides = [
  "README.md",
  ...readdirSync(new URL("../../docs/", import.meta.url))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Every shell variable an sh/bash block uses or sets, and the JSON field each `json`/`JSON.parse` read assigns. */
function shellNames(markdown: string): { used: string[]; read: { name: string; field: string }[] } {
  const used: string[] = [];
  const read: { name: string; field: string }[] = [];
  for (const block of markdown.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm)) {
    const text = block[1] ?? "";
    for (const m of text.matchAll(/\$\{?([A-Za-z_]\w*)/g)) used.push(m[1] ?? "");
    for (const m of text.matchAll(/(?:^|[\s;(])(?:(?:export|local|readonly)\s+)?([A-Za-z_]\w*)=/gm))
      used.push(m[1] ?? "");
    const code = text.replace(/(^|\s)#.*$/gm, "$1");
    for (const m of code.matchAll(
      /(?:^|[;&|(]\s*)(?:export|local|read(?:\s+-r)?)((?:[ \t]+[A-Za-z_]\w*)+)(?=[ \t]*(?:$|[<;]))/gm,
    ))
      used.push(...(m[1] ?? "").trim().split(/\s+/));
    // A JSON read (`| json EXPR)`, `JSON.parse(…)EXPR` or `[a.x, a.y].join(" ")`) assigns the assignment it ends: `NAME=$(` or `read -r NAMES < <(`.
    const reads =
      /\|\s*json\s+(?:'([^']*)'|([^\s)]+))\s*\)|JSON\.parse\(require\(["']fs["']\)\.readFileSync\(0, ["']utf8["']\)\)([.\w[\]]+)|\[((?:[a-z]\w*\.\w+(?:,\s*)?)+)\]\.join\(" "\)/g;
    for (const m of text.matchAll(reads)) {
      const before = text.slice(0, m.index);
      const assignment = [
        ...before.matchAll(
          /(?:^|[\s;(])(?:export\s+)?([A-Za-z_]\w*)=\$\(|read -r ([A-Za-z_][\w ]*?) < <\(/gm,
        ),
      ].at(-1);
      if (!assignment) continue;
      const names = (assignment[1] ?? assignment[2] ?? "").split(" ");
      const fields = m[4]
        ? m[4].split(",")
        : (m[1] ?? m[2] ?? m[3] ?? "").split("+").filter((part) => part.includes("."));
      names.forEach((name, i) => read.push({ name, field: /\.(\w+)\W*$/.exec(fields[i] ?? "")?.[1] ?? "" }));
    }
  }
  return { used, read };
}

describe("the guides' shell variables: one set of names, each with one meaning (issue 38)", () => {
  const names = guideNames();

  it("the table of docs/getting-started.md names them", () => {
    expect(names.size).toBeGreaterThan(15);
    expect(names.get("ADMIN_TOKEN")).toEqual(["token"]);
  });

  it("every sh/bash block of README.md and docs/*.md uses and sets only names of the table or .env.example", () => {
    const unknown = guides.flatMap((guide) =>
      shellNames(repoFile(guide))
        .used.filter(
          (name) => !names.has(name) && !settings.has(name) && !locals.has(name) && !testSettings.test(name),
        )
        .map((name) => `${guide}: ${name}`),
    );
    expect([...new Set(unknown)]).toEqual([]);
  });

  it("a name read from an answer is read from a field the table gives it (one kind of value per name)", () => {
    const reads = guides.flatMap((guide) => shellNames(repoFile(guide)).read.map((r) => ({ guide, ...r })));
    expect(reads.length).toBeGreaterThan(10);
    const wrong = reads
      .filter(({ name, field }) => !(names.get(name) ?? []).includes(field))
      .map(
        ({ guide, name, field }) =>
          `${guide}: ${name} from .${field}, the table says ${(names.get(name) ?? []).join(", ") || "nothing"}`,
      );
    expect(wrong).toEqual([]);
  });

  it("the checks catch a name outside the table and a name with two kinds of value", () => {
    const sample =
      "```sh\nTOKEN=$(curl -s x | json .claimToken)\nADMIN_TOKEN=$(curl -s y | json .claimToken)\n```\n";
    const { used, read } = shellNames(sample);
    expect(used.filter((name) => !names.has(name))).toContain("TOKEN");
    expect(read).toEqual([
      { name: "TOKEN", field: "claimToken" },
      { name: "ADMIN_TOKEN", field: "claimToken" },
    ]);
    expect(names.get("ADMIN_TOKEN")).not.toContain("claimToken");
  });
});

describe(
  "docs/cli.md: the read-only commands it shows run against a real server",
  { timeout: 120_000 },
  () => {
    let t: TestApp;
    let dir: string;
    const env: Record<string, string> = {};
    /** A user's session, for the commands that take one (`sessions …`: an access token is 403). */
    let userSession = "";
    const { hanse } = createCliRunner(() => env);

    beforeAll(async () => {
      t = await createTestApp();
      dir = await mkdtemp(join(tmpdir(), "hanse-cli-docs-"));
      Object.assign(env, {
        HANSE_URL: await t.app.listen({ port: 0, host: "127.0.0.1" }),
        HANSE_TOKEN: bootstrapToken,
        HANSE_CLI_CONFIG: join(dir, "credentials.json"),
      });
      userSession = (await provisionTenant(t)).token;
    }, 180_000);
    afterAll(async () => {
      await t.close();
      await rm(dir, { recursive: true, force: true });
    });

    it("lists, whoami, discover, completion and --version exit 0; with --json one JSON document", async () => {
      const runnable = documented.filter(
        ({ program, argv }) =>
          program === "hanse" &&
          !argv.some((word) => placeholder.test(word)) &&
          (argv[0] === "--version" ||
            ["whoami", "discover", "completion"].includes(argv[0] ?? "") ||
            argv.filter((word) => !word.startsWith("-")).at(-1) === "list"),
      );
      expect(runnable.length).toBeGreaterThan(15);
      for (const { line, argv } of runnable) {
        const run = await hanse(argv, argv[0] === "sessions" ? { env: { HANSE_TOKEN: userSession } } : {});
        expect(run.exitCode, `${line}\n${run.err}`).toBe(0);
        if (argv.includes("--json")) expect(() => JSON.parse(run.out) as unknown, line).not.toThrow();
      }
    });
  },
);
