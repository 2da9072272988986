import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { makeDirectory } from "../sdk/index.js";
import {
  buildContrl,
  formatIssue,
  getDirectory,
  importDirectory,
  isBuiltInDirectory,
  isSyntaxIdentifier,
  loadDirectory,
  parseInterchange,
  serializeInterchange,
  StructureWalker,
  tagOf,
  validateInterchange,
  type CompactDirectory,
  type Directory,
  type ParseResult,
} from "../edifact/index.js";

/** Exit codes of `hanse edi validate`. */
export const EDI_EXIT = { valid: 0, issues: 1, unreadable: 2 } as const;

function root(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

/** Output goes through commander's configured writers, so tests can capture it. */
function print(cmd: Command, text: string): void {
  const line = text.endsWith("\n") ? text : `${text}\n`;
  const output = root(cmd).configureOutput();
  if (output.writeOut) output.writeOut(line);
  else process.stdout.write(line);
}

function fail(cmd: Command, message: string, exitCode: number, code: string): never {
  return root(cmd).error(message, { exitCode, code });
}

function readInput(cmd: Command, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    return fail(
      cmd,
      `Cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? "read error"}`,
      EDI_EXIT.unreadable,
      "edi.unreadable",
    );
  }
}

/** A built-in directory (D96A, D25A) or the path of one `import-directory` wrote (`….json`). */
function directoryOption(cmd: Command, id: string): Directory {
  const upper = id.toUpperCase();
  if (isBuiltInDirectory(upper)) return getDirectory(upper);
  if (!id.toLowerCase().endsWith(".json"))
    return fail(
      cmd,
      `Unknown directory ${id} (D96A, D25A or the .json file import-directory wrote)`,
      EDI_EXIT.unreadable,
      "edi.directory",
    );
  try {
    return loadDirectory(JSON.parse(readFileSync(id, "utf8")) as CompactDirectory);
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? "not a directory file import-directory wrote";
    return fail(cmd, `Cannot load directory ${id}: ${reason}`, EDI_EXIT.unreadable, "edi.directory");
  }
}

function decodeSegment(parsed: ParseResult, s: number): string {
  const t = parsed.interchange.tokens;
  const end = Math.min((t.segEnd[s] as number) + 1, t.bytes.length);
  return Buffer.from(t.bytes.subarray(t.segStart[s] as number, end)).toString("latin1");
}

/** Registers `hanse edi validate|contrl|inspect|import-directory` on the program. */
export function registerEdiCommands(program: Command): void {
  const edi = program
    .command("edi")
    .description("UN/EDIFACT tools: validate, acknowledge, inspect, import directories");

  edi
    .command("validate")
    .description(
      "Validate one interchange and list its issues with their positions (exit 0 valid, 1 issues, 2 unreadable)",
    )
    .argument("<file>", "EDIFACT interchange")
    .option("--directory <id>", "directory: D96A, D25A or a .json file import-directory wrote", "D96A")
    .action(function (this: Command, file: string, opts: { directory: string }) {
      const directory = directoryOption(this, opts.directory);
      const parsed = parseInterchange(readInput(this, file));
      const report = validateInterchange(parsed, { directory });
      const header = parsed.interchange.header;
      print(
        this,
        `${file}: ${header ? `interchange ${header.controlRef} from ${header.sender.id} to ${header.recipient.id}, syntax ${header.syntax.identifier}:${header.syntax.version}` : "no interchange header"}, ${parsed.interchange.messages.length} message(s), directory ${directory.id}`,
      );
      for (const m of report.messages) {
        // A message without issues of its own is rejected with its interchange (or group): say so.
        const verdict = m.accepted
          ? "accepted"
          : m.issues.length > 0
            ? `rejected (${String(m.issues.length)} issue(s) of its own)`
            : report.interchangeAccepted
              ? "rejected with its group"
              : "rejected with the interchange";
        print(this, `  message ${m.ref} (${m.type}): ${verdict}`);
      }
      for (const issue of report.issues) print(this, `  ${formatIssue(issue)}`);
      if (report.issues.length > 0) {
        fail(this, `${report.issues.length} issue(s) found`, EDI_EXIT.issues, "edi.issues");
      }
      print(this, "  no issues");
    });

  edi
    .command("contrl")
    .description("Print the CONTRL we would send for an interchange")
    .argument("<file>", "EDIFACT interchange")
    .option("--directory <id>", "D96A, D25A or a .json file import-directory wrote", "D96A")
    .option("--syntax-version <n>", "3 (CONTRL 2:2) or 4 (CONTRL 4:1); default: that of the interchange")
    .option("--control-ref <ref>", "UNB control reference of the CONTRL", "1")
    .action(function (
      this: Command,
      file: string,
      opts: { directory: string; syntaxVersion?: string; controlRef: string },
    ) {
      if (opts.syntaxVersion !== undefined && opts.syntaxVersion !== "3" && opts.syntaxVersion !== "4")
        return fail(this, "--syntax-version is 3 or 4", EDI_EXIT.unreadable, "edi.usage");
      const directory = directoryOption(this, opts.directory);
      const parsed = parseInterchange(readInput(this, file));
      const header = parsed.interchange.header;
      if (!header)
        return fail(
          this,
          `${file} has no UNB: there is no interchange to acknowledge`,
          EDI_EXIT.issues,
          "edi.no-unb",
        );
      const report = validateInterchange(parsed, { directory });
      const version =
        opts.syntaxVersion === "4" || (opts.syntaxVersion === undefined && header.syntax.version === 4)
          ? 4
          : 3;
      const id = header.syntax.identifier;
      const contrl = buildContrl(parsed.interchange, report, {
        syntaxIdentifier: isSyntaxIdentifier(id) ? id : "UNOC",
        syntaxVersion: version,
        sender: header.recipient,
        recipient: header.sender,
        controlRef: opts.controlRef,
        messageRef: "1",
        preparedAt: new Date(),
      });
      print(this, Buffer.from(serializeInterchange(contrl, { segmentSuffix: "\n" })).toString("latin1"));
    });

  edi
    .command("inspect")
    .description("Print the segment tree of an interchange with segment group names")
    .argument("<file>", "EDIFACT interchange")
    .option("--directory <id>", "D96A, D25A or a .json file import-directory wrote", "D96A")
    .action(function (this: Command, file: string, opts: { directory: string }) {
      const directory = directoryOption(this, opts.directory);
      const parsed = parseInterchange(readInput(this, file));
      const ic = parsed.interchange;
      const inMessage = new Map<number, StructureWalker | undefined>();
      for (const m of ic.messages) {
        const def = directory.messages.get(m.identifier.type);
        for (let s = m.firstSegment; s <= m.lastSegment; s++)
          inMessage.set(s, def ? new StructureWalker(def) : undefined);
      }
      let walker: StructureWalker | undefined;
      for (let s = 0; s < ic.segmentCount; s++) {
        const tag = tagOf(ic.tokens, s);
        if (tag === "UNH") walker = inMessage.get(s);
        let prefix = "";
        let depth = 0;
        if (inMessage.has(s)) {
          depth = 2;
          const matched = walker?.accept(tag, s);
          const path = matched ? (walker?.path() ?? []) : ["?"];
          depth += path.length;
          prefix = path.length > 0 ? `${path[path.length - 1] ?? ""} ` : "";
        } else if (tag === "UNG" || tag === "UNE") depth = 1;
        print(this, `${String(s + 1).padStart(5)} ${"  ".repeat(depth)}${prefix}${decodeSegment(parsed, s)}`);
      }
      for (const issue of parsed.issues) print(this, `issue: ${formatIssue(issue)}`);
    });

  edi
    .command("import-directory")
    .description("Import an official UNTDID release zip into the engine's compact directory format")
    .argument("<zip>", "release zip, e.g. d18a.zip")
    .requiredOption("--out <dir>", "folder to write <release>.json into")
    .option("--messages <types>", "comma-separated message types", "ORDERS,ORDRSP,APERAK")
    .action(async function (this: Command, zip: string, opts: { out: string; messages: string }) {
      const bytes = readInput(this, zip);
      let compact;
      try {
        compact = importDirectory(bytes, {
          messages: opts.messages.split(",").map((m) => m.trim().toUpperCase()),
        });
      } catch (e) {
        return fail(this, `${zip}: ${(e as Error).message}`, EDI_EXIT.unreadable, "edi.import");
      }
      await makeDirectory(opts.out);
      const target = join(opts.out, `${compact.id.toLowerCase()}.json`);
      writeFileSync(target, `${JSON.stringify(compact)}\n`);
      print(
        this,
        `${target}: ${compact.id}, messages ${Object.keys(compact.messages).join(", ")}, ${Object.keys(compact.segments).length} segments, ${Object.keys(compact.codes).length} code lists`,
      );
    });
}
