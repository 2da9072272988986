import { connect } from "node:net";

/** What a raw socket received: the bytes and how the connection ended. */
export interface RawExchange {
  received: Buffer;
  /** The socket error that ended the exchange (ECONNRESET, EPIPE, …), if any. */
  error?: string;
}

export interface ParsedResponse {
  status: number;
  reason: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface RawRequest {
  /** The request line and headers, without the blank line that ends them. */
  head: string;
  /** Body bytes to send after the head; they are written in 64 KiB pieces, without waiting to read. */
  bodyBytes?: number;
  /** Send the body with chunked transfer coding (else raw bytes, as a Content-Length body). */
  chunked?: boolean;
  /** After the body bytes, neither end nor close: a client that stalls mid-request. */
  stall?: boolean;
  /** Give up (error `timeout`) when the server has not closed by then. */
  timeoutMs?: number;
}

const piece = Buffer.alloc(64 * 1024, 0x61);

/**
 * Sends a request through a plain TCP socket and writes its whole body before it reads anything
 * (as a simple client does, and as any client does whose writes are still buffered), then
 * half-closes and collects what arrives until the server closes. Resolves, never rejects: a
 * reset is a result.
 */
export function rawRequest(port: number, request: RawRequest): Promise<RawExchange> {
  return new Promise((resolve) => {
    // Half-open allowed: the server's FIN after its answer does not end our writing (as in C).
    const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let left = request.bodyBytes ?? 0;
    const writeMore = () => {
      while (left > 0 && !socket.destroyed) {
        const n = Math.min(left, piece.length);
        left -= n;
        const data = request.chunked
          ? Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), piece.subarray(0, n), Buffer.from("\r\n")])
          : piece.subarray(0, n);
        if (!socket.write(data)) {
          socket.once("drain", writeMore);
          return;
        }
      }
      if (socket.destroyed) return;
      if (request.stall) {
        // Stalled, but not deaf: once the server has answered and closed its side, so do we.
        socket.once("end", () => socket.destroy());
        socket.resume();
        return;
      }
      socket.end(request.chunked ? "0\r\n\r\n" : "");
      socket.resume();
    };
    socket.on("connect", () => {
      socket.write(`${request.head}\r\n\r\n`);
      writeMore();
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    // Like a client that writes its whole request before it reads the answer.
    socket.pause();
    socket.on("error", (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    if (request.timeoutMs) {
      socket.setTimeout(request.timeoutMs, () => {
        error ??= "timeout";
        socket.destroy();
      });
    }
    socket.on("close", () => {
      resolve({ received: Buffer.concat(chunks), ...(error ? { error } : {}) });
    });
  });
}

/** The first HTTP/1.1 response in `bytes` (Content-Length bodies), or undefined when incomplete. */
export function parseResponse(bytes: Buffer): ParsedResponse | undefined {
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine = "", ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const match = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(statusLine);
  if (!match) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers["content-length"] ?? NaN);
  const body = bytes.subarray(end + 4);
  if (!Number.isInteger(length) || body.length < length) return undefined;
  return { status: Number(match[1]), reason: match[2] ?? "", headers, body: body.subarray(0, length) };
}

/** Every complete response in `bytes`, in order (pipelined answers on one connection). */
export function parseResponses(bytes: Buffer): ParsedResponse[] {
  const responses: ParsedResponse[] = [];
  for (let rest = bytes; ;) {
    const response = parseResponse(rest);
    if (!response) return responses;
    responses.push(response);
    rest = rest.subarray(rest.indexOf("\r\n\r\n") + 4 + response.body.length);
  }
}

export interface RawConnection {
  /** Writes raw bytes, as much or as little of a request as the test wants. */
  write(data: string): void;
  /** All the server sent, once it closed the connection. */
  closed: Promise<RawExchange>;
}

/** A plain TCP connection for requests a test sends piece by piece (stalled bodies, pipelining). */
export async function openRawConnection(port: number): Promise<RawConnection> {
  const socket = connect({ port, host: "127.0.0.1" });
  const chunks: Buffer[] = [];
  let error: string | undefined;
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.on("error", (e: NodeJS.ErrnoException) => {
    error ??= e.code ?? e.message;
  });
  const closed = new Promise<RawExchange>((resolve) => {
    socket.on("close", () => {
      resolve({ received: Buffer.concat(chunks), ...(error ? { error } : {}) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return { write: (data) => socket.write(data), closed };
}

/** Whether a new connection to `port` is refused (the server no longer listens). */
export const connectionRefused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => {
      resolve(true);
    });
  });
