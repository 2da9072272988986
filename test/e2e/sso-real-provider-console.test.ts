// remote mode: in-process only: HANSE_SSO_ALLOW_INSECURE, HANSE_PUBLIC_URL of its own and a real OpenID provider (oidc-provider) started by the test
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserTestsSkipped } from "../support/browser.js";
import { startOidcProvider, type RealOidcProvider } from "../support/oidc-provider.js";
import {
  clickSignInWithSso,
  expectConsoleSignedInWithSso,
  ssoCallbackPath,
  startSsoConsole,
  type SsoConsole,
} from "../support/sso.js";
import { addUser } from "../support/users.js";

/**
 * Issue 32 step 5, rules/contract §7 single sign-on in Chromium against a REAL OpenID provider
 * (`oidc-provider`, test/support/oidc-provider.ts): the console's "Sign in with SSO", the
 * provider's own login and consent pages, and back in the console, signed in. HANSE_PUBLIC_URL is
 * the app's real address, so that the redirect URI reaches it.
 */
describe.skipIf(browserTestsSkipped())(
  "rules/contract §7 single sign-on in the console against oidc-provider (Chromium)",
  { timeout: 120_000 },
  () => {
    let s: SsoConsole<RealOidcProvider>;

    beforeAll(async () => {
      s = await startSsoConsole((redirectUri) => startOidcProvider({ redirectUri }));
    });
    afterAll(async () => {
      await s.close();
    });

    /** From the console's sign-in page to the provider's consent page, signed in there as `login`. */
    async function signInAtProvider(page: Page, login: string) {
      await clickSignInWithSso(page, s.base, s.tenant.slug);
      // oidc-provider's own pages (its devInteractions): any password, the login names the account.
      await page.locator('input[name="login"]').fill(login);
      expect(new URL(page.url()).origin).toBe(s.idp.issuer);
      await page.locator('input[name="password"]').fill("a password the provider checks no further");
      await page.getByRole("button", { name: "Sign-in" }).click();
      return page.getByRole("button", { name: "Continue" });
    }

    it("Sign in with SSO: the provider's login and consent pages, then the console signed in as the user, with an sso session", async () => {
      const member = await addUser(s.t, s.tenant, "viewer");
      const login = s.idp.addAccount({ email: member.email, emailVerified: true });
      const context = await s.browser.newContext();
      const page = await context.newPage();
      await (await signInAtProvider(page, login)).click();
      await expectConsoleSignedInWithSso(page, member.id, "viewer");
      await context.close();
    });

    it("an account whose e-mail address is not verified: back on Hanse's refusal, not signed in", async () => {
      const member = await addUser(s.t, s.tenant, "viewer");
      const login = s.idp.addAccount({ email: member.email, emailVerified: false });
      const context = await s.browser.newContext();
      const page = await context.newPage();
      const consent = await signInAtProvider(page, login);
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.url().startsWith(`${s.base}${ssoCallbackPath}`)),
        consent.click(),
      ]);
      expect(answer.status()).toBe(401);
      expect(await page.evaluate(async () => (await fetch("/console/session")).status)).toBe(401);
      await context.close();
    });
  },
);
