import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../../platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../../../../test/support/fixtures.js";
import { createTestApp, type TestApp } from "../../../../test/support/test-app.js";
import { addressKey } from "./sign-in-throttle.js";

const clock = createManualClock(new Date());
let t: TestApp;
beforeAll(async () => {
  // A small account ceiling, so that passing it takes a dozen scrypt checks, not a hundred.
  t = await createTestApp({ clock, env: { HANSE_SIGN_IN_ACCOUNT_FAILURES: "12" } });
});
afterAll(async () => {
  await t.close();
});

const wrongPassword = "Wr0ng-p4ssword-guess";

function signIn(
  tenant: ProvisionedTenant,
  from: string,
  password: string,
  headers: Record<string, string> = {},
) {
  return t.inject({
    method: "POST",
    url: "/api/v1/auth/sessions",
    remoteAddress: from,
    headers,
    payload: { tenant: tenant.slug, email: tenant.email, password },
  });
}

describe("issue 20 defect 8: failed sign-ins cannot lock an account out (OWASP authentication guidance)", () => {
  it("an address that keeps failing gets 429 with Retry-After; the right password from another address is still accepted", async () => {
    const tenant = await provisionTenant(t);
    const attacker = "203.0.113.7";
    for (let i = 0; i < 10; i++) expect((await signIn(tenant, attacker, wrongPassword)).statusCode).toBe(401);
    const limited = await signIn(tenant, attacker, wrongPassword);
    expect(limited.statusCode).toBe(429);
    expect(limited.json<{ code: string }>().code).toBe("ERR_RATE_LIMITED");
    expect(limited.headers["retry-after"]).toBe("30");
    // The attacker's address learns nothing, even with the right password.
    expect((await signIn(tenant, attacker, tenant.password)).statusCode).toBe(429);
    // X-Forwarded-For is not believed unless HANSE_TRUST_PROXY names the proxy.
    expect(
      (await signIn(tenant, attacker, tenant.password, { "x-forwarded-for": "192.0.2.99" })).statusCode,
    ).toBe(429);

    const owner = await signIn(tenant, "198.51.100.20", tenant.password);
    expect(owner.statusCode).toBe(201);
    // Wrong credentials from the owner's address are still the same 401.
    const wrong = await signIn(tenant, "198.51.100.20", wrongPassword);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json<{ code: string }>().code).toBe("ERR_UNAUTHENTICATED");

    clock.advance(30_000);
    expect((await signIn(tenant, attacker, tenant.password)).statusCode).toBe(201);
    expect(t.logs.join("\n")).not.toContain(wrongPassword);
    expect(t.logs.join("\n")).not.toContain(tenant.password);
  });

  it("past the account's ceiling (HANSE_SIGN_IN_ACCOUNT_FAILURES from many addresses) a correct password from a new address is accepted after a delay; wrong ones stay 401", async () => {
    const tenant = await provisionTenant(t);
    for (let a = 1; a <= 4; a++) {
      const from = `192.0.2.${String(a)}`;
      const answers = await Promise.all(Array.from({ length: 4 }, () => signIn(tenant, from, wrongPassword)));
      expect(answers.map((r) => r.statusCode)).toEqual(answers.map(() => 401));
    }
    const [wrong, right, again] = await Promise.all([
      signIn(tenant, "198.51.100.77", wrongPassword),
      signIn(tenant, "198.51.100.78", tenant.password),
      signIn(tenant, "198.51.100.79", wrongPassword),
    ]);
    expect([wrong.statusCode, right.statusCode, again.statusCode]).toEqual([401, 201, 401]);
    expect(t.logs.join("\n")).not.toContain(wrongPassword);
  });

  it("an IPv6 client counts by its /64 network: another address of the same /64 is held back too", async () => {
    const tenant = await provisionTenant(t);
    for (let i = 0; i < 10; i++) {
      expect((await signIn(tenant, `2001:db8:1:2::${String(i + 1)}`, wrongPassword)).statusCode).toBe(401);
    }
    expect((await signIn(tenant, "2001:db8:1:2:ffff::9", tenant.password)).statusCode).toBe(429);
    expect((await signIn(tenant, "2001:db8:1:3::1", tenant.password)).statusCode).toBe(201);
    expect(addressKey("2001:DB8:0001:0002:0:0:0:1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressKey("192.0.2.1")).toBe("192.0.2.1");
  });
});

describe("issue 20 defect 8: the client address behind a reverse proxy (HANSE_TRUST_PROXY)", () => {
  it("X-Forwarded-For names the client only when the peer is a configured proxy", async () => {
    const proxied = await createTestApp({ env: { HANSE_TRUST_PROXY: "10.0.0.1" } });
    try {
      const tenant = await provisionTenant(proxied);
      const viaProxy = (client: string, password: string) =>
        proxied.inject({
          method: "POST",
          url: "/api/v1/auth/sessions",
          remoteAddress: "10.0.0.1",
          headers: { "x-forwarded-for": client },
          payload: { tenant: tenant.slug, email: tenant.email, password },
        });
      for (let i = 0; i < 10; i++)
        expect((await viaProxy("203.0.113.9", wrongPassword)).statusCode).toBe(401);
      expect((await viaProxy("203.0.113.9", tenant.password)).statusCode).toBe(429);
      // Another client behind the same proxy is another address.
      expect((await viaProxy("198.51.100.5", tenant.password)).statusCode).toBe(201);
    } finally {
      await proxied.close();
    }
  });
});
