import type { FastifyBaseLogger } from "fastify";
import type { MetricsRegistry } from "../metrics/index.js";

/**
 * Makes a disabled address guard visible (issue 38): `HANSE_WEBHOOK_ALLOW_PRIVATE=1` lets
 * webhooks and lifecycle adapters reach this host's networks, right for local testing and an SSRF
 * hole anywhere else. One warning at start (the setting's name, nothing else) and the gauge
 * `hanse_outbound_guard_disabled`, 1 while it is so, for an alert.
 */
export function reportOutboundGuard(
  allowPrivate: boolean,
  deps: { logger: FastifyBaseLogger; metrics: MetricsRegistry },
): void {
  deps.metrics.gauge({
    name: "hanse_outbound_guard_disabled",
    help: "1 when HANSE_WEBHOOK_ALLOW_PRIVATE=1 lets outbound calls reach private, loopback and reserved addresses",
    collect() {
      this.set(allowPrivate ? 1 : 0);
    },
  });
  if (allowPrivate) {
    deps.logger.warn(
      { setting: "HANSE_WEBHOOK_ALLOW_PRIVATE" },
      "HANSE_WEBHOOK_ALLOW_PRIVATE=1: the outbound address guard is off; webhooks and lifecycle adapters may reach private, loopback and reserved addresses (for local testing only)",
    );
  }
}
