import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { isLingering } from "./lingering-close.js";

/** Limits of the HTTP server; the largest URL parameter Fastify routes (longer ones are 414). */
export const serverLimits = {
  /** Slow clients must not hold sockets forever; uploads of 16 MiB still fit comfortably. */
  requestTimeoutMs: 300_000,
  headersTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  /** How often Node looks for requests past those time-outs (its default): a 408 may come this much later. */
  connectionsCheckingIntervalMs: 30_000,
  /**
   * Above every path parameter a route declares: the longest is an entitlement actor id, 128
   * characters that may arrive percent-encoded as up to 12 characters each (4-byte UTF-8).
   */
  maxParamLength: 1536,
};

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface HttpServerOptions {
  /**
   * How long a request may send nothing while its body is still due, and a response may make no
   * progress, before the connection is given up (HANSE_HTTP_IDLE_TIMEOUT_MS).
   */
  idleTimeoutMs: number;
  /** Answers a request whose body stopped arriving (the client-error handler, with Node's code). */
  onStalledRequest: (error: NodeJS.ErrnoException, socket: Socket) => void;
}

/** The request a connection is serving (or served last), to tell what an idle socket is doing. */
const currentRequest = new WeakMap<Socket, { request: IncomingMessage; response: ServerResponse }>();

/**
 * An idle socket: a request whose body stopped arriving is answered 408 (its handler then sees
 * the connection close and drops what it stored); a response that makes no progress, or a
 * keep-alive connection past its keep-alive time, is closed. A complete request whose handler is
 * still working is left alone: the server is busy, not the client.
 */
function onIdle(options: HttpServerOptions, socket: Socket): void {
  const current = currentRequest.get(socket);
  if (!current || isLingering(socket) || current.response.writableEnded) {
    socket.destroy();
    return;
  }
  if (!current.request.complete && !current.response.headersSent) {
    const error: NodeJS.ErrnoException = new Error("the request body stopped arriving");
    error.code = "ERR_HTTP_REQUEST_TIMEOUT";
    options.onStalledRequest(error, socket);
    return;
  }
  if (current.response.headersSent) socket.destroy();
}

/**
 * Fastify's `serverFactory`: Node's HTTP server with our timeouts. A request that arrives on a
 * connection already answered with `Connection: close` (pipelined behind a 413) is not served:
 * the connection is closing and its bytes are only drained.
 */
export function httpServerFactory(options: HttpServerOptions): (handler: Handler) => Server {
  return (handler) => {
    const server = createServer(
      {
        requestTimeout: serverLimits.requestTimeoutMs,
        headersTimeout: serverLimits.headersTimeoutMs,
        keepAliveTimeout: serverLimits.keepAliveTimeoutMs,
        connectionsCheckingInterval: serverLimits.connectionsCheckingIntervalMs,
      },
      (request, response) => {
        if (isLingering(request.socket)) {
          request.resume();
          return;
        }
        currentRequest.set(request.socket, { request, response });
        handler(request, response);
      },
    );
    // Node applies `timeout` to each request and its response; between requests the keep-alive
    // time replaces it. With a listener, what an idle socket gets is ours to decide (onIdle).
    server.timeout = options.idleTimeoutMs;
    server.on("timeout", (socket: Socket) => {
      onIdle(options, socket);
    });
    // A client may half-close after its request (shutdown(SHUT_WR), HTTP/1.0 style): Node would
    // then abort the request and close without an answer. With this (long-standing, undocumented)
    // switch it answers first and closes after the answer.
    (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
    return server;
  };
}
