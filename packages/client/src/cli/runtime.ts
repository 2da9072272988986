import { STATUS_CODES } from "node:http";
import { Command } from "commander";
import { createClient, type HanseClient } from "../sdk/client.js";
import {
  EntrypointMissingError,
  HanseApiError,
  HanseNetworkError,
  HanseProtocolError,
  LocationMismatchError,
} from "../sdk/errors.js";
import { LocalStorageError, PartnerApiError, PartnerNetworkError } from "../sdk/partner.js";
import type { CliIo } from "./cli-io.js";
import { credentialsPath, readCredentials } from "./credentials.js";
import { createProgressLine, quietFor, type ProgressLine, type ProgressOptions } from "./progress.js";

/**
 * Exit codes of every command: 0 ok; 1 an error (usage, API, network, not available); 2 the
 * command ran but what it checked or waited for failed (provisioning failed, a grant refused, a
 * receiver case failed, a transition failed, entries not acknowledged).
 */
/** HANSE_TOKEN from the environment; set but empty (`HANSE_TOKEN= hanse …`) counts as not set. */
export const envToken = (env: NodeJS.ProcessEnv): string | undefined =>
  env.HANSE_TOKEN === "" ? undefined : env.HANSE_TOKEN;

export const CLI_EXIT = { ok: 0, error: 1, provisioningFailed: 2, checkFailed: 2 } as const;

/** An error the CLI reports with a chosen exit code. */
export class CliError extends Error {
  override readonly name = "CliError";
  readonly exitCode: number;
  constructor(message: string, exitCode: number = CLI_EXIT.error) {
    super(message);
    this.exitCode = exitCode;
  }
}

export interface Runtime {
  io: CliIo;
  /** Writes one block of output (a newline is added). */
  print(text: string): void;
  printJson(value: unknown): void;
  /** `value` as one JSON document with `--json`, else the text `render` gives. */
  emit(json: boolean | undefined, value: unknown, render: () => string): void;
  /** A status line on stderr; nothing but log lines under `--quiet`. */
  progress(options?: Omit<ProgressOptions, "quiet">): ProgressLine;
  /** Whether the running command was given `--quiet`. */
  readonly quiet: boolean;
  /** A client with the URL and token of env (HANSE_URL, HANSE_TOKEN) or the credentials file. */
  client(options?: { requireToken?: boolean }): Promise<HanseClient>;
  /** A new subcommand whose help and usage errors go to the CLI's streams. */
  command(parent: Command, name: string): Command;
  /** Wraps an action: errors become a message on stderr and an exit code. */
  action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void>;
}

export function createRuntime(io: CliIo): Runtime {
  const write = (stream: NodeJS.WritableStream, text: string) => {
    stream.write(text.endsWith("\n") ? text : `${text}\n`);
  };
  let quiet = false;
  return {
    io,
    get quiet() {
      return quiet;
    },
    progress: (options = {}) => createProgressLine(io.stderr, { ...options, quiet }),
    print: (text) => {
      write(io.stdout, text);
    },
    printJson: (value) => {
      write(io.stdout, JSON.stringify(value, null, 2));
    },
    emit: (json, value, render) => {
      write(io.stdout, json ? JSON.stringify(value, null, 2) : render());
    },

    async client(options = {}) {
      // Both in the environment: the stored file is not needed (and may be unreadable).
      const fromEnv = Boolean(io.env.HANSE_URL) && envToken(io.env) !== undefined;
      const stored = fromEnv ? undefined : await readCredentials(credentialsPath(io.env));
      const url = io.env.HANSE_URL ?? stored?.url;
      if (url === undefined || url === "") {
        throw new CliError("no server URL: run `hanse login --url URL …` or set HANSE_URL");
      }
      // The stored token is only ever sent to the server it was issued by.
      const token = envToken(io.env) ?? (stored && sameOrigin(stored.url, url) ? stored.token : undefined);
      if (options.requireToken !== false && (token === undefined || token === "")) {
        throw new CliError(`not logged in to ${url}: run \`hanse login\` or set HANSE_TOKEN`);
      }
      try {
        return createClient({ baseUrl: url, token: token === "" ? undefined : token });
      } catch {
        throw new CliError(`invalid server URL ${url}`);
      }
    },

    command(parent, name) {
      return parent.command(name).configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
      });
    },

    action(fn) {
      return async (...args) => {
        const command = args.at(-1);
        let failure: { message: string; exitCode: number } | undefined;
        if (command instanceof Command) quiet = quietFor(command);
        try {
          await fn(...args);
        } catch (error) {
          failure = describeFailure(error, wantsJson(command), io.env.HANSE_URL);
        }
        if (failure && command instanceof Command) {
          command.error(failure.message, { exitCode: failure.exitCode, code: "hanse.client" });
        } else if (failure) {
          throw new CliError(failure.message, failure.exitCode);
        }
      };
    },
  };
}

const sameOrigin = (a: string, b: string): boolean => {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
};

const wantsJson = (command: unknown): boolean =>
  command instanceof Command && (command.opts<{ json?: boolean }>().json ?? false);

/** Status, code and correlation id; never a token (the SDK's errors carry none). */
export function describeFailure(
  error: unknown,
  json: boolean,
  serverUrl = "",
): { message: string; exitCode: number } {
  const exitCode = error instanceof CliError ? error.exitCode : CLI_EXIT.error;
  if (json) return { message: JSON.stringify({ error: failureFields(error) }), exitCode };
  if (error instanceof HanseApiError) {
    const lines = [
      problemLine(error.status, error.title, error.code, error.detail),
      `  request: ${error.method} ${error.path}`,
      `  correlation id: ${error.correlationId ?? "-"}`,
      ...(error.errors ?? []).map((item) => `  ${item.pointer || "/"}: ${item.message}`),
    ];
    if (error.status === 401 && error.method === "POST" && error.path.startsWith("/api/v1/auth/sessions"))
      lines.push("  hint: check the tenant slug, e-mail and password");
    else if (error.status === 401 && error.code.startsWith("ERR_SERVICE_AUTH"))
      lines.push(
        "  hint: check the service credential id and secret (HANSE_SERVICE_CREDENTIAL_ID, HANSE_SERVICE_SECRET) and this machine's clock",
      );
    else if (error.status === 401)
      lines.push("  hint: the token is missing, expired or revoked; run `hanse login`");
    return { message: lines.join("\n"), exitCode };
  }
  if (error instanceof EntrypointMissingError) {
    return {
      message:
        `error: not available: ${error.message}.\n` +
        "  The server did not publish it for this session (a definitive denial); no other path was tried.",
      exitCode,
    };
  }
  if (error instanceof LocationMismatchError) {
    return { message: `error: Location verification failed: ${error.message}`, exitCode };
  }
  if (error instanceof HanseNetworkError) {
    return {
      message: `error: ${error.message}\n  correlation id: ${error.correlationId}`,
      exitCode,
    };
  }
  if (error instanceof PartnerApiError) {
    const line = problemLine(error.status, "", error.code, error.detail ?? "The server gave no details.");
    return { message: `${line}\n  correlation id: ${error.correlationId}`, exitCode };
  }
  if (error instanceof PartnerNetworkError) {
    return {
      message: `error: cannot reach ${serverOrigin(serverUrl)}${networkCause(error)}\n  correlation id: ${error.correlationId}`,
      exitCode,
    };
  }
  if (error instanceof LocalStorageError) {
    return { message: `error: local storage failure: ${error.message}`, exitCode };
  }
  if (error instanceof HanseProtocolError) return { message: `error: protocol: ${error.message}`, exitCode };
  return { message: `error: ${error instanceof Error ? error.message : String(error)}`, exitCode };
}

/** `error: 404 Not Found (ERR_NOT_FOUND): No such tenant.` */
const problemLine = (status: number, title: string, code: string, detail: string): string =>
  `error: ${status} ${title || STATUS_CODES[status] || "error"} (${code}): ${detail}`;

/** The server as its origin only (never a user or password in it). */
function serverOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "the server";
  }
}

/** The cause of a network failure by its system code (ECONNREFUSED, ENOTFOUND…), never its text. */
function networkCause(error: Error): string {
  let cause: unknown = error.cause;
  while (cause instanceof Error && !(cause as NodeJS.ErrnoException).code && cause.cause) cause = cause.cause;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? ` (${code})` : "";
}

function failureFields(error: unknown): Record<string, unknown> {
  if (error instanceof PartnerApiError) {
    return {
      kind: "api",
      status: error.status,
      code: error.code,
      detail: error.detail ?? null,
      correlationId: error.correlationId,
    };
  }
  if (error instanceof PartnerNetworkError) {
    return { kind: "network", message: error.message, correlationId: error.correlationId };
  }
  if (error instanceof HanseApiError) {
    return {
      kind: "api",
      status: error.status,
      code: error.code,
      detail: error.detail,
      correlationId: error.correlationId ?? null,
      ...(error.errors ? { errors: error.errors } : {}),
    };
  }
  if (error instanceof EntrypointMissingError) {
    return {
      kind: "not-available",
      entryId: error.entryId,
      actionId: error.actionId ?? null,
      reason: error.reason,
      message: error.message,
    };
  }
  if (error instanceof HanseNetworkError) {
    return { kind: "network", message: error.message, correlationId: error.correlationId };
  }
  return {
    kind: error instanceof LocationMismatchError ? "location" : "client",
    message: error instanceof Error ? error.message : String(error),
  };
}
