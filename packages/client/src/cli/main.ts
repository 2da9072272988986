import { Command } from "commander";
import type { CliIo } from "./cli-io.js";
import { topLevelCommands } from "./command-table.js";
import { describeError, endQuietlyOnClosedPipe } from "./describe-error.js";
import { configureProgram } from "./program.js";

/**
 * `hanse`: the command-line client (bin/hanse.js), the only place that reads process.env and
 * exits. Only the module of the command being run is loaded; `--help` and `--version` load none
 * (docs/benchmarks.md "CLI start").
 */
endQuietlyOnClosedPipe();
const io: CliIo = { env: process.env, stdout: process.stdout, stderr: process.stderr };
const program = new Command("hanse").description("Hanse command-line client");
configureProgram(program, io);

const words = process.argv.slice(2).filter((word) => !word.startsWith("-"));
// `hanse help <command>` is `hanse <command> --help`.
const named = words[0] === "help" ? words[1] : words[0];
const entry = topLevelCommands.find((command) => command.name === named);
if (entry) (await entry.load())(program, io);
else {
  // --help, --version or an unknown command: the list of commands, each module unloaded.
  for (const command of topLevelCommands) program.command(command.name).description(command.description);
}

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`${describeError(error)}\n`);
  process.exit(1);
});
