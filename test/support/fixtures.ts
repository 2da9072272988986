import { expect } from "vitest";
import { createServiceClient, type ServiceClient, type ServiceClientOptions } from "@hanse/client";
import { adminHeaders, bearer, type TestApp } from "./test-app.js";

let counter = 0;
export const uniqueSlug = (prefix = "t") =>
  `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter++}`;

export interface ProvisionedTenant {
  id: string;
  slug: string;
  email: string;
  password: string;
  /** A session of the tenant's first administrator. */
  token: string;
}

/** Creates a customer tenant through the API, runs provisioning and logs its administrator in. */
export async function provisionTenant(t: TestApp, slug = uniqueSlug()): Promise<ProvisionedTenant> {
  const email = `admin@${slug}.test`;
  const password = "correct horse battery staple";
  const created = await t.inject({
    method: "POST",
    url: "/api/v1/system/tenants",
    headers: { ...adminHeaders, "idempotency-key": `create-${slug}` },
    payload: { name: `Tenant ${slug}`, slug, admin: { email, password } },
  });
  expect(created.statusCode).toBe(202);
  const { tenantId } = created.json<{ tenantId: string }>();
  await t.drainJobs();
  const session = await t.inject({
    method: "POST",
    url: "/api/v1/auth/sessions",
    payload: { tenant: slug, email, password },
  });
  expect(session.statusCode).toBe(201);
  return { id: tenantId, slug, email, password, token: session.json<{ token: string }>().token };
}

/** An access token of the system tenant with exactly these scopes. */
export async function systemToken(t: TestApp, scopes: string[]): Promise<string> {
  const response = await t.inject({
    method: "POST",
    url: "/api/v1/admin/access-tokens",
    headers: adminHeaders,
    payload: { name: `scoped ${scopes.join(" ")}`, scopes },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ token: string }>().token;
}

export { bearer };

export interface EntitlementApp {
  appId: string;
  /** The binding as created: its credential's secret is shown only here. */
  binding: { id: string; audience: string; credentialId: string; secret: string };
  /** Sets an actor's entitlement (active, plan pro, `read` unless `body` says otherwise); its sequence. */
  set: (actorId: string, body?: Record<string, unknown>) => Promise<number>;
  /** A service client of the binding (retries after 1 ms). */
  client: (baseUrl: string, options?: Partial<ServiceClientOptions>) => ServiceClient;
}

/** An app with `read` and `write` and a service binding of it, made by the tenant's administrator. */
export async function createEntitlementApp(
  t: TestApp,
  token: string,
  options: { appId: string; audience?: string; requiredCapabilities?: string[] },
): Promise<EntitlementApp> {
  const admin = async (method: "POST" | "PUT", url: string, payload: object) => {
    const response = await t.inject({ method, url, headers: bearer(token), payload });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json<Record<string, unknown>>();
  };
  const { appId } = options;
  await admin("POST", "/api/v1/admin/apps", { id: appId, name: appId, capabilities: ["read", "write"] });
  const binding = (await admin("POST", "/api/v1/admin/service-bindings", {
    appId,
    audience: options.audience ?? `aud-${appId}`,
    requiredCapabilities: options.requiredCapabilities ?? ["read"],
  })) as unknown as EntitlementApp["binding"];
  return {
    appId,
    binding,
    set: async (actorId, body = {}) =>
      (
        await admin("PUT", `/api/v1/admin/apps/${appId}/entitlements/${encodeURIComponent(actorId)}`, {
          status: "active",
          plan: "pro",
          capabilities: ["read"],
          ...body,
        })
      ).sequence as number,
    client: (baseUrl, extra = {}) =>
      createServiceClient({
        baseUrl,
        credentialId: binding.credentialId,
        secret: binding.secret,
        retryDelayMs: 1,
        ...extra,
      }),
  };
}

/** A new product entity of `tenant` (201); its id. */
export async function createProduct(
  t: TestApp,
  tenant: ProvisionedTenant,
  attributes: Record<string, unknown> = { name: "Widget" },
): Promise<string> {
  const entity = await t.inject({
    method: "POST",
    url: "/api/v1/admin/entities",
    headers: bearer(tenant.token),
    payload: { kind: "product", attributes },
  });
  expect(entity.statusCode, entity.body).toBe(201);
  return entity.json<{ id: string }>().id;
}

/**
 * A new product entity of `tenant` and a `submit` transition request for it, sent with `headers`
 * (202); then runs the request's job (which consults the tenant's lifecycle adapter, if any).
 */
export async function submitNewProduct(
  t: TestApp,
  tenant: ProvisionedTenant,
  idempotencyKey: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const entityId = await createProduct(t, tenant, { name: "Submitted" });
  const response = await t.inject({
    method: "POST",
    url: "/api/v1/workflows/transition-requests",
    headers: {
      ...bearer(tenant.token),
      ...headers,
      "x-tenant-id": tenant.id,
      "x-idempotency-key": idempotencyKey,
    },
    payload: { entity: "product", entityId, transition: "submit" },
  });
  expect(response.statusCode, response.body).toBe(202);
  await t.drainJobs();
}
