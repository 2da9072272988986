// remote mode: in-process only: a fake clock, HANSE_SSO_ALLOW_INSECURE and HANSE_PUBLIC_URL of its own (the test identity provider)
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startTestIssuer, type IdTokenTampering, type TestIssuer } from "../support/oidc-issuer.js";
import {
  cookieOf,
  expectSsoRefused,
  ssoCallbackPath,
  ssoCounts,
  ssoSettingsOf,
  ssoSettingsUrl,
  tenantWithSso,
} from "../support/sso.js";
import { adminHeaders, bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { addUser, expectProblem, patchUser } from "../support/users.js";

/**
 * Issue 32 step 7, rules/contract §7 "Single sign-on": a tenant's OpenID Connect settings, the
 * redirect to the issuer and the callback, against a test double of the identity provider
 * (test/support/oidc-issuer.ts) on 127.0.0.1 (hence HANSE_SSO_ALLOW_INSECURE=1). The app's
 * clock and the issuer's are the test's.
 */
const clock = createManualClock(new Date());
const ssoUrl = ssoSettingsUrl;
const callbackPath = ssoCallbackPath;
let t: TestApp;
let idp: TestIssuer;
let tenant: ProvisionedTenant;

beforeAll(async () => {
  idp = await startTestIssuer({ now: () => clock.now() });
  t = await createTestApp({ clock, env: { HANSE_SSO_ALLOW_INSECURE: "1" } });
  tenant = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
  await idp.close();
});

const settings = (overrides: Record<string, unknown> = {}) => ssoSettingsOf(idp, overrides);
const put = (token: string, body: unknown) =>
  t.inject({ method: "PUT", url: ssoUrl, headers: bearer(token), payload: body as object });
const get = (token: string) => t.inject({ method: "GET", url: ssoUrl, headers: bearer(token) });
const start = (slug: string, returnTo?: string) =>
  t.inject({
    method: "GET",
    url: `/api/v1/auth/sso/${slug}${returnTo === undefined ? "" : `?returnTo=${encodeURIComponent(returnTo)}`}`,
  });

/** The browser at the issuer: follows the authorization URL, returns the callback URL (path and query). */
async function authorizeAt(location: string): Promise<string> {
  const answer = await fetch(location, { redirect: "manual" });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get("location") ?? "");
  return `${back.pathname}${back.search}`;
}

/** Starts a sign-in of `tenant` and comes back from the issuer: the callback URL, unused. */
async function callbackUrl(slug = tenant.slug, returnTo?: string): Promise<string> {
  const started = await start(slug, returnTo);
  expect(started.statusCode, started.body).toBe(302);
  return authorizeAt(String(started.headers.location));
}

const callback = (url: string) => t.inject({ method: "GET", url });

const counts = (tenantId: string) => ssoCounts(t, tenantId);
const expectRefused = (url: string, tenantId = tenant.id) => expectSsoRefused(t, url, tenantId);

describe("rules/contract §7 single sign-on: settings", () => {
  it("PUT returns the settings without the secret, GET the same, DELETE removes them; the secret is sealed and never logged", async () => {
    const other = await provisionTenant(t);
    expectProblem(await get(other.token), 404, "ERR_NOT_FOUND");
    const saved = await put(
      other.token,
      settings({ autoCreate: { role: "viewer", emailDomains: ["Acme.Example"] } }),
    );
    expect(saved.statusCode, saved.body).toBe(200);
    const body = saved.json<Record<string, unknown>>();
    expect(Object.keys(body).sort()).toEqual(["autoCreate", "clientId", "issuer", "updatedAt"]);
    expect(body).toMatchObject({
      issuer: idp.issuer,
      clientId: idp.clientId,
      autoCreate: { role: "viewer", emailDomains: ["acme.example"] },
    });
    const read = await get(other.token);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(body);
    const { rows } = await sql<{ client_secret: string }>`SELECT client_secret FROM sso_settings
      WHERE tenant_id = ${other.id}`.execute(t.container.database.db);
    expect(rows[0]?.client_secret).toMatch(/^v2\./);
    expect(rows[0]?.client_secret).not.toContain(idp.clientSecret);
    expect(t.logs.some((line) => line.includes(idp.clientSecret))).toBe(false);
    expect(saved.body + read.body).not.toContain(idp.clientSecret);

    const removed = await t.inject({ method: "DELETE", url: ssoUrl, headers: bearer(other.token) });
    expect(removed.statusCode).toBe(204);
    expectProblem(await get(other.token), 404, "ERR_NOT_FOUND");
    expectProblem(
      await t.inject({ method: "DELETE", url: ssoUrl, headers: bearer(other.token) }),
      404,
      "ERR_NOT_FOUND",
    );
    expectProblem(await start(other.slug), 404, "ERR_NOT_FOUND");

    // rules/contract §7 audit: sso.updated for the save (the fields, never the secret) and the removal.
    const records = await t.inject({
      method: "GET",
      url: "/api/v1/admin/audit-events?type=sso.updated",
      headers: bearer(other.token),
    });
    expect(records.statusCode, records.body).toBe(200);
    const items = records.json<{ items: Record<string, unknown>[] }>().items;
    // Both at the test clock's one instant: in either order.
    expect(items).toHaveLength(2);
    expect(items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: "sso.updated",
          targetId: other.id,
          changes: ["issuer", "clientId", "clientSecret", "autoCreate"],
        }),
        expect.objectContaining({ type: "sso.updated", targetId: other.id, data: { deleted: true } }),
      ]),
    );
    expect(records.body).not.toContain(idp.clientSecret);
  });

  it("a body without the client secret, or with an unknown role or a bad domain, is 400 and nothing is saved", async () => {
    const other = await provisionTenant(t);
    const { clientSecret: _secret, ...withoutSecret } = settings();
    for (const body of [
      withoutSecret,
      settings({ autoCreate: { role: "superuser", emailDomains: ["acme.example"] } }),
      settings({ autoCreate: { role: "viewer", emailDomains: ["not a domain"] } }),
      settings({ autoCreate: { role: "viewer", emailDomains: [] } }),
      settings({ extra: true }),
    ]) {
      expectProblem(await put(other.token, body), 400, "ERR_VALIDATION");
    }
    expectProblem(await get(other.token), 404, "ERR_NOT_FOUND");
  });

  it("users:write changes and users:read reads: an admin may read but not change, a viewer likewise", async () => {
    const other = await provisionTenant(t);
    expect((await put(other.token, settings())).statusCode).toBe(200);
    const admin = await addUser(t, other, "admin");
    const viewer = await addUser(t, other, "viewer");
    for (const user of [admin, viewer]) {
      expect((await get(user.token)).statusCode).toBe(200);
      expectProblem(await put(user.token, settings()), 403, "ERR_FORBIDDEN");
      expectProblem(
        await t.inject({ method: "DELETE", url: ssoUrl, headers: bearer(user.token) }),
        403,
        "ERR_FORBIDDEN",
      );
    }
    expectProblem(await t.inject({ method: "GET", url: ssoUrl }), 401, "ERR_UNAUTHENTICATED");
  });

  it("an issuer that does not answer with a matching discovery document is 400 at /issuer, and nothing is saved", async () => {
    const other = await provisionTenant(t);
    const refusedAt = async (body: unknown) => {
      const problem = expectProblem(await put(other.token, body), 400, "ERR_VALIDATION");
      expect(problem.errors?.map((e) => e.pointer)).toEqual(["/issuer"]);
    };
    await refusedAt(settings({ issuer: "http://127.0.0.1:1" }));
    await refusedAt(settings({ issuer: `${idp.issuer}/elsewhere` }));
    await refusedAt(settings({ issuer: "not a url" }));
    idp.discovery = { issuer: "https://another.example" };
    try {
      await refusedAt(settings());
    } finally {
      idp.discovery = {};
    }
    idp.discovery = { jwks_uri: undefined };
    try {
      await refusedAt(settings());
    } finally {
      idp.discovery = {};
    }
    expectProblem(await get(other.token), 404, "ERR_NOT_FOUND");
  });

  it("without HANSE_SSO_ALLOW_INSECURE an http issuer, or one on a private address, is 400 at /issuer", async () => {
    const strict = await createTestApp({ clock });
    try {
      const other = await provisionTenant(strict);
      for (const issuer of [idp.issuer, "https://127.0.0.1", "https://10.1.2.3/realms/x"]) {
        const answer = await strict.inject({
          method: "PUT",
          url: ssoUrl,
          headers: bearer(other.token),
          payload: settings({ issuer }),
        });
        const problem = expectProblem(answer, 400, "ERR_VALIDATION");
        expect(
          problem.errors?.map((e) => e.pointer),
          issuer,
        ).toEqual(["/issuer"]);
      }
    } finally {
      await strict.close();
    }
  });
});

describe("rules/contract §7 single sign-on: the redirect to the issuer", () => {
  beforeAll(async () => {
    const saved = await put(tenant.token, settings());
    expect(saved.statusCode, saved.body).toBe(200);
  });

  it("302 to the authorization endpoint with code flow, client, redirect URI, openid email scope, state, nonce and an S256 challenge", async () => {
    const answer = await start(tenant.slug, "/console/#/users");
    expect(answer.statusCode).toBe(302);
    const location = new URL(String(answer.headers.location));
    expect(`${location.origin}${location.pathname}`).toBe(`${idp.issuer}/authorize`);
    const query = location.searchParams;
    expect(query.get("response_type")).toBe("code");
    expect(query.get("client_id")).toBe(idp.clientId);
    expect(query.get("redirect_uri")).toBe(`${t.config.HANSE_PUBLIC_URL}${callbackPath}`);
    expect(query.get("scope")?.split(" ")).toEqual(expect.arrayContaining(["openid", "email"]));
    expect(query.get("state")).toMatch(/^.{32,}$/);
    expect(query.get("nonce")).toMatch(/^.{32,}$/);
    expect(query.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(query.get("code_challenge_method")).toBe("S256");
    // Each sign-in has its own state, nonce and challenge.
    const again = new URL(String((await start(tenant.slug)).headers.location)).searchParams;
    for (const name of ["state", "nonce", "code_challenge"])
      expect(again.get(name)).not.toBe(query.get(name));
  });

  it("a tenant without single sign-on, or an unknown one, is 404", async () => {
    const other = await provisionTenant(t);
    expectProblem(await start(other.slug), 404, "ERR_NOT_FOUND");
    expectProblem(await start("no-such-tenant-slug"), 404, "ERR_NOT_FOUND");
  });

  it("returnTo must be a path on Hanse: another origin is 400", async () => {
    for (const returnTo of [
      "https://evil.example/",
      "//evil.example/x",
      "/\\evil.example",
      "console",
      "javascript:alert(1)",
    ]) {
      const problem = expectProblem(await start(tenant.slug, returnTo), 400, "ERR_VALIDATION");
      expect(
        problem.errors?.map((e) => e.pointer),
        returnTo,
      ).toEqual(["/query/returnTo"]);
    }
  });
});

describe("rules/contract §7 single sign-on: the callback", () => {
  let member: { id: string; email: string };
  beforeAll(async () => {
    const saved = await put(tenant.token, settings());
    expect(saved.statusCode, saved.body).toBe(200);
    member = await addUser(t, tenant, "admin");
  });

  it("signs an active user in: 303 to returnTo with the console's cookie; /console/session 200; the session's method is sso", async () => {
    idp.signIn = { email: member.email.toUpperCase() };
    const url = await callbackUrl(tenant.slug, "/console/#/users");
    const answer = await callback(url);
    expect(answer.statusCode, answer.body).toBe(303);
    expect(answer.headers.location).toBe("/console/#/users");
    const cookie = cookieOf(answer);
    expect(cookie).toMatch(/^hanse_console=v2\./);
    expect(String(answer.headers["set-cookie"])).toMatch(/Path=\/console; .*HttpOnly; SameSite=Strict/);

    const session = await t.inject({ method: "GET", url: "/console/session", headers: { cookie } });
    expect(session.statusCode, session.body).toBe(200);
    const whoami = session.json<{
      whoami: { principal: { id: string; role: string }; tenant: { slug: string } };
    }>().whoami;
    expect(whoami.principal).toMatchObject({ id: member.id, role: "admin" });
    expect(whoami.tenant.slug).toBe(tenant.slug);

    const sessions = await t.inject({
      method: "GET",
      url: "/console/api/auth/sessions",
      headers: { cookie },
    });
    expect(sessions.statusCode, sessions.body).toBe(200);
    const current = sessions
      .json<{ items: { id: string; current: boolean; method: string }[] }>()
      .items.find((s) => s.current);
    expect(current?.method).toBe("sso");
    // rules/contract §7 audit: the sign-in is a session.created record with method sso, naming the session.
    const created = await t.inject({
      method: "GET",
      url: `/api/v1/admin/audit-events?type=session.created&targetId=${current?.id ?? ""}`,
      headers: bearer(tenant.token),
    });
    expect(created.json<{ items: Record<string, unknown>[] }>().items).toEqual([
      expect.objectContaining({ type: "session.created", principalId: member.id, data: { method: "sso" } }),
    ]);

    // Neither the code, the state nor the client secret reaches a log line.
    const query = new URL(url, "http://x").searchParams;
    for (const secret of [query.get("code") ?? "", query.get("state") ?? "", idp.clientSecret]) {
      expect(t.logs.some((line) => line.includes(secret))).toBe(false);
    }
  });

  it("the state is single-use: the same callback again is 401, even where the issuer would redeem the code again", async () => {
    idp.signIn = { email: member.email };
    idp.codesReusable = true;
    try {
      const url = await callbackUrl();
      expect((await callback(url)).statusCode).toBe(303);
      await expectRefused(url);
    } finally {
      idp.codesReusable = false;
    }
  });

  it("a state that is unknown, altered or missing is 401", async () => {
    idp.signIn = { email: member.email };
    const url = new URL(await callbackUrl(), "http://x");
    const state = url.searchParams.get("state") ?? "";
    const code = url.searchParams.get("code") ?? "";
    const altered = `${state.slice(0, -1)}${state.endsWith("A") ? "B" : "A"}`;
    await expectRefused(`${callbackPath}?code=${code}&state=${encodeURIComponent(altered)}`);
    await expectRefused(`${callbackPath}?code=${code}&state=not-a-state`);
    await expectRefused(`${callbackPath}?code=${code}`);
    await expectRefused(`${callbackPath}?state=${encodeURIComponent(state)}`);
    await expectRefused(`${callbackPath}?error=access_denied&state=${encodeURIComponent(state)}`);
  });

  it("an answer naming another issuer (RFC 9207 iss) is 401", async () => {
    idp.signIn = { email: member.email };
    const url = new URL(await callbackUrl(), "http://x");
    url.searchParams.set("iss", "https://another.example");
    await expectRefused(`${url.pathname}${url.search}`);
  });

  it("a state expires after 10 minutes", async () => {
    idp.signIn = { email: member.email };
    const url = await callbackUrl();
    clock.advance(10 * 60 * 1000 + 1000);
    await expectRefused(url);
  });

  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
  it.each<[string, () => IdTokenTampering]>([
    ["a wrong nonce", () => ({ claims: { nonce: "another-nonce" } })],
    ["a wrong audience", () => ({ claims: { aud: "another-client" } })],
    ["a wrong issuer", () => ({ claims: { iss: "https://another.example" } })],
    // Past the minute of tolerance for clocks that differ.
    ["an expired ID token", () => ({ claims: { exp: nowSeconds() - 120, iat: nowSeconds() - 600 } })],
    ["a signature by a key not in the issuer's key set", () => ({ foreignKey: true })],
    ["email_verified false", () => ({ claims: { email_verified: false } })],
    ["no email_verified", () => ({ claims: { email_verified: undefined } })],
  ])("an ID token with %s is 401 and nothing is created", async (_name, tamper) => {
    idp.signIn = { email: member.email };
    const url = await callbackUrl();
    idp.tamper = tamper();
    await expectRefused(url);
  });

  it("an ID token without e-mail address: userinfo for another subject, or without one, or no userinfo endpoint, is 401", async () => {
    idp.signIn = { email: member.email };
    const noEmail = { claims: { email: undefined } };
    const lastRefusal = () => t.logs.filter((line) => line.includes("single sign-on refused")).at(-1);
    for (const [userinfo, reason] of [
      [{ sub: "sub-someone-else" }, "another subject"],
      [{ email: undefined }, "names an e-mail address"],
      [{ email_verified: false }, "not verified"],
    ] as const) {
      const url = await callbackUrl();
      idp.tamper = noEmail;
      idp.userinfo = userinfo;
      try {
        await expectRefused(url);
      } finally {
        idp.userinfo = {};
      }
      expect(lastRefusal()).toContain(reason);
    }
    // Settings saved from a discovery document without userinfo_endpoint: nothing to ask.
    idp.discovery = { userinfo_endpoint: undefined };
    const other = await tenantWithSso(t, settings()).finally(() => {
      idp.discovery = {};
    });
    idp.signIn = { email: other.email };
    const url = await callbackUrl(other.slug);
    idp.tamper = noEmail;
    await expectRefused(url, other.id);
    expect(lastRefusal()).toContain("no userinfo endpoint");
    // With the userinfo endpoint known and a right answer there: signed in.
    idp.signIn = { email: member.email };
    const signedIn = await callbackUrl();
    idp.tamper = noEmail;
    expect((await callback(signedIn)).statusCode).toBe(303);
  });

  it("a code the issuer refuses (a wrong client secret saved) is 401", async () => {
    const other = await provisionTenant(t);
    expect((await put(other.token, settings({ clientSecret: "not the secret" }))).statusCode).toBe(200);
    idp.signIn = { email: other.email };
    await expectRefused(await callbackUrl(other.slug), other.id);
    expect(idp.tokenRefusals.at(-1)).toBe("wrong client credentials");
  });

  it("settings removed, or the tenant suspended, between the redirect and the callback: 401", async () => {
    const other = await provisionTenant(t);
    expect((await put(other.token, settings())).statusCode).toBe(200);
    idp.signIn = { email: other.email };
    const url = await callbackUrl(other.slug);
    expect((await t.inject({ method: "DELETE", url: ssoUrl, headers: bearer(other.token) })).statusCode).toBe(
      204,
    );
    await expectRefused(url, other.id);

    expect((await put(other.token, settings())).statusCode).toBe(200);
    const pending = await callbackUrl(other.slug);
    const suspended = await t.inject({
      method: "POST",
      url: `/api/v1/system/tenants/${other.id}/suspend`,
      headers: adminHeaders,
    });
    expect(suspended.statusCode, suspended.body).toBe(200);
    await expectRefused(pending, other.id);
  });

  it("an unknown e-mail address without autoCreate is 401 and no user is created", async () => {
    idp.signIn = { email: `stranger@${tenant.slug}.test` };
    await expectRefused(await callbackUrl());
  });

  it("a deactivated user is 401", async () => {
    const leaving = await addUser(t, tenant, "viewer");
    expect((await patchUser(t, tenant.token, leaving.id, { status: "deactivated" })).statusCode).toBe(200);
    idp.signIn = { email: leaving.email };
    await expectRefused(await callbackUrl());
  });

  it("autoCreate creates a user of a listed domain with its role on the first sign-in; other domains are 401", async () => {
    const other = await tenantWithSso(
      t,
      settings({ autoCreate: { role: "viewer", emailDomains: ["corp.example"] } }),
    );

    idp.signIn = { email: "new.person@elsewhere.example" };
    await expectRefused(await callbackUrl(other.slug), other.id);
    idp.signIn = { email: "new.person@sub.corp.example" };
    await expectRefused(await callbackUrl(other.slug), other.id);
    // A verified address is needed for a new user too.
    idp.signIn = { email: "new.person@corp.example", emailVerified: false };
    await expectRefused(await callbackUrl(other.slug), other.id);

    idp.signIn = { email: "new.person@corp.example", name: "New Person" };
    const answer = await callback(await callbackUrl(other.slug));
    expect(answer.statusCode, answer.body).toBe(303);
    expect(answer.headers.location).toBe("/console/");
    const session = await t.inject({
      method: "GET",
      url: "/console/session",
      headers: { cookie: cookieOf(answer) },
    });
    expect(session.statusCode).toBe(200);
    expect(
      session.json<{ whoami: { principal: { role: string; name: string } } }>().whoami.principal.role,
    ).toBe("viewer");
    const listed = await t.inject({
      method: "GET",
      url: "/api/v1/admin/users?limit=100",
      headers: bearer(other.token),
    });
    const created = listed
      .json<{ items: { email: string; role: string; status: string; name: string }[] }>()
      .items.find((user) => user.email === "new.person@corp.example");
    expect(created).toMatchObject({ role: "viewer", status: "active", name: "New Person" });

    // The second sign-in finds the user rather than creating another.
    const before = await counts(other.id);
    expect((await callback(await callbackUrl(other.slug))).statusCode).toBe(303);
    expect((await counts(other.id))?.users).toBe(before?.users);
  });
});

describe("rules/contract §1, §7: secrets of single sign-on", () => {
  it("no log line holds the client secret or an ID token the issuer gave", () => {
    expect(idp.idTokens.length).toBeGreaterThan(5);
    for (const secret of [idp.clientSecret, ...idp.idTokens]) {
      expect(t.logs.some((line) => line.includes(secret))).toBe(false);
    }
    // The refusals are logged with their reason, for the operator.
    expect(t.logs.some((line) => line.includes("single sign-on refused"))).toBe(true);
  });
});
