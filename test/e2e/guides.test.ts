// remote mode: in-process only: the guides create fixed tenant slugs (acme) and set settings of their own
import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerEdiCommands } from "../../src/commands/edi.command.js";
import { createCliRunner } from "../support/cli-runner.js";
import { bootstrapToken, createTestApp, type TestApp } from "../support/test-app.js";

/**
 * The guides run as a newcomer runs them (issue 38): every command of their `sh`/`bash` blocks,
 * in order, in one bash session per walk-through, against a real server on a real port and
 * database. `curl` is the real curl (its status must be 2xx, a list it answers must not be empty);
 * `hanse` runs in-process (as test/e2e/cli.test.ts does) with the words and stdin bash gave it, and
 * must exit 0. The server's URL replaces http://127.0.0.1:8080, and `data/bootstrap-token` holds the
 * server's bootstrap token, so the guides' own lines set every variable. Lines that cannot run in a
 * test are skipped by `skip` below, each with its reason; nothing else is left out.
 */

const documentedUrl = "http://127.0.0.1:8080";

/** Commands that do not run in a test, by a piece of their text, with the reason. */
const skip: { text: string; reason: string }[] = [
  { text: "git clone", reason: "the test runs in the checkout" },
  { text: "npm install", reason: "the test runs with the dependencies installed" },
  { text: "npm start", reason: "the test starts the server itself (createTestApp on a real port)" },
  {
    text: "cursor=$CURSOR",
    reason: "$CURSOR is meta.nextCursor of a list longer than the walk-through makes",
  },
  { text: "CONSOLE_SCREENSHOTS=", reason: "runs the console's own test (Chromium), not a guide's step" },
  { text: "<your PIM host>", reason: "needs the reader's own HTTPS endpoint on a public address" },
  { text: "keep polling (--poll-ms", reason: "partner-exchange: polls until stopped; the --once line runs" },
  { text: "hanse webhooks test-receiver", reason: "entitlements: needs the reader's own webhook receiver" },
  {
    text: "/api/v1/admin/sso",
    reason:
      "operators: needs the reader's identity provider (test/e2e/sso.test.ts runs single sign-on against a test double)",
  },
  {
    text: "hanse sso ",
    reason:
      "operators: needs the reader's identity provider (test/e2e/users-cli.test.ts runs hanse sso against a test double)",
  },
  {
    text: "/api/v1/auth/sso/",
    reason: "operators: redirects to the reader's identity provider, set up by the skipped line above",
  },
  {
    text: "node docs/audit/verify-export.mjs",
    reason: "operators: the auditor's script on a month's export (test/e2e/audit-seal.test.ts runs it)",
  },
  { text: "echo $?", reason: "entitlements: the exit code of the test-receiver run above" },
  {
    text: `printf '%s.%s.%s' "$id"`,
    reason: "entitlements: $id, $ts and $body are those of a webhook the reader's receiver got",
  },
];

/** Commands documented to answer something other than 2xx, or an empty list, with the reason. */
const expectedOutcome: { text: string; reason: string; status?: number; emptyList?: boolean }[] = [
  {
    text: "Idempotency-Key: create-acme-1",
    status: 409,
    reason: "getting-started: one of the two ways; after the CLI's, the slug is taken (409, as it says)",
  },
  {
    text: "transition-requests?status=failed",
    emptyList: true,
    reason: "workflows: the walk-through's requests succeed; the line shows the filter",
  },
  {
    text: "messageType=CONTRL&from=2026-11-26",
    emptyList: true,
    reason: "partner-exchange: no CONTRL on that day (the walk-through's upload has no error)",
  },
  {
    text: "$SUBSCRIPTION_ID/attempts",
    emptyList: true,
    reason: "entitlements: whether a delivery was attempted yet depends on the worker's timing",
  },
  {
    text: "documentNumber=PO4711&from=2026-11-24",
    emptyList: true,
    reason: "partner-exchange: the walk-through's order was not sent last Tuesday; the line shows the filter",
  },
  {
    text: "status=rejected&order=desc&limit=20",
    emptyList: true,
    reason:
      "partner-exchange: the walk-through's upload is processed; the lines show the filter and its next page",
  },
  {
    text: "--from 2026-11-24T00:00:00Z --to 2026-11-25",
    emptyList: true,
    reason: "partner-exchange: nothing was sent last Tuesday; the line shows the filter",
  },
  {
    text: "overdue=true&order=desc",
    emptyList: true,
    reason:
      "partner-exchange: the walk-through's deliveries are collected in time; the line shows the filter",
  },
  {
    text: "status=rejected,failed",
    emptyList: true,
    reason: "partner-exchange: the walk-through's upload is processed; the line shows the filter",
  },
];

/** The shell commands of a guide's sh/bash blocks (a command may span lines), in order. */
export function guideCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm)) {
    let pending = "";
    for (const line of (block[1] ?? "").split("\n")) {
      pending = pending ? `${pending}\n${line}` : line;
      if (!pending.trim() || /^\s*#/.test(pending)) {
        pending = "";
        continue;
      }
      // Complete when bash can parse it (quotes, continuations, here-documents, functions).
      // bash -n accepts a here-document cut before its delimiter (a warning): wait for the delimiter.
      const heredoc = /(?<!<)<<(?!<)-?\s*['"]?(\w+)['"]?/.exec(pending); // not a here-string (<<<)
      const open =
        heredoc !== null &&
        !new RegExp(`^\\s*${heredoc[1] ?? ""}$`, "m").test(pending.slice(heredoc.index + heredoc[0].length));
      if (!open && !pending.endsWith("\\") && spawnSync("bash", ["-n", "-c", pending]).status === 0) {
        commands.push(pending);
        pending = "";
      }
    }
    if (pending.trim()) commands.push(pending);
  }
  return commands;
}

interface Walk {
  dir: string;
  url: string;
  /** String fields of the answers so far, by name: what a placeholder `<name>` stands for. */
  captured: Record<string, string>;
}

/** The shell the guides' lines run in: state kept in files of `dir` between commands. */
const prelude = (dir: string) => `
exec </dev/null
cd ${JSON.stringify(dir)}
set -o pipefail
[ -f .state ] && source .state 2>/dev/null
curl() { command curl -w '%{stderr}\\n@@status %{http_code}\\n' "$@"; }
hanse() { printf '%s\\0' "$@" > .argv; echo client > .program; cat > .stdin; echo "@@hanse" >&2; }
hanse-server() { printf '%s\\0' "$@" > .argv; echo server > .program; cat > .stdin; echo "@@hanse" >&2; }
npx() { "$@"; }
`;
const saveState = `
{ declare -p $(compgen -v | grep -vxF -f .baseline) 2>/dev/null; declare -f | grep -v '^declare'; } > .state.next
declare -f curl hanse hanse-server npx >/dev/null
mv .state.next .state
`;

function bash(walk: Walk, command: string): Promise<{ out: string; err: string; code: number }> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-c", `${prelude(walk.dir)}\n${command}\n__code=$?\n${saveState}\nexit $__code`],
      { env: { PATH: process.env.PATH ?? "", HOME: walk.dir }, maxBuffer: 64 * 1024 * 1024 },
      (error, out, err) => {
        resolve({ out, err, code: error ? Number(error.code ?? 1) : 0 });
      },
    );
  });
}

/** A command that only sets up the shell (variables, functions, files), which the guides' commands use. */
const shellState =
  /^(export |unset |[A-Za-z_][A-Za-z0-9_]*=|[A-Za-z_][A-Za-z0-9_]*\(\)\s*\{|cat > [\w.-]+ <<)/;
const serviceCommand = /(^|[\s|(;])(curl|hanse|hanse-server|signed)\s/;

/** The guide's text, or of one section when the name carries `#<heading start>`. */
function guideText(guide: string): string {
  const [file = "", section] = guide.split("#");
  const markdown = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
  if (!section) return markdown;
  const start = markdown.indexOf(`\n## ${section}`);
  expect(start, guide).toBeGreaterThan(-1);
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

async function walkGuide(walk: Walk, guide: string): Promise<number> {
  const markdown = guideText(guide);
  const cliEnv: Record<string, string> = {};
  // `hanse` is the client package's CLI; `hanse-server` the server's local `edi` tools (the guides
  // never run `serve` through it: the test starts the server itself).
  const client = createCliRunner(() => cliEnv);
  const server = createCliRunner(
    () => cliEnv,
    (program) => {
      registerEdiCommands(program);
    },
  );
  let ran = 0;
  for (const documented of guideCommands(markdown)) {
    if (skip.some(({ text }) => documented.includes(text))) continue;
    const runnable = serviceCommand.test(documented) || shellState.test(documented.trim());
    expect(
      runnable,
      `neither curl, hanse nor shell state, and not in \`skip\`: ${guide}: ${documented}`,
    ).toBe(true);
    const unknown = [...documented.matchAll(/<([A-Za-z]+)>/g)]
      .map((m) => m[1] ?? "")
      .filter((name) => !(name in walk.captured));
    expect(unknown, `placeholders no earlier answer gave: ${guide}: ${documented}`).toEqual([]);
    const command = documented
      .replaceAll(documentedUrl, walk.url)
      .replace(/<([A-Za-z]+)>/g, (_, name: string) => walk.captured[name] ?? "");
    const shell = await bash(walk, command);
    const where = `${guide}: ${documented}\n${shell.out}\n${shell.err}`;
    const expected = expectedOutcome.find(({ text }) => documented.includes(text));
    expect(shell.code, where).toBe(0);
    for (const [, status] of shell.err.matchAll(/@@status (\d+)/g)) {
      if (expected?.status !== undefined) expect(Number(status), where).toBe(expected.status);
      else expect(Number(status), where).toBeGreaterThanOrEqual(200);
      if (expected?.status === undefined) expect(Number(status), where).toBeLessThan(300);
    }
    const body = shell.out.replace(/\n@@status.*$/s, "").trim();
    const json = /^\{.*\}$/m.exec(body)?.[0];
    if (json) {
      const value = JSON.parse(json) as { items?: unknown[] } & Record<string, unknown>;
      for (const [key, field] of Object.entries(value)) {
        if (typeof field === "string") walk.captured[key] = field;
      }
    }
    if (json && !expected?.emptyList) {
      const value = JSON.parse(json) as { items?: unknown[] };
      if (Array.isArray(value.items))
        expect(value.items.length, `an empty list: ${where}`).toBeGreaterThan(0);
    }
    if (shell.err.includes("@@hanse")) {
      // The CLI runs in this process, whose directory is the checkout: the shell's relative paths
      // (a file it made, or what --out writes) are the shell directory's.
      const argv = (await readFile(join(walk.dir, ".argv"), "utf8"))
        .split("\0")
        .slice(0, -1)
        .map((word, i, words) =>
          !isAbsolute(word) && (words[i - 1] === "--out" || existsSync(join(walk.dir, word)))
            ? join(walk.dir, word)
            : word,
        );
      const stdin = await readFile(join(walk.dir, ".stdin"), "utf8");
      const exported = await bash(walk, "env -0");
      for (const entry of exported.out.split("\0")) {
        const [name, ...value] = entry.split("=");
        if (name?.startsWith("HANSE_")) cliEnv[name] = value.join("=");
      }
      for (const name of Object.keys(cliEnv)) {
        if (!exported.out.includes(`${name}=`)) Reflect.deleteProperty(cliEnv, name);
      }
      cliEnv.HANSE_CLI_CONFIG = join(walk.dir, "credentials.json");
      const program = (await readFile(join(walk.dir, ".program"), "utf8")).trim();
      const run = await (program === "server" ? server : client).hanse(argv, { stdin });
      const answer = run.out.trim().startsWith("{") ? (JSON.parse(run.out) as object) : {};
      for (const [key, field] of Object.entries(answer)) {
        if (typeof field === "string") walk.captured[key] = field;
      }
      expect(
        run.exitCode,
        `${guide}: ${program === "server" ? "hanse-server" : "hanse"} ${argv.join(" ")}\n${run.out}\n${run.err}`,
      ).toBe(0);
    }
    ran++;
  }
  return ran;
}

/** A fresh server on a real port and a shell directory holding `data/bootstrap-token`. */
function walkThrough(name: string, guides: string[], options: Parameters<typeof createTestApp>[0] = {}) {
  describe(name, { timeout: 300_000 }, () => {
    let t: TestApp;
    const walk: Walk = { dir: "", url: "", captured: {} };
    beforeAll(async () => {
      t = await createTestApp(options);
      await t.worker.start();
      walk.url = await t.app.listen({ port: 0, host: "127.0.0.1" });
      walk.dir = await mkdtemp(join(tmpdir(), "hanse-guides-"));
      await mkdir(join(walk.dir, "data"));
      await writeFile(join(walk.dir, "data", "bootstrap-token"), bootstrapToken, { mode: 0o600 });
      await bash(walk, "compgen -v > .baseline; echo __code >> .baseline; rm -f .state");
    }, 180_000);
    afterAll(async () => {
      await t.close();
      await rm(walk.dir, { recursive: true, force: true });
    });
    for (const guide of guides) {
      it(`${guide}: every curl and hanse command succeeds in order`, async () => {
        expect(await walkGuide(walk, guide)).toBeGreaterThan(2);
      });
    }
  });
}

walkThrough("README walk-through", ["README.md#From `git clone`"]);
// One terminal through the guides, as they refer to each other: getting-started's tenant and
// ADMIN_TOKEN are the later guides' starting point.
// Partner exchange in its order of events: the operator's look-up (1a) needs an upload and a
// delivery, which sections 2 and 3 make.
walkThrough("guides in one shell", [
  "docs/getting-started.md",
  "docs/workflows.md",
  "docs/console.md",
  "docs/partner-exchange.md#1. Administration",
  "docs/partner-exchange.md#2. Upload",
  "docs/partner-exchange.md#3. The worker loop",
  "docs/partner-exchange.md#1a. Operator",
  "docs/partner-exchange.md#4. The worker loop",
]);
// Users and invitations as getting-started's tenant owner (ADMIN_TOKEN).
// Offboarding's webhook receiver, hooks.example.com, resolves to a public address (example.com's).
// Operator notifications' receiver, ops.example.com, too.
walkThrough(
  "operators",
  ["docs/getting-started.md", "docs/operators.md", "docs/partner-exchange.md#7. Notifications"],
  {
    lookupHost: (host) =>
      host.endsWith(".example.com")
        ? Promise.resolve([{ address: "93.184.215.14", family: 4 }])
        : Promise.reject(new Error(`${host} does not resolve in the test`)),
  },
);
// Entitlements as the system administrator (signing keys) and a tenant administrator of
// getting-started's tenant: HANSE_TOKEN is still the bootstrap token here (workflows unsets it).
// The guide's webhook receiver, sync.example.com, resolves to a public address (example.com's) here
// as it would for the reader: the test machine may have no DNS.
walkThrough("entitlements", ["docs/getting-started.md", "docs/entitlements.md"], {
  lookupHost: (host) =>
    host.endsWith(".example.com")
      ? Promise.resolve([{ address: "93.184.215.14", family: 4 }])
      : Promise.reject(new Error(`${host} does not resolve in the test`)),
});
