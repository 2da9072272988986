// remote mode: in-process only: HANSE_SSO_ALLOW_INSECURE and HANSE_PUBLIC_URL of its own (the test identity provider)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserTestsSkipped } from "../support/browser.js";
import { provisionTenant } from "../support/fixtures.js";
import { startTestIssuer, type TestIssuer } from "../support/oidc-issuer.js";
import {
  clickSignInWithSso,
  expectConsoleSignedInWithSso,
  startSsoConsole,
  type SsoConsole,
} from "../support/sso.js";
import { addUser } from "../support/users.js";

/**
 * Issue 32 step 7, rules/contract §7 single sign-on in Chromium: the console's "Sign in with SSO" goes
 * to the identity provider (the test double of test/support/oidc-issuer.ts) and back, signed in.
 * HANSE_PUBLIC_URL is the app's real address, so that the redirect URI reaches it.
 */
describe.skipIf(browserTestsSkipped())(
  "rules/contract §7 single sign-on in the console (Chromium)",
  { timeout: 120_000 },
  () => {
    let s: SsoConsole<TestIssuer>;

    beforeAll(async () => {
      s = await startSsoConsole(() => startTestIssuer());
    });
    afterAll(async () => {
      await s.close();
    });

    it("Sign in with SSO: to the issuer and back to the console, signed in as the user, with an sso session", async () => {
      const member = await addUser(s.t, s.tenant, "viewer");
      s.idp.signIn = { email: member.email };
      const context = await s.browser.newContext();
      const page = await context.newPage();
      await clickSignInWithSso(page, s.base, s.tenant.slug);
      await expectConsoleSignedInWithSso(page, member.id, "viewer");
      expect(s.idp.authorizations).toHaveLength(1);
      await context.close();
    });

    it("a tenant without single sign-on: the sign-in page says so and stays", async () => {
      const other = await provisionTenant(s.t);
      const context = await s.browser.newContext();
      const page = await context.newPage();
      await clickSignInWithSso(page, s.base, other.slug);
      await page.getByText(/not set up/).waitFor();
      expect(new URL(page.url()).pathname).toBe("/console");
      await context.close();
    });
  },
);
