import type { Socket } from "node:net";

/**
 * How long and how much a connection is read after its answer, before it is closed for good.
 * Enough for a client of any body Hanse accepts (16 MiB) to finish writing and read the answer;
 * a client that keeps sending past these is cut off.
 */
export const lingerLimits = {
  /** The most bytes read and discarded after the answer. */
  maxBytes: 64 * 1024 * 1024,
  /** The longest a connection lingers after its answer. */
  maxMs: 10_000,
  /** The longest a lingering connection may send nothing. */
  idleMs: 2_000,
};

const lingering = new WeakSet<Socket>();

const ignore = (): void => undefined;

/**
 * Closes a connection whose request the server does not read to its end (a 413, an unparsable
 * request) without a reset. Closing a socket that still holds unread bytes makes the kernel
 * send RST, and a client that was still writing then loses the answer it had not read yet. So:
 * send what is pending, half-close (FIN), then go on reading what the client still sends (Node's
 * HTTP parser reads it and drops it: the request was dumped) until the client closes its side
 * or a limit of `lingerLimits` is reached, as nginx's lingering_close does.
 */
export function closeLingering(socket: Socket, limits = lingerLimits): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  const startedAt = Date.now();
  const readBefore = socket.bytesRead;
  const cutOff = () => {
    socket.destroy();
  };
  const check = setInterval(() => {
    if (Date.now() - startedAt > limits.maxMs || socket.bytesRead - readBefore > limits.maxBytes) cutOff();
  }, 100);
  check.unref();
  socket.once("close", () => {
    clearInterval(check);
  });
  socket.on("error", ignore);
  // The client has sent all it will: close once our side is written.
  socket.once("end", () => {
    if (socket.writableFinished) cutOff();
    else socket.once("finish", cutOff);
  });
  socket.setTimeout(limits.idleMs, cutOff);
  // Reading may be paused (the request's body was not consumed): the client must not block.
  socket.resume();
  socket.end();
}

/**
 * Whether `socket` is closing after its answer: a parse error on it needs no answer, and a
 * request pipelined behind the answer is not served (RFC 9112 §9.6).
 */
export const isLingering = (socket: Socket): boolean => lingering.has(socket);

/**
 * Makes Node's close after a `Connection: close` answer linger: Node ends such a connection
 * with `destroySoon()` once the answer is written, which would destroy a socket that may
 * still hold unread request bytes.
 */
export function lingerAfterAnswer(socket: Socket | null | undefined): void {
  if (!socket || socket.destroyed) return;
  socket.destroySoon = () => {
    closeLingering(socket);
  };
}
