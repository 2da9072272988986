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
    // The key is named by an opaque reference instead (spec D rule 6, CONTRACT §1).
    expect(t.logs.some((line) => /"idempotencyRef":"idem_[0-9a-f]{16}"/.test(line))).toBe(true);
    for (const line of t.logs) {
      for (const secret of secrets)
        expect(line, `log line leaks a secret: ${line.slice(0, 200)}`).not.toContain(secret);
    }
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
