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

export function createProgressLine(stream: NodeJS.WritableStream): ProgressLine {
  const tty = isTty(stream);
  let last: string | undefined;
  return {
    update(text) {
      if (text === last) return;
      last = text;
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

const marks: Record<string, string> = { succeeded: "✓", failed: "✗", running: "…", pending: "·" };

/** `running [1/3] ✓ workflows  … entitlements  · signing-keys` */
export function renderSteps(state: string, steps: readonly { name: string; state: string }[]): string {
  const finished = steps.filter((step) => step.state === "succeeded").length;
  const parts = steps.map((step) => `${marks[step.state] ?? "?"} ${step.name}`);
  return `provisioning ${state} [${finished}/${steps.length}]${parts.length > 0 ? ` ${parts.join("  ")}` : ""}`;
}
