/**
 * Black-box tests of the production topology (issue 31 item 2), run by `scripts/topology.sh test`
 * against HAProxy in front of two API processes, with two worker processes, all on one database
 * through a transaction-mode PgBouncer. HANSE_TEST_BASE_URL names HAProxy, HANSE_TEST_BOOTSTRAP_TOKEN
 * the system administrator's token; without them the file is skipped. Only HTTP: what one process
 * did, the other must see, and nothing may wait on a particular process.
 */
import { describe, expect, it } from "vitest";
import { waitUntil } from "../support/wait-until.js";

const base = process.env.HANSE_TEST_BASE_URL;
const adminToken = process.env.HANSE_TEST_BOOTSTRAP_TOKEN ?? "";

interface Answer {
  status: number;
  backend: string | null;
  body: Record<string, unknown>;
}

async function call(
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${base ?? ""}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    backend: response.headers.get("x-hanse-backend"),
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter++}`;

/** A customer tenant provisioned by the worker processes, and its administrator's session. */
async function provisionTenant(): Promise<{ id: string; token: string; slug: string; email: string }> {
  const slug = unique("topo");
  const email = `admin@${slug}.test`;
  const password = "correct horse battery staple";
  const created = await call(
    "POST",
    "/api/v1/system/tenants",
    adminToken,
    { name: `Tenant ${slug}`, slug, admin: { email, password } },
    { "idempotency-key": `create-${slug}` },
  );
  expect(created.status).toBe(202);
  const tenantId = created.body.tenantId as string;
  await waitUntil(
    async () =>
      (await call("GET", `/api/v1/system/tenants/${tenantId}/provisioning`, adminToken)).body.state ===
      "succeeded",
    { what: "provisioning by a worker process", timeoutMs: 30_000, intervalMs: 100 },
  );
  const session = await call("POST", "/api/v1/auth/sessions", undefined, { tenant: slug, email, password });
  expect(session.status).toBe(201);
  return { id: tenantId, token: session.body.token as string, slug, email };
}

describe.skipIf(!base)("two API processes behind HAProxy, two workers, PgBouncer in transaction mode", () => {
  it("consecutive requests reach both API processes, and both are ready", async () => {
    const backends = new Set<string | null>();
    for (let i = 0; i < 6; i++) {
      const answer = await call("GET", "/readyz", undefined);
      expect(answer.status).toBe(200);
      backends.add(answer.backend);
    }
    expect([...backends].sort()).toEqual(["api1", "api2"]);
  });

  it("a session made on one process works on the other; after logout it works on neither", async () => {
    const tenant = await provisionTenant();
    const seen = new Set<string | null>();
    for (let i = 0; i < 4; i++) {
      const whoami = await call("GET", "/api/v1/profile/whoami", tenant.token);
      expect(whoami.status).toBe(200);
      seen.add(whoami.backend);
    }
    expect(seen.size).toBe(2);
    expect((await call("DELETE", "/api/v1/auth/sessions/current", tenant.token)).status).toBeLessThan(300);
    for (let i = 0; i < 4; i++) {
      expect((await call("GET", "/api/v1/profile/whoami", tenant.token)).status).toBe(401);
    }
  });

  it("a revoked access token is refused by every process at once", async () => {
    const created = await call("POST", "/api/v1/admin/access-tokens", adminToken, {
      name: unique("revoked"),
      scopes: ["tenants:read"],
    });
    expect(created.status).toBe(201);
    const token = created.body.token as string;
    const seen = new Set<string | null>();
    for (let i = 0; i < 4; i++) {
      const answer = await call("GET", "/api/v1/profile/whoami", token);
      expect(answer.status).toBe(200);
      seen.add(answer.backend);
    }
    expect(seen.size).toBe(2);
    const revoked = await call(
      "POST",
      `/api/v1/admin/access-tokens/${String(created.body.id)}/revoke`,
      adminToken,
    );
    expect(revoked.status).toBe(200);
    const refusedBy = new Set<string | null>();
    for (let i = 0; i < 4; i++) {
      const answer = await call("GET", "/api/v1/profile/whoami", token);
      expect(answer.status).toBe(401);
      refusedBy.add(answer.backend);
    }
    expect(refusedBy.size).toBe(2);
  });

  it("transition requests accepted by either process are carried out by the workers; a retry is answered alike by both", async () => {
    const tenant = await provisionTenant();
    const entity = await call("POST", "/api/v1/admin/entities", tenant.token, {
      kind: "product",
      attributes: { name: "Widget" },
    });
    expect(entity.status).toBe(201);
    const headers = { "x-tenant-id": tenant.id, "x-idempotency-key": unique("submit") };
    const body = { entity: "product", entityId: entity.body.id, transition: "submit" };
    const first = await call("POST", "/api/v1/workflows/transition-requests", tenant.token, body, headers);
    const again = await call("POST", "/api/v1/workflows/transition-requests", tenant.token, body, headers);
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(new Set([first.backend, again.backend]).size).toBe(2);
    expect(again.body).toEqual(first.body);
    const statusUrl = first.body.statusUrl as string;
    await waitUntil(async () => (await call("GET", statusUrl, tenant.token)).body.status === "succeeded", {
      what: "the transition by a worker process",
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    const read = await call("GET", `/api/v1/admin/entities/${String(entity.body.id)}`, tenant.token);
    expect(read.body.state).toBe("in_review");
  });

  it("failed sign-ins counted by both API processes lock the address out together: the eleventh is 429 on either", async () => {
    const tenant = await provisionTenant();
    const signIn = (password: string) =>
      call("POST", "/api/v1/auth/sessions", undefined, {
        tenant: tenant.slug,
        email: tenant.email,
        password,
      });
    const failedOn = new Set<string | null>();
    for (let i = 0; i < 10; i++) {
      const failed = await signIn("Wr0ng-p4ssword-guess");
      expect(failed.status).toBe(401);
      failedOn.add(failed.backend);
    }
    // Each process saw five failures, half of what locks the address out on its own.
    expect(failedOn.size).toBe(2);
    const limitedBy = new Set<string | null>();
    for (let i = 0; i < 4; i++) {
      const limited = await signIn(i % 2 === 0 ? "Wr0ng-p4ssword-guess" : "correct horse battery staple");
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe("ERR_RATE_LIMITED");
      limitedBy.add(limited.backend);
    }
    expect(limitedBy.size).toBe(2);
  });
});
