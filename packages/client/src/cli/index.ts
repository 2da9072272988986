import type { Command } from "commander";
import type { CliIo } from "./cli-io.js";
import { registerDiscoverCommand } from "./discover.command.js";
import { registerEntitlementsCommands } from "./entitlements.command.js";
import { createRuntime } from "./runtime.js";
import { registerSessionCommands } from "./session.command.js";
import { registerTenantsCommands } from "./tenants.command.js";
import { registerWebhooksCommands } from "./webhooks.command.js";
import { registerWorkflowCommands } from "./workflow.command.js";
import { registerPartnerCommands } from "./partner.command.js";
import { registerPartnersCommands } from "./partners.command.js";
import { registerKeysCommands } from "./keys.command.js";
import { registerOperationsCommands } from "./operations.command.js";
import { registerAuditCommands } from "./audit.command.js";
import { registerCompletionCommand } from "./completion.command.js";
import { registerUsersCommands } from "./users.command.js";
import { registerSsoCommands } from "./sso.command.js";
import { configureProgram } from "./program.js";

export type { CliIo } from "./cli-io.js";
export { CLI_EXIT } from "./runtime.js";
export { describeError, endQuietlyOnClosedPipe } from "./describe-error.js";

/**
 * Client commands of `hanse`, all through the SDK and the session's published entrypoints, with
 * `--version` and the global `--quiet`. Exit codes (CLI_EXIT): 0 ok, 1 an error, 2 what the
 * command checked or waited for failed. bin/hanse.js registers only the module of the command it
 * runs (command-table.ts); this registers every one (completion scripts, tests).
 */
export function registerCliCommands(program: Command, io: CliIo): void {
  configureProgram(program, io);
  registerCommands(program, io);
}

/** Every command module's commands, in the order of `hanse --help`. */
export function registerCommands(program: Command, io: CliIo): void {
  const rt = createRuntime(io);
  registerSessionCommands(program, rt);
  registerUsersCommands(program, rt);
  registerSsoCommands(program, rt);
  registerDiscoverCommand(program, rt);
  registerTenantsCommands(program, rt);
  registerEntitlementsCommands(program, rt);
  registerWebhooksCommands(program, rt);
  registerWorkflowCommands(program, io);
  registerPartnersCommands(program, rt);
  registerKeysCommands(program, rt);
  registerOperationsCommands(program, rt);
  registerAuditCommands(program, rt);
  registerPartnerCommands(program, io);
  registerCompletionCommand(program, rt);
}
