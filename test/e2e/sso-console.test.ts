// remote mode: in-process only: HANSE_SSO_ALLOW_INSECURE and HANSE_PUBLIC_URL of its own (the test identity provider)
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserTestsSkipped, launchBrowser } from "../support/browser.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startTestIssuer, type TestIssuer } from "../support/oidc-issuer.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { freePort } from "../support/server-process.js";
import { addUser } from "../support/users.js";

/**
 * Issue 32 step 7, CONTRACT §7 single sign-on in Chromium: the console's "Sign in with SSO" goes
 * to the identity provider (the test double of test/support/oidc-issuer.ts) and back, signed in.
 * HANSE_PUBLIC_URL is the app's real address, so that the redirect URI reaches it.
 */
describe.skipIf(browserTestsSkipped())(
  "CONTRACT §7 single sign-on in the console (Chromium)",
  { timeout: 120_000 },
  () => {
    let t: TestApp;
    let idp: TestIssuer;
    let browser: Browser;
    let base: string;
    let tenant: ProvisionedTenant;

    beforeAll(async () => {
      idp = await startTestIssuer();
      const port = await freePort();
      base = `http://127.0.0.1:${String(port)}`;
      t = await createTestApp({ env: { HANSE_SSO_ALLOW_INSECURE: "1", HANSE_PUBLIC_URL: base } });
      await t.app.listen({ port, host: "127.0.0.1" });
      tenant = await provisionTenant(t);
      const saved = await t.inject({
        method: "PUT",
        url: "/api/v1/admin/sso",
        headers: bearer(tenant.token),
        payload: {
          issuer: idp.issuer,
          clientId: idp.clientId,
          clientSecret: idp.clientSecret,
          autoCreate: null,
        },
      });
      expect(saved.statusCode, saved.body).toBe(200);
      browser = await launchBrowser();
    });

    afterAll(async () => {
      await browser.close();
      await t.close();
      await idp.close();
    });

    it("Sign in with SSO: to the issuer and back to the console, signed in as the user, with an sso session", async () => {
      const member = await addUser(t, tenant, "viewer");
      idp.signIn = { email: member.email };
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${base}/console`);
      await page.getByLabel("Organisation").fill(tenant.slug);
      await page.getByRole("button", { name: "Sign in with SSO" }).click();
      await page
        .getByRole("navigation", { name: "Console sections" })
        .getByRole("link", { name: "Uploads" })
        .waitFor();
      expect(new URL(page.url()).pathname).toBe("/console/");
      expect(idp.authorizations).toHaveLength(1);
      const session = await page.evaluate(async () => {
        const answer = await fetch("/console/session");
        return (await answer.json()) as { whoami: { principal: { id: string; role: string } } };
      });
      expect(session.whoami.principal).toMatchObject({ id: member.id, role: "viewer" });
      const sessions = await page.evaluate(async () => {
        const answer = await fetch("/console/api/auth/sessions");
        return (await answer.json()) as { items: { current: boolean; method: string }[] };
      });
      expect(sessions.items.find((s) => s.current)?.method).toBe("sso");
      await context.close();
    });

    it("a tenant without single sign-on: the sign-in page says so and stays", async () => {
      const other = await provisionTenant(t);
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${base}/console`);
      await page.getByLabel("Organisation").fill(other.slug);
      await page.getByRole("button", { name: "Sign in with SSO" }).click();
      await page.getByText(/not set up/).waitFor();
      expect(new URL(page.url()).pathname).toBe("/console");
      await context.close();
    });
  },
);
