import { InvalidArgumentError, type Command } from "commander";
import { createPartnerClient, type RequestFn } from "../sdk/partner.js";
import { syncMailbox, uploadFile, type SyncEvent } from "../sdk/partner-sync.js";
import type { CliIo } from "./cli-io.js";
import { jsonOption } from "./collection.js";
import { CLI_EXIT, CliError, createRuntime } from "./runtime.js";

/** A poll interval: whole milliseconds, at least 100 (a smaller one would poll in a busy loop). */
const parsePollMs = (value: string): number => {
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < 100) {
    throw new InvalidArgumentError("a whole number of milliseconds, at least 100");
  }
  return Number(value);
};

const parseNaming = (value: string): "delivery" | "reference" => {
  if (value !== "delivery" && value !== "reference") throw new InvalidArgumentError("delivery or reference");
  return value;
};

/** 1536 → `1.5 KiB`. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit] ?? ""}`;
}

/** `mailbox: 12 acknowledged, 0 failed, 3.4 MiB, 5.2 files/s` */
export function renderSyncProgress(
  state: { done: number; failed: number; bytes: number },
  seconds: number,
): string {
  const rate = seconds > 0 ? state.done / seconds : 0;
  return (
    `mailbox: ${state.done} acknowledged, ${state.failed} failed, ${formatBytes(state.bytes)}, ` +
    `${rate.toFixed(1)} files/s`
  );
}

/** What a failed, skipped or invalid entry is reported as (status, code, correlation, ids; never a key). */
const describeEvent = (event: SyncEvent): string =>
  [
    `mailbox: ${event.event}`,
    event.deliveryAttemptId ?? "",
    event.status === undefined ? "" : String(event.status),
    event.code ?? "",
    event.correlationId === undefined ? "" : `correlation id ${event.correlationId}`,
  ]
    .filter((part) => part !== "")
    .join(" ");

/**
 * `hanse partner upload FILE` and `hanse partner sync --connection ID --out DIR [--once]`: the
 * reference partner client. The API key comes from HANSE_PARTNER_KEY (never from argv), the
 * server from HANSE_URL. Output and errors as every command (a summary, or `--json`).
 */
export function registerPartnerCommands(
  program: Command,
  io: CliIo,
  options: { request?: RequestFn } = {},
): void {
  const rt = createRuntime(io);
  const partner = rt
    .command(program, "partner")
    .description("partner exchange: upload interchanges, collect the mailbox");

  const clientFor = (connectionId: string) => {
    const baseUrl = io.env.HANSE_URL;
    const apiKey = io.env.HANSE_PARTNER_KEY;
    if (!baseUrl) throw new CliError("set HANSE_URL to the server URL");
    if (!apiKey) throw new CliError("set HANSE_PARTNER_KEY to the partner API key (<apiKeyId>:<secret>)");
    return createPartnerClient({
      baseUrl,
      apiKey,
      connectionId,
      ...(options.request ? { request: options.request } : {}),
    });
  };

  jsonOption(rt.command(partner, "upload"))
    .argument("<file>", "one EDIFACT interchange")
    .requiredOption("--connection <id>", "connection id")
    .option("--idempotency-key <key>", "default: derived from the file's SHA-256")
    .description("upload one interchange (a retry with the same bytes replays)")
    .action(
      rt.action(
        async (file: string, opts: { connection: string; idempotencyKey?: string; json?: boolean }) => {
          const result = await uploadFile(clientFor(opts.connection), file, opts.idempotencyKey);
          rt.emit(
            opts.json,
            result,
            () =>
              `upload ${result.uploadId}: ${result.status}${result.replay ? " (replayed: the same bytes were sent before)" : ""}` +
              `\n  follow it with: hanse uploads show ${result.uploadId}`,
          );
        },
      ),
    );

  jsonOption(rt.command(partner, "sync"))
    .requiredOption("--connection <id>", "connection id")
    .requiredOption("--out <dir>", "directory for received interchanges")
    .option("--once", "process what is in the mailbox now, then exit")
    .option("--poll-ms <ms>", "poll interval when not --once", parsePollMs, 5000)
    .option(
      "--name-by <naming>",
      "file names: delivery (<deliveryAttemptId>.<TYPE>.edi) or reference (<interchange>-<message>.<TYPE>.edi)",
      parseNaming,
      "delivery",
    )
    .description("collect the mailbox: claim, verify, store, acknowledge — one entry at a time")
    .action(
      rt.action(
        async (opts: {
          connection: string;
          out: string;
          once?: boolean;
          pollMs: number;
          nameBy: "delivery" | "reference";
          json?: boolean;
        }) => {
          const progress = rt.progress({ plainIntervalMs: 10_000 });
          const started = performance.now();
          const seconds = () => (performance.now() - started) / 1000;
          let last = { done: 0, failed: 0, bytes: 0 };
          const summary = await syncMailbox({
            client: clientFor(opts.connection),
            outDir: opts.out,
            once: opts.once === true,
            pollMs: opts.pollMs,
            naming: opts.nameBy,
            ...(io.signal ? { signal: io.signal } : {}),
            onEvent: (event) => {
              if (event.event === "failed" || event.event === "skipped") progress.log(describeEvent(event));
            },
            onProgress: (state) => {
              last = state;
              progress.update(renderSyncProgress(state, seconds()));
            },
          });
          progress.done(renderSyncProgress({ ...last, ...summary }, seconds()));
          rt.emit(
            opts.json,
            summary,
            () => `${summary.acknowledged} acknowledged, ${summary.failed} failed; stored in ${opts.out}`,
          );
          if (summary.failed > 0) {
            throw new CliError(`${summary.failed} entries were not acknowledged`, CLI_EXIT.checkFailed);
          }
        },
      ),
    );
}
