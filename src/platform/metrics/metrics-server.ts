import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { MetricsRegistry } from "./metrics-registry.js";

export interface MetricsServer {
  /** `http://host:port`. */
  url: string;
  close(): Promise<void>;
}

/**
 * The metrics listener (HANSE_METRICS_PORT): `GET /metrics` and nothing else, on its own port so
 * that only what can reach that port (the Prometheus server, a private network) can scrape, in
 * API and worker processes alike. It also starts the process metrics.
 */
export async function startMetricsServer(
  metrics: MetricsRegistry,
  listen: { port: number; host: string },
): Promise<MetricsServer> {
  metrics.collectProcessMetrics();
  const server = createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(path === "/metrics" ? 405 : 404, { "content-type": "text/plain" }).end();
      return;
    }
    metrics.scrape().then(
      (text) => {
        response.writeHead(200, { "content-type": metrics.contentType, "cache-control": "no-store" });
        response.end(request.method === "HEAD" ? undefined : text);
      },
      () => {
        response.writeHead(500, { "content-type": "text/plain" }).end();
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
