import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
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

/**
 * Fastify's `serverFactory`: Node's HTTP server with our timeouts. A request that arrives on a
 * connection already answered with `Connection: close` (pipelined behind a 413) is not served:
 * the connection is closing and its bytes are only drained.
 */
export function createHttpServer(handler: Handler): Server {
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
      handler(request, response);
    },
  );
  // A client may half-close after its request (shutdown(SHUT_WR), HTTP/1.0 style): Node would
  // then abort the request and close without an answer. With this (long-standing, undocumented)
  // switch it answers first and closes after the answer.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  return server;
}
