// remote mode: in-process only: reads the server's log lines
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapToken, adminHeaders, bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { uniqueSlug } from "../support/fixtures.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe("secrets never reach a log line", () => {
  it("a full flow with passwords, tokens and idempotency keys leaves none of them in any log line", async () => {
    const slug = uniqueSlug("logs");
    const password = "Pa55word-that-must-not-leak";
    const idempotencyKey = "customer-42-order-for-ACME-GmbH";
    const created = await t.inject({
      method: "POST",
      url: "/api/v1/system/tenants",
      headers: { ...adminHeaders, "idempotency-key": idempotencyKey, "x-correlation-id": "flow-1" },
      payload: { name: "Logs", slug, admin: { email: `a@${slug}.test`, password } },
    });
    expect(created.statusCode).toBe(202);
    // A replay and a mismatch, both of which log.
    await t.inject({
      method: "POST",
      url: "/api/v1/system/tenants",
      headers: { ...adminHeaders, "idempotency-key": idempotencyKey },
      payload: { name: "Logs", slug, admin: { email: `a@${slug}.test`, password } },
    });
    await t.inject({
      method: "POST",
      url: "/api/v1/system/tenants",
      headers: { ...adminHeaders, "idempotency-key": idempotencyKey },
      payload: { name: "Other", slug, admin: { email: `a@${slug}.test`, password } },
    });
    await t.drainJobs();
    const session = await t.inject({
      method: "POST",
      url: "/api/v1/auth/sessions",
      headers: { cookie: "sid=cookie-secret-value" },
      payload: { tenant: slug, email: `a@${slug}.test`, password },
    });
    const sessionToken = session.json<{ token: string }>().token;
    const failedLogin = await t.inject({
      method: "POST",
      url: "/api/v1/auth/sessions",
      payload: { tenant: slug, email: `a@${slug}.test`, password: `${password}-wrong` },
    });
    expect(failedLogin.statusCode).toBe(401);
    const accessToken = (
      await t.inject({
        method: "POST",
        url: "/api/v1/admin/access-tokens",
        headers: bearer(sessionToken),
        payload: { name: "ci", scopes: ["admin:read"] },
      })
    ).json<{ token: string }>().token;
    await t.inject({ method: "GET", url: "/api/v1/profile/whoami", headers: bearer(accessToken) });
    await t.inject({ method: "GET", url: "/api/v1/profile/whoami", headers: bearer(`${accessToken}x`) });
    await t.inject({
      method: "GET",
      url: "/api/v1/profile/whoami",
      headers: {
        authorization: "Bearer",
        "x-b2b-claim-token": "claim-secret",
        "x-platform-service-signature": "sig-secret",
      },
    });

    const secrets = [
      bootstrapToken,
      password,
      idempotencyKey,
      sessionToken,
      accessToken,
      "cookie-secret-value",
      "claim-secret",
      "sig-secret",
    ];
    expect(t.logs.length).toBeGreaterThan(10);
    expect(t.logs.some((line) => line.includes('"correlationId":"flow-1"'))).toBe(true);
    // The key is named by an opaque reference instead (rules/interface D rule 6, rules/contract §1).
    expect(t.logs.some((line) => /"idempotencyRef":"idem_[0-9a-f]{16}"/.test(line))).toBe(true);
    for (const line of t.logs) {
      for (const secret of secrets)
        expect(line, `log line leaks a secret: ${line.slice(0, 200)}`).not.toContain(secret);
    }
  });

  it("a failed statement's values never reach the log (drivers attach query and params to errors)", () => {
    const before = t.logs.length;
    const failure = Object.assign(new Error("insert failed"), {
      code: "XX000",
      query: "INSERT INTO users (password_hash) VALUES ($1)",
      params: ["scrypt$32768$8$1$hash-that-must-not-leak"],
      queryOptions: { rowMode: "object" },
    });
    t.container.logger.error({ err: failure }, "job failed");
    const line = t.logs.slice(before).join("\n");
    expect(line).toContain("insert failed");
    expect(line).not.toContain("hash-that-must-not-leak");
    expect(line).not.toContain("INSERT INTO users");
  });

  it("a NUL character in a body or a query is 400 ERR_VALIDATION, not a database failure; nothing is created or logged", async () => {
    const slug = uniqueSlug("nul");
    const before = t.logs.length;
    const created = await t.inject({
      method: "POST",
      url: "/api/v1/system/tenants",
      headers: { ...adminHeaders, "idempotency-key": `nul-${slug}`, "content-type": "application/json" },
      payload: JSON.stringify({
        name: "Nul",
        slug,
        admin: { email: `x\u0000@${slug}.test`, password: "Sup3r-Secret-Admin-Pw" },
      }),
    });
    expect(created.statusCode).toBe(400);
    expect(created.json<{ code: string }>().code).toBe("ERR_VALIDATION");
    const login = await t.inject({
      method: "POST",
      url: "/api/v1/auth/sessions",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ tenant: slug, email: "a\u0000@a.test", password: "whatever-it-is" }),
    });
    expect(login.statusCode).toBe(400);
    // A query string reaches the database as it is: the database's refusal is the client's 400.
    const query = await t.inject({
      method: "GET",
      url: "/api/v1/admin/entities?kind=pro%00duct",
      headers: adminHeaders,
    });
    expect(query.statusCode).toBe(400);
    expect(query.json<{ code: string }>().code).toBe("ERR_VALIDATION");
    const found = await t.inject({
      method: "GET",
      url: "/api/v1/system/tenants?limit=100",
      headers: adminHeaders,
    });
    expect(found.json<{ items: { slug: string }[] }>().items.map((i) => i.slug)).not.toContain(slug);
    const lines = t.logs.slice(before).join("\n");
    expect(lines).not.toContain("Sup3r-Secret-Admin-Pw");
    expect(lines).not.toContain("scrypt$");
  });

  it("credential headers and secret-named fields are redacted at any depth", () => {
    const before = t.logs.length;
    t.container.logger.info(
      {
        req: { headers: { authorization: "Bearer live-token", "x-idempotency-key": "idem-secret" } },
        nested: {
          deeper: { clientSecret: "client-secret-value", password: "pw-value", apiKey: "key-value" },
        },
        list: [{ token: "list-token-value" }],
        harmless: "visible-value",
      },
      "probe",
    );
    const line = t.logs.slice(before).join("\n");
    expect(line).toContain("visible-value");
    for (const secret of [
      "live-token",
      "idem-secret",
      "client-secret-value",
      "pw-value",
      "key-value",
      "list-token-value",
    ]) {
      expect(line).not.toContain(secret);
    }
  });
});
