import { createServer } from "node:net";
import { Readable, Writable } from "node:stream";
import { Command, CommanderError } from "commander";
import { expect } from "vitest";
import type { CliIo } from "../../packages/client/src/cli/cli-io.js";
import { registerCliCommands } from "../../packages/client/src/cli/index.js";

/** A stream that keeps what was written (a command's stdout or stderr); `isTTY` plays a terminal. */
export class Capture extends Writable {
  text = "";
  constructor(readonly isTTY = false) {
    super();
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString("utf8");
    callback();
  }
}

export interface CliRun {
  out: string;
  err: string;
  exitCode: number;
}

export interface CliRunOptions {
  env?: Record<string, string>;
  /** What is piped in; a stream plays a terminal (test/e2e/users-cli.test.ts). */
  stdin?: string | NodeJS.ReadableStream;
  signal?: AbortSignal;
  stdout?: Capture;
  stderr?: Capture;
}

export type Hanse = (args: string[], options?: CliRunOptions) => Promise<CliRun>;

/**
 * Runs `hanse …` in-process, as main.ts would, with captured streams; `env()` is read at each run
 * (tests set the server URL and token once they exist). Every run is kept in `runs`.
 */
export function createCliRunner(
  env: () => Record<string, string | undefined>,
  register: (program: Command, io: CliIo) => void = registerCliCommands,
): { hanse: Hanse; runs: CliRun[] } {
  const runs: CliRun[] = [];
  const hanse: Hanse = async (args, options = {}) => {
    const stdout = options.stdout ?? new Capture();
    const stderr = options.stderr ?? new Capture();
    const program = new Command("hanse").exitOverride();
    register(program, {
      env: { ...env(), ...options.env },
      stdout,
      stderr,
      stdin:
        options.stdin === undefined || typeof options.stdin === "string"
          ? Readable.from([options.stdin ?? ""])
          : options.stdin,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    let exitCode = 0;
    try {
      await program.parseAsync(args, { from: "user" });
    } catch (error) {
      if (!(error instanceof CommanderError)) throw error;
      exitCode = error.exitCode;
    }
    const run = { out: stdout.text, err: stderr.text, exitCode };
    runs.push(run);
    return run;
  };
  return { hanse, runs };
}

/** A TCP port that was free a moment ago (for a server whose URL must be known before it listens). */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => {
        resolve(port);
      });
    });
  });

export interface CliBinding {
  id: string;
  appId: string;
  credentialId: string;
  secret: string;
  audience: string;
}

/** An app with capabilities read and write and a service binding requiring read, made through the CLI. */
export async function createAppWithBinding(hanse: Hanse, app: string): Promise<CliBinding> {
  const created = await hanse([
    "entitlements",
    "apps",
    "create",
    "--id",
    app,
    "--name",
    "CLI app",
    "--capabilities",
    "read,write",
  ]);
  expect(created.exitCode, created.err).toBe(0);
  const binding = await hanse([
    "bindings",
    "create",
    "--app",
    app,
    "--audience",
    `aud-${app}`,
    "--require",
    "read",
    "--json",
  ]);
  expect(binding.exitCode, binding.err).toBe(0);
  return JSON.parse(binding.out) as CliBinding;
}

/** Sets an actor's entitlement (active, plan pro, capability read) through the CLI. */
export async function setEntitlement(hanse: Hanse, app: string, actor: string, ...extra: string[]) {
  const run = await hanse([
    "entitlements",
    "set",
    app,
    actor,
    "--status",
    "active",
    "--plan",
    "pro",
    "--capabilities",
    "read",
    ...extra,
  ]);
  expect(run.exitCode, run.err).toBe(0);
}
