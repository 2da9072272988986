import { Command } from "commander";
// The client's error wording without its command modules (a server start loads none of them).
import { describeError, endQuietlyOnClosedPipe } from "@hanse/client/cli/errors";
import { registerServerCommands } from "./commands/index.js";

// A reader that stops early (`hanse-server edi inspect FILE | head`) ends a local command quietly;
// the server keeps serving whatever happens to its log stream.
if (process.argv[2] !== "serve") endQuietlyOnClosedPipe();

/**
 * `hanse-server`: the server's own commands (serve, secret-key reseal, the local EDIFACT tools).
 * The API client is the `hanse` command of the client package (packages/client).
 */
const program = new Command("hanse-server");
registerServerCommands(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`${describeError(error)}\n`);
  process.exit(1);
});
