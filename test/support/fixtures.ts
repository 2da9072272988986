import { expect } from "vitest";
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
