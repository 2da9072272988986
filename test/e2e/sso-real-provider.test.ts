// remote mode: in-process only: a clock of its own, HANSE_SSO_ALLOW_INSECURE and a real OpenID provider (oidc-provider) started by the test
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Clock } from "../../src/platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { signInAt, startOidcProvider, type RealOidcProvider } from "../support/oidc-provider.js";
import {
  cookieOf,
  expectSsoRefused,
  putSsoSettings,
  ssoCallbackPath,
  ssoCounts,
  ssoSettingsOf,
  tenantWithSso,
} from "../support/sso.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { addUser, expectProblem, patchUser } from "../support/users.js";

/**
 * Issue 32 step 5, rules/contract §7 "Single sign-on" against a REAL OpenID provider: `oidc-provider`
 * (the certified reference implementation) started in-process (test/support/oidc-provider.ts).
 * People sign in on the provider's own login and consent pages, filled in over HTTP. The
 * provider keeps real time; Hanse's clock is real time plus `skew` (the expired-token case moves
 * it). Wrong audience and wrong nonce are genuine ID tokens of this provider substituted in its
 * token response (another client's, an earlier sign-in's). The tampered cases the provider cannot
 * produce (a foreign key, another issuer) stay in sso.test.ts with its hand-written issuer.
 */
let skew = 0;
const clock: Clock = { now: () => new Date(Date.now() + skew) };
const callbackPath = ssoCallbackPath;
let t: TestApp;
let idp: RealOidcProvider;
let tenant: ProvisionedTenant;

beforeAll(async () => {
  t = await createTestApp({ clock, env: { HANSE_SSO_ALLOW_INSECURE: "1" } });
  idp = await startOidcProvider({ redirectUri: `${t.config.HANSE_PUBLIC_URL}${callbackPath}` });
  tenant = await provisionTenant(t);
  const saved = await put(tenant.token, settings());
  expect(saved.statusCode, saved.body).toBe(200);
}, 60_000);
afterAll(async () => {
  await t.close();
  await idp.close();
});
beforeEach(() => {
  skew = 0;
});

const settings = (overrides: Record<string, unknown> = {}) => ssoSettingsOf(idp, overrides);
const put = (token: string, body: unknown) => putSsoSettings(t, token, body);

/** The authorization request Hanse sends the browser to (302). */
async function startSignIn(slug: string, returnTo?: string): Promise<string> {
  const query = returnTo === undefined ? "" : `?returnTo=${encodeURIComponent(returnTo)}`;
  const started = await t.inject({ method: "GET", url: `/api/v1/auth/sso/${slug}${query}` });
  expect(started.statusCode, started.body).toBe(302);
  return String(started.headers.location);
}

/** Starts a sign-in, signs `login` in at the provider: the callback URL (path and query), unused. */
async function callbackUrl(login: string, slug = tenant.slug, returnTo?: string): Promise<string> {
  const back = await signInAt(await startSignIn(slug, returnTo), login);
  expect(`${back.origin}${back.pathname}`).toBe(`${t.config.HANSE_PUBLIC_URL}${callbackPath}`);
  expect(back.searchParams.get("code")).toBeTruthy();
  return `${back.pathname}${back.search}`;
}

const callback = (url: string) => t.inject({ method: "GET", url });

const counts = (tenantId: string) => ssoCounts(t, tenantId);
const expectRefused = (url: string, tenantId = tenant.id) => expectSsoRefused(t, url, tenantId);

/** The last reason logged for a refused sign-in (the log's `reason`). */
const lastRefusal = () =>
  t.logs.filter((line) => line.includes("single sign-on refused")).at(-1) ?? "no refusal logged";

describe("rules/contract §7 single sign-on against a real OpenID provider (oidc-provider): the callback", () => {
  it("success: 303 to returnTo with the console's session cookie; GET /console/session 200 as the user", async () => {
    const member = await addUser(t, tenant, "admin");
    const login = idp.addAccount({ email: member.email, emailVerified: true });
    const before = idp.authorizations.length;
    const url = await callbackUrl(login, tenant.slug, "/console/#/users");
    // What reached the provider: the code flow with PKCE, state and nonce, for Hanse's client.
    const request = idp.authorizations.at(-1);
    expect(idp.authorizations.length).toBe(before + 1);
    expect(request?.get("client_id")).toBe(idp.clientId);
    expect(request?.get("code_challenge_method")).toBe("S256");
    // RFC 9207: the provider names itself in its answer, and it is the tenant's issuer.
    expect(new URL(url, "http://x").searchParams.get("iss")).toBe(idp.issuer);

    const answer = await callback(url);
    expect(answer.statusCode, `${answer.body} ${lastRefusal()}`).toBe(303);
    expect(answer.headers.location).toBe("/console/#/users");
    const cookie = cookieOf(answer);
    expect(cookie).toMatch(/^hanse_console=/);
    const session = await t.inject({ method: "GET", url: "/console/session", headers: { cookie } });
    expect(session.statusCode, session.body).toBe(200);
    expect(
      session.json<{ whoami: { principal: { id: string; role: string } } }>().whoami.principal,
    ).toMatchObject({ id: member.id, role: "admin" });
    const sessions = await t.inject({
      method: "GET",
      url: "/console/api/auth/sessions",
      headers: { cookie },
    });
    expect(
      sessions.json<{ items: { current: boolean; method: string }[] }>().items.find((s) => s.current)?.method,
    ).toBe("sso");
  });

  it("wrong state: an altered, unknown or missing state is 401 and nothing is created", async () => {
    const member = await addUser(t, tenant, "viewer");
    const login = idp.addAccount({ email: member.email, emailVerified: true });
    const url = new URL(await callbackUrl(login), "http://x");
    const state = url.searchParams.get("state") ?? "";
    const code = url.searchParams.get("code") ?? "";
    const altered = `${state.slice(0, -1)}${state.endsWith("A") ? "B" : "A"}`;
    await expectRefused(
      `${callbackPath}?code=${code}&state=${encodeURIComponent(altered)}&iss=${idp.issuer}`,
    );
    await expectRefused(`${callbackPath}?code=${code}&state=not-a-state`);
    await expectRefused(`${callbackPath}?code=${code}`);
  });

  it("replayed state: the same callback a second time is 401, and the provider's code is not redeemed again", async () => {
    const member = await addUser(t, tenant, "viewer");
    const login = idp.addAccount({ email: member.email, emailVerified: true });
    const url = await callbackUrl(login);
    expect((await callback(url)).statusCode).toBe(303);
    const tokens = idp.idTokens.length;
    await expectRefused(url);
    expect(lastRefusal()).toContain("the state is used");
    expect(idp.idTokens.length).toBe(tokens);
  });

  it("wrong audience: a genuine ID token of the provider issued to another client is 401", async () => {
    const member = await addUser(t, tenant, "viewer");
    const login = idp.addAccount({ email: member.email, emailVerified: true });
    const authorization = await startSignIn(tenant.slug);
    const nonce = new URL(authorization).searchParams.get("nonce") ?? "";
    const back = await signInAt(authorization, login);
    // Same provider, same person, same nonce: only the audience is another client's.
    idp.substituteNextIdToken = await idp.idTokenOfAnotherClient(login, nonce);
    await expectRefused(`${back.pathname}${back.search}`);
    expect(lastRefusal()).toContain("ERR_JWT_CLAIM_VALIDATION_FAILED");
  });

  it("wrong nonce: a genuine ID token of an earlier sign-in (a replayed token) is 401", async () => {
    const member = await addUser(t, tenant, "viewer");
    const login = idp.addAccount({ email: member.email, emailVerified: true });
    expect((await callback(await callbackUrl(login))).statusCode).toBe(303);
    const earlier = idp.idTokens.at(-1);
    const url = await callbackUrl(login);
    idp.substituteNextIdToken = earlier;
    await expectRefused(url);
    expect(lastRefusal()).toContain("nonce");
  });

  it("expired ID token: the provider's token (two minutes) checked when Hanse's clock is past it and the minute's tolerance is 401", async () => {
    const member = await addUser(t, tenant, "viewer");
    const login = idp.addAccount({ email: member.email, emailVerified: true });
    const url = await callbackUrl(login);
    // Within the state's 10 minutes, past exp (120 s) plus the tolerance (60 s).
    skew = 200_000;
    await expectRefused(url);
    expect(lastRefusal()).toContain("ERR_JWT_EXPIRED");
  });

  it("email_verified false: 401 for a user of the tenant, and for a new address of an auto-created domain", async () => {
    const member = await addUser(t, tenant, "viewer");
    const login = idp.addAccount({ email: member.email, emailVerified: false });
    await expectRefused(await callbackUrl(login));
    expect(lastRefusal()).toContain("not verified");

    const other = await tenantWithSso(
      t,
      settings({ autoCreate: { role: "viewer", emailDomains: ["verified.example"] } }),
    );
    const stranger = idp.addAccount({ email: "unverified@verified.example", emailVerified: false });
    await expectRefused(await callbackUrl(stranger, other.slug), other.id);
  });

  it("unknown e-mail without autoCreate: 401 and no user is created", async () => {
    const login = idp.addAccount({ email: `stranger@${tenant.slug}.test`, emailVerified: true });
    await expectRefused(await callbackUrl(login));
    expect(lastRefusal()).toContain("no user has the e-mail address");
  });

  it("unknown e-mail with autoCreate: a listed domain's user is created with its role; an unlisted domain is 401", async () => {
    const other = await tenantWithSso(
      t,
      settings({ autoCreate: { role: "admin", emailDomains: ["corp.example"] } }),
    );

    const outsider = idp.addAccount({ email: "someone@elsewhere.example", emailVerified: true });
    await expectRefused(await callbackUrl(outsider, other.slug), other.id);

    const login = idp.addAccount({
      email: "new.colleague@corp.example",
      emailVerified: true,
      name: "New Colleague",
    });
    const before = await counts(other.id);
    const answer = await callback(await callbackUrl(login, other.slug));
    expect(answer.statusCode, `${answer.body} ${lastRefusal()}`).toBe(303);
    expect(answer.headers.location).toBe("/console/");
    expect((await counts(other.id))?.users).toBe((before?.users ?? 0) + 1);
    const session = await t.inject({
      method: "GET",
      url: "/console/session",
      headers: { cookie: cookieOf(answer) },
    });
    expect(session.statusCode, session.body).toBe(200);
    const listed = await t.inject({
      method: "GET",
      url: "/api/v1/admin/users?limit=100",
      headers: bearer(other.token),
    });
    expect(
      listed
        .json<{ items: { email: string; role: string; status: string; name: string }[] }>()
        .items.find((user) => user.email === "new.colleague@corp.example"),
    ).toMatchObject({ role: "admin", status: "active", name: "New Colleague" });
  });

  it("deactivated user: 401 and no session", async () => {
    const leaving = await addUser(t, tenant, "viewer");
    expect((await patchUser(t, tenant.token, leaving.id, { status: "deactivated" })).statusCode).toBe(200);
    const login = idp.addAccount({ email: leaving.email, emailVerified: true });
    await expectRefused(await callbackUrl(login));
    expect(lastRefusal()).toContain("not active");
  });
});

describe("rules/contract §7 single sign-on with a provider that gives the e-mail at userinfo only (oidc-provider's default, Core §5.4)", () => {
  let strict: RealOidcProvider;
  let other: ProvisionedTenant;
  beforeAll(async () => {
    strict = await startOidcProvider({
      redirectUri: `${t.config.HANSE_PUBLIC_URL}${callbackPath}`,
      conformIdTokenClaims: true,
    });
    other = await tenantWithSso(
      t,
      ssoSettingsOf(strict, { autoCreate: { role: "viewer", emailDomains: ["userinfo.example"] } }),
    );
  });
  afterAll(async () => {
    await strict.close();
  });

  it("success: the ID token has no e-mail address, Hanse reads it (and email_verified) from userinfo", async () => {
    const member = await addUser(t, other, "admin");
    const login = strict.addAccount({ email: member.email, emailVerified: true });
    const back = await signInAt(await startSignIn(other.slug), login);
    const answer = await callback(`${back.pathname}${back.search}`);
    expect(answer.statusCode, `${answer.body} ${lastRefusal()}`).toBe(303);
    // The provider kept the e-mail out of the ID token: userinfo was what named the user.
    const payload = JSON.parse(
      Buffer.from(strict.idTokens.at(-1)?.split(".")[1] ?? "", "base64url").toString("utf8"),
    ) as Record<string, unknown>;
    expect(payload.email).toBeUndefined();
    const session = await t.inject({
      method: "GET",
      url: "/console/session",
      headers: { cookie: cookieOf(answer) },
    });
    expect(session.json<{ whoami: { principal: { id: string } } }>().whoami.principal.id).toBe(member.id);
    for (const secret of [...strict.idTokens, ...strict.accessTokens, strict.clientSecret]) {
      expect(t.logs.some((line) => line.includes(secret))).toBe(false);
    }
  });

  it("email_verified false at userinfo: 401 and the user of the auto-created domain is not created", async () => {
    const login = strict.addAccount({ email: "someone@userinfo.example", emailVerified: false });
    const back = await signInAt(await startSignIn(other.slug), login);
    await expectRefused(`${back.pathname}${back.search}`, other.id);
    expect(lastRefusal()).toContain("not verified");
  });
});

describe("rules/contract §1, §7: secrets of single sign-on with a real provider", () => {
  it("no log line holds the client secret or a token the provider gave", () => {
    expect(idp.idTokens.length).toBeGreaterThan(5);
    for (const secret of [idp.clientSecret, ...idp.idTokens, ...idp.accessTokens]) {
      expect(t.logs.some((line) => line.includes(secret))).toBe(false);
    }
  });

  it("a tenant without single sign-on is 404 before anything reaches the provider", async () => {
    const other = await provisionTenant(t);
    const before = idp.authorizations.length;
    expectProblem(
      await t.inject({ method: "GET", url: `/api/v1/auth/sso/${other.slug}` }),
      404,
      "ERR_NOT_FOUND",
    );
    expect(idp.authorizations.length).toBe(before);
  });
});
