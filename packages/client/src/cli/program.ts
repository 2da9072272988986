import type { Command } from "commander";
import type { CliIo } from "./cli-io.js";
import { clientVersion } from "./version.js";

/** What every `hanse` has before its commands: output through `io`, `--version`, the global `--quiet`. */
export function configureProgram(program: Command, io: CliIo): void {
  program
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .version(clientVersion, "-V, --version", "print the version")
    .option("-q, --quiet", "no progress lines on stderr (long work: waits, sync, feeds)");
}
