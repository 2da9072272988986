/** Where the client commands read and write; tests pass their own streams and environment. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Source of `--password-stdin`; process.stdin when not given. */
  stdin?: NodeJS.ReadableStream;
  /** Ends long-running commands (`entitlements changes --follow`); SIGINT/SIGTERM when not given. */
  signal?: AbortSignal;
}

/** Reads a secret piped on stdin: everything up to EOF, one trailing newline removed. */
export async function readSecret(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
  }
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

export const isTty = (stream: NodeJS.WritableStream): boolean =>
  (stream as NodeJS.WritableStream & { isTTY?: boolean }).isTTY === true;

type TtyInput = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

/** Whether secrets can be typed at a terminal on this input (a TTY that can turn its echo off). */
export const canPrompt = (stream: NodeJS.ReadableStream): boolean =>
  (stream as TtyInput).isTTY === true && typeof (stream as TtyInput).setRawMode === "function";

/**
 * Reads a secret typed at a terminal, without echo: `label` on `prompt` (stderr), the characters
 * up to Enter (Backspace deletes one, Ctrl-C cancels with an error). The terminal's mode is
 * restored whatever happens.
 */
export function promptSecret(
  stream: NodeJS.ReadableStream,
  prompt: NodeJS.WritableStream,
  label: string,
): Promise<string> {
  const input = stream as TtyInput;
  prompt.write(label);
  input.setRawMode?.(true);
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = "";
    const finish = (error?: Error) => {
      input.removeListener("data", onData);
      input.setRawMode?.(false);
      input.pause();
      prompt.write("\n");
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer | string) => {
      const text = typeof chunk === "string" ? chunk : chunk.toString("utf8");
      const chars = Array.from(text);
      for (const [index, char] of chars.entries()) {
        if (char === "\r" || char === "\n" || char === "\u0004") {
          // What was typed ahead (a pasted answer to the next prompt) is left for the next read.
          const after = char === "\r" && chars[index + 1] === "\n" ? index + 2 : index + 1;
          const rest = chars.slice(after).join("");
          finish();
          if (rest !== "") input.unshift(Buffer.from(rest, "utf8"));
          return;
        }
        if (char === "\u0003") {
          finish(new Error("cancelled"));
          return;
        }
        if (char === "\u007f" || char === "\b") typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.on("data", onData);
  });
}
