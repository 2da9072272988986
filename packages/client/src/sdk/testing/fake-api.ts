import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request as a fake API saw it. */
export interface FakeRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeApi {
  url: string;
  requests: FakeRequest[];
  close(): Promise<void>;
}

/**
 * A local HTTP server for client tests (a fake only at the process edge): the handler answers
 * each request, every request is recorded.
 */
export async function startFakeApi(
  handler: (request: FakeRequest, response: ServerResponse) => void | Promise<void>,
): Promise<FakeApi> {
  const requests: FakeRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: FakeRequest = {
        method: req.method ?? "GET",
        url: req.url ?? "/",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(request);
      Promise.resolve(handler(request, res)).catch(() => {
        res.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": status >= 400 ? "application/problem+json" : "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** The `system.tenants` entry as the server publishes it (rules/contract §3). */
export const systemTenantsEntry = (actions: readonly string[] = ["list", "read", "create"]) => ({
  id: "system.tenants",
  kind: "system-resource",
  href: "/api/v1/system/tenants",
  actions: [
    { id: "list", method: "GET", href: "/api/v1/system/tenants" },
    { id: "read", method: "GET", href: "/api/v1/system/tenants/{tenantId}" },
    {
      id: "create",
      method: "POST",
      href: "/api/v1/system/tenants",
      requiredHeaders: ["Idempotency-Key"],
      acceptedStatus: 202,
      responseHeaders: ["Location", "Retry-After"],
      statusHref: "/api/v1/system/tenants/{tenantId}/provisioning",
      statusRequiredAnyScopes: ["tenants:read", "system_diagnostics:read"],
    },
  ].filter((action) => actions.includes(action.id)),
});
