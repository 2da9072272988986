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

export type { CliIo } from "./cli-io.js";
export { CLI_EXIT } from "./runtime.js";

/**
 * Client commands of `hanse`: login, logout, whoami, discover, tenants, all through the SDK
 * (main.ts registers the local `edi` tools separately). Exit codes: 0 ok, 1 API or usage error, 2 provisioning failed.
 */
export function registerCliCommands(program: Command, io: CliIo): void {
  const rt = createRuntime(io);
  registerSessionCommands(program, rt);
  registerDiscoverCommand(program, rt);
  registerTenantsCommands(program, rt);
  registerEntitlementsCommands(program, rt);
  registerWebhooksCommands(program, rt);
  registerWorkflowCommands(program, io);
  registerPartnerCommands(program, io);
}
