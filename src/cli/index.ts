import type { Command } from "commander";

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Client commands of `hanse` (filled in by the CLI work). */
export function registerCliCommands(_program: Command, _io: CliIo): void {
  // Intentionally empty until the SDK-based commands land.
}
