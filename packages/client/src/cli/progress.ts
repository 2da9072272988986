import type { Command } from "commander";
import { isTty } from "./cli-io.js";

/**
 * One status line: redrawn in place with `\r` on a terminal, otherwise written as a plain line
 * only when its text changes (log files and CI output stay readable).
 */
export interface ProgressLine {
  update(text: string): void;
  /** Writes a line of its own above the status line (which is then drawn again). */
  log(line: string): void;
  /** Ends the display with a final line. */
  done(text: string): void;
}

export interface ProgressOptions {
  /** `--quiet`: no status lines at all (log lines still appear). */
  quiet?: boolean;
  /** Elsewhere than a terminal, a changed status is written at most this often (default: every change). */
  plainIntervalMs?: number;
  /** Milliseconds since some fixed point (tests pass their own). */
  now?: () => number;
}

export function createProgressLine(
  stream: NodeJS.WritableStream,
  options: ProgressOptions = {},
): ProgressLine {
  const tty = isTty(stream);
  const now = options.now ?? (() => performance.now());
  let last: string | undefined;
  let writtenAt = -Infinity;
  if (options.quiet) {
    return {
      update: () => undefined,
      log: (line) => {
        stream.write(`${line}\n`);
      },
      done: () => undefined,
    };
  }
  return {
    update(text) {
      if (text === last) return;
      if (!tty && now() - writtenAt < (options.plainIntervalMs ?? 0)) return;
      last = text;
      writtenAt = now();
      stream.write(tty ? `\r\x1b[2K${text}` : `${text}\n`);
    },
    log(line) {
      if (tty && last !== undefined) stream.write(`\r\x1b[2K${line}\n${last}`);
      else stream.write(`${line}\n`);
    },
    done(text) {
      if (tty) stream.write(`\r\x1b[2K${text}\n`);
      else if (text !== last) stream.write(`${text}\n`);
      last = text;
    },
  };
}

/** Whether `--quiet` (a global option) was given to this command. */
export const quietFor = (command: Command): boolean =>
  command.optsWithGlobals<{ quiet?: boolean }>().quiet === true;

const marks: Record<string, string> = { succeeded: "✓", failed: "✗", running: "…", pending: "·" };

/** `running [1/3] ✓ workflows  … entitlements  · signing-keys` */
export function renderSteps(state: string, steps: readonly { name: string; state: string }[]): string {
  const finished = steps.filter((step) => step.state === "succeeded").length;
  const parts = steps.map((step) => `${marks[step.state] ?? "?"} ${step.name}`);
  return `provisioning ${state} [${finished}/${steps.length}]${parts.length > 0 ? ` ${parts.join("  ")}` : ""}`;
}
