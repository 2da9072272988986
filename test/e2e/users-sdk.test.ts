// remote mode: in-process only: HANSE_SSO_ALLOW_INSECURE of its own (the test identity provider on 127.0.0.1)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EntrypointMissingError, HanseApiError, createClient, type HanseClient } from "@hanse/client";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startTestIssuer, type TestIssuer } from "../support/oidc-issuer.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { acceptInvitation, addUser } from "../support/users.js";

/**
 * Issue 32: the SDK's `client.users`, `client.password` and `client.sso` over HTTP against the
 * real server, through the published entries `admin.users`, `auth.password` and `admin.sso`.
 */
let t: TestApp;
let idp: TestIssuer;
let baseUrl: string;
let tenant: ProvisionedTenant;
let owner: HanseClient;

beforeAll(async () => {
  idp = await startTestIssuer();
  t = await createTestApp({ env: { HANSE_SSO_ALLOW_INSECURE: "1" } });
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  tenant = await provisionTenant(t);
  owner = createClient({ baseUrl, token: tenant.token });
});
afterAll(async () => {
  await t.close();
  await idp.close();
});

/** The API error a call rejects with. */
async function apiError(call: Promise<unknown>): Promise<HanseApiError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HanseApiError);
  return error as HanseApiError;
}

describe("SDK client.users (admin.users)", () => {
  it("invite, get, list, update, resetPassword and reissueInvitation follow the published actions", async () => {
    const invited = await owner.users.invite({
      email: "sdk-ops@example.test",
      name: "SDK Ops",
      role: "viewer",
    });
    expect(invited).toMatchObject({ email: "sdk-ops@example.test", name: "SDK Ops", status: "invited" });
    expect(invited.invitation.token).toMatch(/^hanse_it_/);
    expect(await owner.users.get(invited.id)).toMatchObject({ id: invited.id, role: "viewer" });

    const page = await owner.users.list({ limit: 100 });
    expect(page.items.map((u) => u.id)).toContain(invited.id);
    const newest = await owner.users.list({ limit: 1, order: "desc" });
    expect(newest.items[0]?.id).toBe(invited.id);
    expect(newest.meta.hasMore).toBe(true);

    const again = await owner.users.reissueInvitation(invited.id);
    expect(again.token).not.toBe(invited.invitation.token);
    expect(
      (await acceptInvitation(t, { token: invited.invitation.token, password: "x".repeat(20) })).statusCode,
    ).toBe(401);
    const accepted = await acceptInvitation(t, {
      token: again.token,
      password: "a passphrase of the sdk ops",
    });
    expect(accepted.statusCode).toBe(201);

    expect(await owner.users.update(invited.id, { role: "admin", name: "Ops" })).toMatchObject({
      role: "admin",
      name: "Ops",
      status: "active",
    });
    const reset = await owner.users.resetPassword(invited.id);
    expect(reset.token).toMatch(/^hanse_rt_/);
    expect(Date.parse(reset.expiresAt)).toBeGreaterThan(Date.now());
    expect((await owner.users.update(invited.id, { status: "deactivated" })).status).toBe("deactivated");
    expect((await owner.users.update(invited.id, { status: "active" })).status).toBe("active");
  });

  it("bad input and refusals reject with HanseApiError: the status, code and pointer", async () => {
    const invalid = await apiError(owner.users.invite({ email: "not an address", role: "viewer" }));
    expect(invalid.status).toBe(400);
    expect(invalid.errors?.map((e) => e.pointer)).toContain("/email");
    await owner.users.invite({ email: "twice@example.test", role: "viewer" });
    expect((await apiError(owner.users.invite({ email: "TWICE@example.test", role: "viewer" }))).code).toBe(
      "ERR_CONFLICT",
    );
    const member = await addUser(t, tenant, "viewer");
    expect((await apiError(owner.users.reissueInvitation(member.id))).code).toBe("ERR_CONFLICT");
    expect((await apiError(owner.users.get("0190a0a0-0000-7000-8000-000000000000"))).status).toBe(404);
    // A viewer's session does not publish the writing actions: refused before any request is sent.
    const viewer = createClient({ baseUrl, token: member.token });
    expect((await viewer.users.list()).items.length).toBeGreaterThan(0);
    await expect(viewer.users.invite({ email: "no@example.test", role: "viewer" })).rejects.toBeInstanceOf(
      EntrypointMissingError,
    );
  });
});

describe("SDK client.password (auth.password)", () => {
  it("change: a wrong current password is 400 at /currentPassword; then the new one signs in and the old one does not", async () => {
    const member = await addUser(t, tenant, "viewer");
    const client = createClient({ baseUrl, token: member.token });
    const wrong = await apiError(
      client.password.change({
        currentPassword: "not the password at all",
        newPassword: "a brand new passphrase",
      }),
    );
    expect(wrong.status).toBe(400);
    expect(wrong.errors?.map((e) => e.pointer)).toEqual(["/currentPassword"]);
    const weak = await apiError(
      client.password.change({ currentPassword: member.password, newPassword: "short" }),
    );
    expect(weak.errors?.map((e) => e.pointer)).toEqual(["/newPassword"]);

    await client.password.change({ currentPassword: member.password, newPassword: "a brand new passphrase" });
    const signIn = (password: string) =>
      t.inject({
        method: "POST",
        url: "/api/v1/auth/sessions",
        payload: { tenant: tenant.slug, email: member.email, password },
      });
    expect((await signIn("a brand new passphrase")).statusCode).toBe(201);
    expect((await signIn(member.password)).statusCode).toBe(401);
    // An access token proves no password.
    const token = (
      await t.inject({
        method: "POST",
        url: "/api/v1/admin/access-tokens",
        headers: bearer(tenant.token),
        payload: { name: "sdk", scopes: ["admin:read"] },
      })
    ).json<{ token: string }>().token;
    const denied = await apiError(
      createClient({ baseUrl, token }).password.change({ currentPassword: "x", newPassword: "y".repeat(20) }),
    );
    expect(denied.status).toBe(403);
  });
});

describe("SDK client.sso (admin.sso)", () => {
  it("set returns the setting without the secret, get the same, remove turns it off (get is then 404)", async () => {
    const other = await provisionTenant(t);
    const client = createClient({ baseUrl, token: other.token });
    expect((await apiError(client.sso.get())).status).toBe(404);
    const saved = await client.sso.set({
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      autoCreate: { role: "viewer", emailDomains: ["acme.example"] },
    });
    expect(Object.keys(saved).sort()).toEqual(["autoCreate", "clientId", "issuer", "updatedAt"]);
    expect(saved).toMatchObject({
      issuer: idp.issuer,
      autoCreate: { role: "viewer", emailDomains: ["acme.example"] },
    });
    expect(await client.sso.get()).toEqual(saved);
    await client.sso.remove();
    expect((await apiError(client.sso.get())).code).toBe("ERR_NOT_FOUND");
    expect((await apiError(client.sso.remove())).status).toBe(404);
  });

  it("an issuer that does not answer is 400 at /issuer; a viewer cannot set it (not published to it)", async () => {
    const bad = await apiError(
      owner.sso.set({
        issuer: "http://127.0.0.1:9/nothing",
        clientId: "c",
        clientSecret: "s",
        autoCreate: null,
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.errors?.map((e) => e.pointer)).toEqual(["/issuer"]);
    const viewer = createClient({ baseUrl, token: (await addUser(t, tenant, "viewer")).token });
    await expect(
      viewer.sso.set({ issuer: idp.issuer, clientId: "c", clientSecret: "s", autoCreate: null }),
    ).rejects.toBeInstanceOf(EntrypointMissingError);
    expect((await apiError(viewer.sso.get())).status).toBe(404);
  });
});
