/** An error and its causes in one line ("migration (setup) failed: database "hanse" does not exist"). */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return typeof error === "string" ? error : JSON.stringify(error);
  const parts: string[] = [];
  for (let e: unknown = error; e instanceof Error && parts.length < 5; e = e.cause) {
    // A refused connection to "localhost" is an AggregateError without a message of its own.
    const message =
      e.message === "" && e instanceof AggregateError
        ? (e.errors as unknown[]).map((inner) => (inner instanceof Error ? inner.message : "")).join("; ")
        : e.message;
    if (message !== "") parts.push(message);
  }
  return parts.join(": ");
}

/**
 * A reader that stops early (`hanse … | head`) ends a command quietly: EPIPE on stdout or stderr
 * exits with the exit code so far instead of an unhandled error.
 */
export function endQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
    });
  }
}
