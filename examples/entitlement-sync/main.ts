/**
 * A small sync service (issue 22): an EntitlementMirror kept in a JSON file, woken by Hanse's
 * entitlement webhooks, answering `GET /check?actor=…` from the local projection. It uses nothing
 * of Hanse but the client package `@hanse/client`. Settings: see README.md.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import {
  EntitlementMirror,
  createJsonFileStorage,
  createServiceClient,
  createWebhookReceiver,
  type MirrorEvent,
} from "@hanse/client";

function setting(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (value === undefined || value === "")
    throw new Error(`set ${name} (see examples/entitlement-sync/README.md)`);
  return value;
}
const list = (value: string | undefined) => (value ?? "").split(",").filter((item) => item !== "");

/** One JSON line per event on stdout; errors by message only (SDK errors carry no secret). */
const log = (line: Record<string, unknown>) => {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`);
};
const logEvent = (event: MirrorEvent) => {
  if (event.type === "error") log({ event: "error", error: event.error.message });
  else {
    const { type, ...fields } = event;
    log({ event: type, ...fields });
  }
};

const mirror = new EntitlementMirror({
  client: createServiceClient({
    baseUrl: setting("HANSE_URL", "http://127.0.0.1:8080"),
    credentialId: setting("HANSE_SERVICE_CREDENTIAL_ID"),
    secret: setting("HANSE_SERVICE_SECRET"),
  }),
  storage: createJsonFileStorage(setting("MIRROR_STATE_FILE", "./entitlement-mirror.json")),
  appId: process.env.HANSE_APP_ID,
  requiredCapabilities: list(process.env.REQUIRED_CAPABILITIES),
  // With webhooks the poll is only a safety net; without them it bounds the staleness.
  pollIntervalMs: Number(process.env.MIRROR_POLL_MS ?? (process.env.HANSE_WEBHOOK_SECRET ? 60_000 : 2_000)),
  onEvent: logEvent,
});

const webhookSecrets = list(process.env.HANSE_WEBHOOK_SECRET); // two, comma-separated, during a rotation
const receiver =
  webhookSecrets.length > 0
    ? createWebhookReceiver({
        secrets: webhookSecrets,
        mirror,
        onDelivery: (outcome, webhookId) => {
          log({ event: "webhook", outcome, webhookId });
        },
      })
    : undefined;

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function route(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? "/", "http://localhost");
  if (url.pathname === "/webhooks/hanse" && receiver) {
    receiver.node(request, response);
    return;
  }
  request.resume();
  if (request.method === "GET" && url.pathname === "/check") {
    const actor = url.searchParams.get("actor");
    if (!actor) {
      json(response, 400, { error: "give ?actor=…" });
      return;
    }
    const capabilities = url.searchParams.getAll("capability");
    const decision = mirror.decide(actor, capabilities.length > 0 ? capabilities : undefined);
    json(response, 200, {
      actorId: actor,
      ...decision,
      sequence: mirror.sequence ?? null,
      ready: mirror.ready,
    });
    return;
  }
  if (request.method === "GET" && url.pathname === "/status") {
    json(response, 200, {
      ready: mirror.ready,
      sequence: mirror.sequence ?? null,
      latestSequence: mirror.latestSequence ?? null,
      size: mirror.size,
      halted: mirror.halted?.message ?? null,
    });
    return;
  }
  json(response, 404, { error: "not found" });
}

// HTTPS when a certificate is given: Hanse delivers webhooks to https:// URLs only.
const server =
  process.env.TLS_CERT_FILE && process.env.TLS_KEY_FILE
    ? createTlsServer(
        { cert: readFileSync(process.env.TLS_CERT_FILE), key: readFileSync(process.env.TLS_KEY_FILE) },
        route,
      )
    : createServer(route);
await mirror.start();
server.listen(Number(process.env.PORT ?? 3001), process.env.HOST ?? "127.0.0.1", () => {
  log({ event: "listening", port: (server.address() as AddressInfo).port, webhooks: receiver !== undefined });
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    void mirror.stop().then(() => process.exit(0));
  });
}
