import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { makeDirectory } from "@hanse/client";
import {
  buildContrl,
  directoryResolver,
  formatIssue,
  getDirectory,
  importDirectory,
  inspectInterchange,
  isBuiltInDirectory,
  isDirectoryResolver,
  isSyntaxIdentifier,
  loadDirectory,
  parseInterchange,
  serializeInterchange,
  validateInterchange,
  type CompactDirectory,
  type Directory,
  type DirectoryResolver,
  type MessageEnvelope,
  type MessageIdentifier,
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

/** A directory file `import-directory` wrote. */
function readDirectoryFile(cmd: Command, path: string): Directory {
  try {
    const compact = JSON.parse(readFileSync(path, "utf8")) as { format?: unknown };
    if (compact.format !== "hanse-edifact-directory/1")
      throw new Error("not a directory file import-directory wrote");
    return loadDirectory(compact as CompactDirectory);
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    return fail(cmd, `Cannot load directory ${path}: ${reason}`, EDI_EXIT.unreadable, "edi.directory");
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
  return readDirectoryFile(cmd, id);
}

interface DirectoryOptions {
  readonly directory?: string;
  readonly directories?: string;
}

/**
 * `--directory` judges every message by one directory; without it each message gets the
 * directory its UNH names: a built-in one, one of the `--directories` folder (what
 * import-directory wrote, preferred over a built-in of the same release) or, for CONTRL,
 * its service message.
 */
function directoryChoice(cmd: Command, opts: DirectoryOptions): Directory | DirectoryResolver {
  if (opts.directory !== undefined) return directoryOption(cmd, opts.directory);
  if (opts.directories === undefined) return directoryResolver();
  const folder = opts.directories;
  let names: string[];
  try {
    names = readdirSync(folder).filter((n) => n.toLowerCase().endsWith(".json"));
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? "read error";
    return fail(
      cmd,
      `Cannot read directories folder ${folder}: ${reason}`,
      EDI_EXIT.unreadable,
      "edi.directory",
    );
  }
  return directoryResolver(names.sort().map((n) => readDirectoryFile(cmd, join(folder, n))));
}

/** The directory a message is judged by, undefined when there is none at hand. */
function directoryOf(choice: Directory | DirectoryResolver, id: MessageIdentifier): Directory | undefined {
  return isDirectoryResolver(choice) ? choice.forMessage(id) : choice;
}

const DIRECTORY_HELP =
  "judge every message by this directory: D96A, D25A or a .json file import-directory wrote (default: the directory each message names in its UNH)";
const DIRECTORIES_HELP =
  "folder of .json files import-directory wrote, used for the messages that name their release";

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
    .option("--directory <id>", DIRECTORY_HELP)
    .option("--directories <folder>", DIRECTORIES_HELP)
    .action(function (this: Command, file: string, opts: DirectoryOptions) {
      const directory = directoryChoice(this, opts);
      const parsed = parseInterchange(readInput(this, file));
      const report = validateInterchange(parsed, { directory });
      const header = parsed.interchange.header;
      print(
        this,
        `${file}: ${header ? `interchange ${header.controlRef} from ${header.sender.id} to ${header.recipient.id}, syntax ${header.syntax.identifier}:${header.syntax.version}` : "no interchange header"}, ${parsed.interchange.messages.length} message(s), ${isDirectoryResolver(directory) ? "directory of each message from its UNH" : `directory ${directory.id}`}`,
      );
      for (const m of report.messages) {
        const id = (parsed.interchange.messages[m.index] as MessageEnvelope).identifier;
        const judgedBy = directoryOf(directory, id)?.id;
        // A message without issues of its own is rejected with its interchange (or group): say so.
        const verdict = m.accepted
          ? "accepted"
          : m.issues.length > 0
            ? `rejected (${String(m.issues.length)} issue(s) of its own)`
            : report.interchangeAccepted
              ? "rejected with its group"
              : "rejected with the interchange";
        const by = judgedBy === undefined ? "no directory at hand" : `directory ${judgedBy}`;
        print(this, `  message ${m.ref} (${m.type} ${id.version}:${id.release}, ${by}): ${verdict}`);
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
    .option("--directory <id>", DIRECTORY_HELP)
    .option("--directories <folder>", DIRECTORIES_HELP)
    .option("--syntax-version <n>", "3 (CONTRL 2:2) or 4 (CONTRL 4:1); default: that of the interchange")
    .option("--control-ref <ref>", "UNB control reference of the CONTRL", "1")
    .action(function (
      this: Command,
      file: string,
      opts: DirectoryOptions & { syntaxVersion?: string; controlRef: string },
    ) {
      if (opts.syntaxVersion !== undefined && opts.syntaxVersion !== "3" && opts.syntaxVersion !== "4")
        return fail(this, "--syntax-version is 3 or 4", EDI_EXIT.unreadable, "edi.usage");
      const directory = directoryChoice(this, opts);
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
    .option("--directory <id>", DIRECTORY_HELP)
    .option("--directories <folder>", DIRECTORIES_HELP)
    .action(function (this: Command, file: string, opts: DirectoryOptions) {
      const directory = directoryChoice(this, opts);
      const parsed = parseInterchange(readInput(this, file));
      const tree = inspectInterchange(parsed, { directory });
      for (const s of tree.segments) {
        const prefix = s.group === null ? "" : `${s.group} `;
        print(this, `${String(s.position).padStart(5)} ${"  ".repeat(s.depth)}${prefix}${s.text}`);
      }
      for (const issue of parsed.issues) print(this, `issue: ${formatIssue(issue)}`);
      for (const note of tree.notes) print(this, `note: ${note}`);
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
