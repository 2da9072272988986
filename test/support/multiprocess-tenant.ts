import { expect } from "vitest";
import type { ServerProcess } from "./server-process.js";
import { waitUntil } from "./wait-until.js";

const json = async (response: Response) => (await response.json()) as Record<string, unknown>;

/**
 * A tenant created through server `first` (system tenant API, bootstrap token), its provisioning
 * followed and its administrator signed in through `second`: what one process wrote, the other
 * reads. Returns the administrator's session.
 */
export async function createTenantAcross(
  first: ServerProcess,
  second: ServerProcess,
  bootstrapToken: string,
  options: { name: string; prefix: string; password: string },
): Promise<{ slug: string; email: string; token: string }> {
  const slug = `${options.prefix}-${Date.now().toString(36)}`;
  const email = `admin@${slug}.test`;
  const created = await fetch(`${first.url}/api/v1/system/tenants`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${bootstrapToken}`,
      "idempotency-key": `create-${slug}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ name: options.name, slug, admin: { email, password: options.password } }),
  });
  expect(created.status).toBe(202);
  const { tenantId } = (await json(created)) as { tenantId: string };
  await waitUntil(
    async () =>
      (
        await json(
          await fetch(`${second.url}/api/v1/system/tenants/${tenantId}/provisioning`, {
            headers: { authorization: `Bearer ${bootstrapToken}` },
          }),
        )
      ).state === "succeeded",
    { what: "provisioning", timeoutMs: 60_000 },
  );
  const session = await fetch(`${second.url}/api/v1/auth/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tenant: slug, email, password: options.password }),
  });
  expect(session.status).toBe(201);
  return { slug, email, token: ((await json(session)) as { token: string }).token };
}
