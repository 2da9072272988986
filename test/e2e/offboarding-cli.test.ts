// remote mode: in-process only: a webhook receiver's settings of its own
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAppWithBinding, createCliRunner } from "../support/cli-runner.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startHttpsReceiver, webhookReceiverEnv, type HttpsReceiver } from "../support/https-receiver.js";
import { signedHeaders } from "../support/service-signer.js";
import { bootstrapToken, createTestApp, type TestApp } from "../support/test-app.js";

/*
 * Issue 33 item 4 (rules/contract §7, offboarding) through the `hanse` CLI: `bindings revoke`,
 * `webhooks delete`, `tenants suspend` and `tenants resume`, each with its effect checked over HTTP.
 */
let t: TestApp;
let baseUrl: string;
let tenant: ProvisionedTenant;
let receiver: HttpsReceiver;
let token = "";
const { hanse } = createCliRunner(() => ({
  HANSE_URL: baseUrl,
  HANSE_TOKEN: token,
  HANSE_CLI_CONFIG: "/nonexistent/credentials.json",
}));

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await createTestApp({ env: webhookReceiverEnv(receiver) });
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  tenant = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const introspect = (credential: { credentialId: string; secret: string }) => {
  const target = "/api/v1/public/v1/app-entitlements/service/introspect/alice";
  return t.inject({ method: "GET", url: target, headers: signedHeaders(credential, "GET", target) });
};

describe("hanse offboarding commands (issue 33 item 4)", () => {
  it("hanse bindings revoke: the binding's credential is refused afterwards; --json shows the revoked binding; an unknown id exits 1", async () => {
    token = tenant.token;
    const binding = await createAppWithBinding(hanse, "offboard-cli");
    expect((await introspect(binding)).statusCode).toBe(200);
    const revoked = await hanse(["bindings", "revoke", binding.id]);
    expect(revoked.exitCode, revoked.err).toBe(0);
    expect(revoked.out).toMatch(new RegExp(`^revoked binding ${binding.id} at \\d{4}-`));
    expect((await introspect(binding)).json()).toMatchObject({ code: "ERR_SERVICE_AUTH_INVALID_CREDENTIAL" });
    const again = await hanse(["bindings", "revoke", binding.id, "--json"]);
    expect(JSON.parse(again.out)).toMatchObject({ id: binding.id, status: "revoked" });
    const unknown = await hanse(["bindings", "revoke", "0190a0a0-0000-7000-8000-000000000000"]);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.err).toContain("ERR_NOT_FOUND");
  });

  it("hanse webhooks delete: the subscription is gone (show exits 1 with ERR_NOT_FOUND)", async () => {
    token = tenant.token;
    const binding = await createAppWithBinding(hanse, "offboard-hooks");
    const created = await hanse([
      "webhooks",
      "create",
      "--binding",
      binding.id,
      "--url",
      receiver.url,
      "--json",
    ]);
    expect(created.exitCode, created.err).toBe(0);
    const { id } = JSON.parse(created.out) as { id: string };
    const deleted = await hanse(["webhooks", "delete", id]);
    expect(deleted.exitCode, deleted.err).toBe(0);
    expect(deleted.out).toContain(`deleted webhook subscription ${id}`);
    const shown = await hanse(["webhooks", "show", id]);
    expect(shown.exitCode).toBe(1);
    expect(shown.err).toContain("ERR_NOT_FOUND");
  });

  it("hanse tenants suspend and resume: the tenant's session is refused while suspended and works again after; the system tenant exits 1 with ERR_CONFLICT", async () => {
    token = bootstrapToken;
    const whoami = () =>
      t.inject({
        method: "GET",
        url: "/api/v1/profile/whoami",
        headers: { authorization: `Bearer ${tenant.token}` },
      });
    const suspended = await hanse(["tenants", "suspend", tenant.id]);
    expect(suspended.exitCode, suspended.err).toBe(0);
    expect(suspended.out).toMatch(/Status:\s+suspended/);
    expect((await whoami()).statusCode).toBe(401);
    const resumed = await hanse(["tenants", "resume", tenant.id, "--json"]);
    expect(resumed.exitCode, resumed.err).toBe(0);
    expect(JSON.parse(resumed.out)).toMatchObject({ id: tenant.id, status: "active" });
    expect((await whoami()).statusCode).toBe(200);
    const systemId = (
      await t.inject({
        method: "GET",
        url: "/api/v1/profile/whoami",
        headers: { authorization: `Bearer ${bootstrapToken}` },
      })
    ).json<{ tenant: { id: string } }>().tenant.id;
    const system = await hanse(["tenants", "suspend", systemId]);
    expect(system.exitCode).toBe(1);
    expect(system.err).toContain("ERR_CONFLICT");
  });
});
