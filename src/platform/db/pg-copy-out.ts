import type pg from "pg";
import { BinaryCopyParser, type CopyRow } from "./binary-copy.js";

/** The part of node-postgres' connection a submittable query uses. */
interface Connection {
  query(text: string): void;
  readonly stream: { pause(): void; resume(): void; destroy(): void };
}

/**
 * Bytes of parsed tuples waiting for the consumer before the socket is paused: the database then
 * waits on TCP (backpressure), and a slow reader holds this much plus the socket's buffers.
 */
const highWaterBytes = 4 * 1024 * 1024;

/**
 * `COPY (select) TO STDOUT (FORMAT binary)` as a node-postgres submittable: the client hands it
 * the CopyData messages (their bytes are not decoded), it parses the tuples and pauses the
 * connection while `highWaterBytes` of them wait for `take`.
 */
class CopyOut {
  private readonly parser = new BinaryCopyParser();
  private rows: CopyRow[] = [];
  private waitingBytes = 0;
  private connection: Connection | undefined;
  private paused = false;
  private finished = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly text: string) {}

  submit(connection: Connection): void {
    this.connection = connection;
    connection.query(this.text);
  }

  handleCopyData(message: { chunk: Buffer }): void {
    if (this.failure) return;
    try {
      // A copy: the chunk is a view of the driver's read buffer, which it reuses for the bytes
      // that arrive next, while these tuples may wait for the consumer.
      for (const row of this.parser.push(Buffer.from(message.chunk))) {
        this.rows.push(row);
        for (const field of row) this.waitingBytes += field?.length ?? 0;
      }
    } catch (error) {
      this.failure ??= error as Error;
    }
    if (this.waitingBytes >= highWaterBytes && !this.paused && this.connection) {
      this.paused = true;
      this.connection.stream.pause();
    }
    this.notify();
  }

  handleError(error: Error): void {
    this.failure ??= error;
    this.notify();
  }

  handleReadyForQuery(): void {
    if (!this.failure && !this.parser.complete) this.failure = new Error("binary COPY ended early");
    this.finished = true;
    this.notify();
  }

  // Messages a COPY TO does not send, or that need nothing here.
  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}

  /**
   * The tuples parsed since the last call; null once the statement is over (ReadyForQuery).
   * Throws the statement's or the connection's error as soon as it is known (a lost connection
   * sends nothing more).
   */
  async take(): Promise<CopyRow[] | null> {
    for (;;) {
      if (this.failure) throw this.failure;
      if (this.rows.length > 0) {
        const rows = this.rows;
        this.rows = [];
        this.waitingBytes = 0;
        this.resume();
        return rows;
      }
      if (this.finished) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Whether the connection is back to idle, without a failure (fit for the pool again). */
  get idle(): boolean {
    return this.finished && !this.failure;
  }

  /**
   * Cuts the connection of a COPY left unfinished: PostgreSQL ends the statement at its next
   * write, where the socket would otherwise stay paused (or drain megabytes nobody reads).
   */
  abandon(): void {
    this.rows = [];
    this.failure ??= new Error("binary COPY abandoned");
    this.connection?.stream.destroy();
  }

  private resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.connection?.stream.resume();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/**
 * Streams the tuples of `select` from a pooled connection with backpressure. A consumer that stops
 * early, or any failure, closes the connection instead of returning it to the pool mid-COPY.
 */
export async function* pgCopyRows(pool: pg.Pool, select: string): AsyncGenerator<CopyRow> {
  const client = await pool.connect();
  const copy = new CopyOut(`COPY (${select}) TO STDOUT (FORMAT binary)`);
  // A checked-out client has no error listener of the pool's: a lost connection must reach the
  // reader, not end the process as an unhandled 'error' event.
  const onError = (error: Error): void => {
    copy.handleError(error);
  };
  client.on("error", onError);
  let reusable = false;
  try {
    // pg-copy-streams' CopyOut is a Submittable (it implements submit) but its types do not say so.
    client.query(copy as unknown as pg.Submittable);
    for (;;) {
      const rows = await copy.take();
      if (rows === null) break;
      yield* rows;
    }
    reusable = copy.idle;
  } finally {
    if (reusable) {
      client.off("error", onError);
      client.release();
    } else {
      // Closed rather than pooled mid-COPY; the listener stays for the closing connection's errors.
      copy.abandon();
      client.release(true);
    }
  }
}
