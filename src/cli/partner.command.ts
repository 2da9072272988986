import { InvalidArgumentError, type Command } from "commander";
import {
  LocalStorageError,
  PartnerApiError,
  PartnerNetworkError,
  createPartnerClient,
  type RequestFn,
} from "../sdk/partner.js";
import { syncMailbox, uploadFile } from "../sdk/partner-sync.js";
import type { CliIo } from "./cli-io.js";
import { createProgressLine } from "./progress.js";

/** A poll interval: whole milliseconds, at least 100 (a smaller one would poll in a busy loop). */
const parsePollMs = (value: string): number => {
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < 100) {
    throw new InvalidArgumentError("a whole number of milliseconds, at least 100");
  }
  return Number(value);
};

/**
 * `hanse partner upload FILE` and `hanse partner sync --connection ID --out DIR [--once]`: the
 * reference partner client. The API key comes from HANSE_PARTNER_KEY (never from argv), the
 * server from HANSE_URL. Logs carry only status, code, correlation, ids and time.
 */
export function registerPartnerCommands(
  program: Command,
  io: CliIo,
  options: { request?: RequestFn } = {},
): void {
  const partner = program
    .command("partner")
    .description("partner exchange: upload interchanges, collect the mailbox")
    .configureOutput({ writeOut: (t) => io.stdout.write(t), writeErr: (t) => io.stderr.write(t) });

  const clientFor = (connectionId: string) => {
    const baseUrl = io.env.HANSE_URL;
    const apiKey = io.env.HANSE_PARTNER_KEY;
    if (!baseUrl) throw new Error("set HANSE_URL to the server URL");
    if (!apiKey) throw new Error("set HANSE_PARTNER_KEY to the partner API key (<apiKeyId>:<secret>)");
    return createPartnerClient({
      baseUrl,
      apiKey,
      connectionId,
      ...(options.request ? { request: options.request } : {}),
    });
  };
  /** The server named by HANSE_URL, as its origin only (never a user or password in it). */
  const serverOrigin = (): string => {
    try {
      return new URL(io.env.HANSE_URL ?? "").origin;
    } catch {
      return "the server";
    }
  };
  /** The cause of a network failure by its system code (ECONNREFUSED, ENOTFOUND…), never its text. */
  const networkCause = (error: PartnerNetworkError): string => {
    let cause: unknown = error.cause;
    while (cause instanceof Error && !(cause as NodeJS.ErrnoException).code && cause.cause)
      cause = cause.cause;
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    return typeof code === "string" ? ` (${code})` : "";
  };
  const fail = (command: Command, error: unknown): never => {
    const message =
      error instanceof PartnerApiError
        ? `HTTP ${error.status} ${error.code}${error.detail ? `: ${error.detail}` : ""} correlation=${error.correlationId}`
        : error instanceof PartnerNetworkError
          ? `cannot reach ${serverOrigin()}${networkCause(error)} correlation=${error.correlationId}`
          : error instanceof LocalStorageError
            ? `local storage failure: ${error.message}`
            : error instanceof Error
              ? error.message
              : "failed";
    command.error(`error: ${message}`, { exitCode: 1, code: "hanse.partner" });
    throw error;
  };

  partner
    .command("upload")
    .argument("<file>", "one EDIFACT interchange")
    .requiredOption("--connection <id>", "connection id")
    .option("--idempotency-key <key>", "default: derived from the file's SHA-256")
    .description("upload one interchange (a retry with the same bytes replays)")
    .action(async (file: string, opts: { connection: string; idempotencyKey?: string }, command: Command) => {
      try {
        const result = await uploadFile(clientFor(opts.connection), file, opts.idempotencyKey);
        io.stdout.write(`${JSON.stringify(result)}\n`);
      } catch (error) {
        fail(command, error);
      }
    });

  partner
    .command("sync")
    .requiredOption("--connection <id>", "connection id")
    .requiredOption("--out <dir>", "directory for received interchanges")
    .option("--once", "process what is in the mailbox now, then exit")
    .option("--poll-ms <ms>", "poll interval when not --once", parsePollMs, 5000)
    .description("collect the mailbox: claim, verify, store, acknowledge — one entry at a time")
    .action(
      async (opts: { connection: string; out: string; once?: boolean; pollMs: number }, command: Command) => {
        const progress = createProgressLine(io.stderr);
        try {
          const summary = await syncMailbox({
            client: clientFor(opts.connection),
            outDir: opts.out,
            once: opts.once === true,
            pollMs: opts.pollMs,
            onEvent: (event) => {
              if (event.event !== "idle") progress.log(JSON.stringify(event));
            },
            onProgress: (state) => {
              progress.update(`mailbox: ${state.done} acknowledged, ${state.failed} failed`);
            },
          });
          progress.done(`mailbox: ${summary.acknowledged} acknowledged, ${summary.failed} failed`);
          io.stdout.write(`${JSON.stringify(summary)}\n`);
          if (summary.failed > 0) {
            command.error(`error: ${summary.failed} entries were not acknowledged`, {
              exitCode: 1,
              code: "hanse.partner",
            });
          }
        } catch (error) {
          if ((error as { code?: string }).code === "hanse.partner") throw error;
          fail(command, error);
        }
      },
    );
}
