import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request through the proxy, with the server's real answer to it. */
export interface ProxiedExchange {
  n: number;
  method: string;
  /** Path and query as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  upstream: { status: number; headers: IncomingHttpHeaders; body: string };
}

/** What the client gets: the real answer (`pass`), another one, or a reset connection. */
export type ProxyReply =
  "pass" | "reset" | { status: number; headers?: Record<string, string>; body: string };

export interface InterceptingProxy {
  url: string;
  /** Every exchange so far, in arrival order. */
  exchanges: ProxiedExchange[];
  close: () => Promise<void>;
}

/**
 * An HTTP proxy in front of a test server. Every request is forwarded (so the server sees it, and
 * records a signed request's nonce), then `intercept` decides what the client gets instead of,
 * or as, the real answer: a retryable status, a feed page with a change missing, a reset.
 */
export async function startInterceptingProxy(
  upstream: string,
  intercept: (exchange: ProxiedExchange) => ProxyReply,
): Promise<InterceptingProxy> {
  const exchanges: ProxiedExchange[] = [];
  let arrived = 0;
  const server: Server = createServer((req, res) => {
    const n = arrived++;
    const forwarded = httpRequest(
      new URL(req.url ?? "/", upstream),
      { method: req.method, headers: req.headers },
      (real) => {
        const chunks: Buffer[] = [];
        real.on("data", (chunk: Buffer) => chunks.push(chunk));
        real.on("end", () => {
          const exchange: ProxiedExchange = {
            n,
            method: req.method ?? "GET",
            path: req.url ?? "/",
            headers: req.headers,
            upstream: {
              status: real.statusCode ?? 502,
              headers: real.headers,
              body: Buffer.concat(chunks).toString("utf8"),
            },
          };
          exchanges.push(exchange);
          const reply = intercept(exchange);
          if (reply === "reset") {
            res.socket?.destroy();
            return;
          }
          if (reply === "pass") {
            const headers = { ...real.headers };
            delete headers["content-length"];
            delete headers["transfer-encoding"];
            res.writeHead(exchange.upstream.status, headers).end(exchange.upstream.body);
            return;
          }
          res.writeHead(reply.status, reply.headers ?? {}).end(reply.body);
        });
      },
    );
    forwarded.on("error", () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
