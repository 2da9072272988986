import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config/index.js";
import { createContainer } from "../../src/container.js";
import type { Database } from "../../src/platform/db/database.js";
import { createLogger } from "../../src/platform/logging/logger.js";

export const benchToken = "bench-bootstrap-token-0123456789abcdefghijkl";

/**
 * Hanse's API on `database` at a free local port, silent, with the bench's bootstrap token;
 * `env` adds settings (the webhooks bench's local receiver).
 */
export async function startServer(database: Database, env: Record<string, string> = {}) {
  const config = loadConfig({
    HANSE_BOOTSTRAP_TOKEN: benchToken,
    LOG_LEVEL: "silent",
    HANSE_ROLES: "api",
    ...env,
  });
  const logger = createLogger("silent");
  const container = await createContainer(config, { logger, database });
  const app = await buildApp(container);
  const appUrl = await app.listen({ port: 0, host: "127.0.0.1" });
  return { logger, container, app, appUrl };
}

/** A JSON request; throws on a status of 300 or more. */
export async function requestJson<T>(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown },
): Promise<T> {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    headers: { ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/**
 * A customer tenant created through the API, provisioned by `drain` (a worker's), and the bearer
 * header of its administrator's session.
 */
export async function customerTenant(appUrl: string, drain: () => Promise<unknown>) {
  const slug = `bench-${Date.now().toString(36)}`;
  const admin = { email: `admin@${slug}.test`, password: "correct horse battery staple" };
  const { tenantId } = await requestJson<{ tenantId: string }>(`${appUrl}/api/v1/system/tenants`, {
    method: "POST",
    headers: { authorization: `Bearer ${benchToken}`, "idempotency-key": slug },
    body: { name: "Bench", slug, admin },
  });
  await drain();
  const session = await requestJson<{ token: string }>(`${appUrl}/api/v1/auth/sessions`, {
    method: "POST",
    body: { tenant: slug, ...admin },
  });
  return { tenantId, auth: { authorization: `Bearer ${session.token}` } };
}
