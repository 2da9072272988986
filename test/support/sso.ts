import { sql } from "kysely";
import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { launchBrowser } from "./browser.js";
import { provisionTenant, type ProvisionedTenant } from "./fixtures.js";
import { freePort } from "./server-process.js";
import { bearer, createTestApp, type TestApp } from "./test-app.js";
import { expectProblem } from "./users.js";

/** What the single sign-on tests share (rules/contract §7), whichever identity provider they run against. */
export const ssoSettingsUrl = "/api/v1/admin/sso";
export const ssoCallbackPath = "/api/v1/auth/sso/callback";

/** The settings body that names `idp` (no autoCreate unless `overrides` say). */
export const ssoSettingsOf = (
  idp: { issuer: string; clientId: string; clientSecret: string },
  overrides: Record<string, unknown> = {},
) => ({
  issuer: idp.issuer,
  clientId: idp.clientId,
  clientSecret: idp.clientSecret,
  autoCreate: null,
  ...overrides,
});

export const putSsoSettings = (t: TestApp, token: string, body: unknown) =>
  t.inject({ method: "PUT", url: ssoSettingsUrl, headers: bearer(token), payload: body as object });

/** The `name=value` of an answer's Set-Cookie (the console's session cookie). */
export const cookieOf = (response: { headers: Record<string, string | string[] | number | undefined> }) => {
  const header = response.headers["set-cookie"];
  return (typeof header === "string" ? header : "").split(";")[0] ?? "";
};

/** Users and sessions of the tenant: a refused callback changes neither. */
export async function ssoCounts(t: TestApp, tenantId: string) {
  const { rows } = await sql<{ users: number; sessions: number }>`SELECT
    (SELECT count(*)::int FROM users WHERE tenant_id = ${tenantId}) AS users,
    (SELECT count(*)::int FROM credentials WHERE tenant_id = ${tenantId} AND kind = 'session') AS sessions`.execute(
    t.container.database.db,
  );
  return rows[0];
}

/** The callback `url` is 401 ERR_UNAUTHENTICATED, sets no cookie, echoes neither code nor state, creates nothing. */
export async function expectSsoRefused(t: TestApp, url: string, tenantId: string) {
  const before = await ssoCounts(t, tenantId);
  const answer = await t.inject({ method: "GET", url });
  expectProblem(answer, 401, "ERR_UNAUTHENTICATED");
  expect(answer.headers["www-authenticate"]).toBeDefined();
  expect(answer.headers["set-cookie"]).toBeUndefined();
  const query = new URL(url, "http://x").searchParams;
  for (const value of [query.get("code"), query.get("state")]) {
    if (value) expect(answer.body).not.toContain(value);
  }
  expect(await ssoCounts(t, tenantId)).toEqual(before);
  return answer;
}

export interface SsoConsole<Issuer> {
  t: TestApp;
  idp: Issuer;
  browser: Browser;
  /** The app's real address (also its HANSE_PUBLIC_URL). */
  base: string;
  /** A tenant whose single sign-on is `idp`. */
  tenant: ProvisionedTenant;
  close(): Promise<void>;
}

/**
 * For the console's sign-in in Chromium: the app listening on a free port that is its
 * HANSE_PUBLIC_URL (so the redirect URI reaches it), the identity provider `start` gives for that
 * redirect URI, a tenant whose single sign-on it is, and a browser.
 */
export async function startSsoConsole<
  Issuer extends { issuer: string; clientId: string; clientSecret: string; close(): Promise<void> },
>(start: (redirectUri: string) => Promise<Issuer>): Promise<SsoConsole<Issuer>> {
  const port = await freePort();
  const base = `http://127.0.0.1:${String(port)}`;
  const t = await createTestApp({ env: { HANSE_SSO_ALLOW_INSECURE: "1", HANSE_PUBLIC_URL: base } });
  await t.app.listen({ port, host: "127.0.0.1" });
  const idp = await start(`${base}${ssoCallbackPath}`);
  const tenant = await provisionTenant(t);
  const saved = await putSsoSettings(t, tenant.token, ssoSettingsOf(idp));
  expect(saved.statusCode, saved.body).toBe(200);
  const browser = await launchBrowser();
  return {
    t,
    idp,
    browser,
    base,
    tenant,
    close: async () => {
      await browser.close();
      await t.close();
      await idp.close();
    },
  };
}

/** The console's "Sign in with SSO" for `slug`, clicked on a fresh sign-in page. */
export async function clickSignInWithSso(page: Page, base: string, slug: string) {
  await page.goto(`${base}/console`);
  await page.getByLabel("Organisation").fill(slug);
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
}

/** The console is signed in as `userId` with `role`, in a session of method sso. */
export async function expectConsoleSignedInWithSso(page: Page, userId: string, role: string) {
  await page
    .getByRole("navigation", { name: "Console sections" })
    .getByRole("link", { name: "Uploads" })
    .waitFor();
  expect(new URL(page.url()).pathname).toBe("/console/");
  const session = await page.evaluate(async () => {
    const answer = await fetch("/console/session");
    return (await answer.json()) as { whoami: { principal: { id: string; role: string } } };
  });
  expect(session.whoami.principal).toMatchObject({ id: userId, role });
  const sessions = await page.evaluate(async () => {
    const answer = await fetch("/console/api/auth/sessions");
    return (await answer.json()) as { items: { current: boolean; method: string }[] };
  });
  expect(sessions.items.find((s) => s.current)?.method).toBe("sso");
}

/** A new tenant whose single sign-on is `settings` (saved: 200). */
export async function tenantWithSso(t: TestApp, settings: unknown): Promise<ProvisionedTenant> {
  const tenant = await provisionTenant(t);
  const saved = await putSsoSettings(t, tenant.token, settings);
  expect(saved.statusCode, saved.body).toBe(200);
  return tenant;
}
