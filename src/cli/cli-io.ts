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
