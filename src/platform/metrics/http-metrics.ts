import type { FastifyInstance } from "fastify";
import type { MetricsRegistry } from "./metrics-registry.js";

/** Buckets of request and job durations, seconds: 1 ms to 1 minute. */
export const durationBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * `hanse_http_request_duration_seconds` by route template (never the URL: ids and tokens stay
 * out of labels), method and status. A request no route matched counts as route `unmatched`.
 */
export function httpMetrics(app: FastifyInstance, metrics: MetricsRegistry): void {
  const duration = metrics.histogram({
    name: "hanse_http_request_duration_seconds",
    help: "HTTP requests answered, by route template, method and status, and how long they took",
    labelNames: ["route", "method", "status"],
    buckets: durationBuckets,
  });
  app.addHook("onResponse", (request, reply, done) => {
    duration.observe(
      {
        route: request.is404 ? "unmatched" : (request.routeOptions.url ?? "unmatched"),
        method: request.method,
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
