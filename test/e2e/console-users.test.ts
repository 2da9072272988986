// remote mode: in-process only: HANSE_SSO_ALLOW_INSECURE and HANSE_PUBLIC_URL of its own (the test identity provider), and reads the server's log lines
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserTestsSkipped,
  shoot,
  eventually,
  widerThanScreen,
  launchBrowser,
} from "../support/browser.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startTestIssuer, type TestIssuer } from "../support/oidc-issuer.js";
import { freePort } from "../support/server-process.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { addUser, whoamiStatus, type MemberUser, type UserBody } from "../support/users.js";

/**
 * Issue 32 item 6, rules/contract §7 in the console (Chromium): the Users page (invite with a one-time
 * link, change a role, deactivate and reactivate, issue a password reset), the Account page (change
 * my password, my sessions), the Single sign-on page, and the invitation and password reset pages
 * that a one-time link opens without a session. What a role may not do is not offered.
 */
describe.skipIf(browserTestsSkipped())(
  "rules/contract §7 users, account and single sign-on in the console (Chromium)",
  { timeout: 180_000 },
  () => {
    let t: TestApp;
    let idp: TestIssuer;
    let browser: Browser;
    let base: string;
    let tenant: ProvisionedTenant;
    let owner: Page;
    /** Every URL the browser requested, of every context. */
    const requested: string[] = [];
    /** Uncaught errors of the console's scripts. */
    const pageErrors: string[] = [];
    /** Passwords and tokens that must reach no URL and no log line. */
    const secrets: string[] = [];

    const newContext = async (): Promise<BrowserContext> => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      context.on("request", (request) => requested.push(request.url()));
      context.on("page", (opened) => opened.on("pageerror", (error) => pageErrors.push(error.message)));
      return context;
    };

    const nav = (page: Page) => page.getByRole("navigation", { name: "Console sections" });

    const signIn = async (page: Page, email: string, password: string) => {
      await page.goto(`${base}/console`);
      await page.getByLabel("Tenant").fill(tenant.slug);
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Password", { exact: true }).fill(password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await nav(page).getByRole("link", { name: "Uploads" }).waitFor();
    };

    const signedInPage = async (email: string, password: string) => {
      const page = await (await newContext()).newPage();
      await signIn(page, email, password);
      return page;
    };

    /** Opens a section anew (drawn from the server, even when it is the page already shown) and waits for its heading. */
    const open = async (page: Page, path: string, heading: string) => {
      await page.goto(`${base}/console#/${path}`);
      await page.reload();
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
    };

    const userRow = (page: Page, email: string) => page.getByRole("row").filter({ hasText: email });

    /** The message shown under the form control labelled `label`, once the server refused it. */
    const fieldError = (page: Page, label: string) =>
      page
        .locator(".field")
        .filter({ has: page.getByLabel(label, { exact: true }) })
        .locator(".field-error");

    const userOf = async (id: string) => {
      const response = await t.inject({
        url: `/api/v1/admin/users/${id}`,
        headers: bearer(tenant.token),
      });
      expect(response.statusCode).toBe(200);
      return response.json<UserBody>();
    };

    /** The one-time link the page shows, and its token (from the fragment). */
    const shownLink = async (page: Page, kind: string) => {
      const secret = page.locator("[data-secret]");
      await secret.waitFor();
      const link = (await secret.textContent()) ?? "";
      const prefix = `${base}/console/#/${kind}/`;
      expect(link.startsWith(prefix), link).toBe(true);
      const token = decodeURIComponent(link.slice(prefix.length));
      secrets.push(token);
      return { link, token };
    };

    /** Accepts the next confirm() of `page`, keeping its question. */
    const acceptDialog = (page: Page) =>
      new Promise<string>((resolve) => {
        page.once("dialog", (dialog) => {
          resolve(dialog.message());
          void dialog.accept();
        });
      });

    beforeAll(async () => {
      idp = await startTestIssuer();
      const port = await freePort();
      base = `http://127.0.0.1:${String(port)}`;
      t = await createTestApp({ env: { HANSE_SSO_ALLOW_INSECURE: "1", HANSE_PUBLIC_URL: base } });
      await t.app.listen({ port, host: "127.0.0.1" });
      tenant = await provisionTenant(t);
      secrets.push(tenant.password, tenant.token, idp.clientSecret);
      browser = await launchBrowser();
      const context = await newContext();
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
      owner = await context.newPage();
      await signIn(owner, tenant.email, tenant.password);
    });

    afterAll(async () => {
      await browser.close();
      await t.close();
      await idp.close();
    });

    it("an owner invites a colleague: the invitation link (token in the fragment) is shown once with a copy button; an address already in use is refused and nothing is shown", async () => {
      await nav(owner).getByRole("link", { name: "Users" }).click();
      await owner.getByRole("heading", { name: "Users", level: 1 }).waitFor();
      await userRow(owner, tenant.email).waitFor();

      // Already a user of the tenant: 409, shown, nothing created.
      await owner.getByLabel("E-mail", { exact: true }).fill(tenant.email);
      await owner.getByRole("button", { name: "Invite" }).click();
      await owner
        .getByRole("alert")
        .getByText(/exists in the tenant/)
        .waitFor();
      expect(await owner.locator("[data-secret]").count()).toBe(0);

      const email = `colleague@${tenant.slug}.test`;
      await owner.getByLabel("E-mail", { exact: true }).fill(email);
      await owner.getByLabel("Name", { exact: true }).fill("Colleague One");
      await owner.getByLabel("Role", { exact: true }).selectOption("admin");
      await owner.getByRole("button", { name: "Invite" }).click();
      const { link, token } = await shownLink(owner, "invitation");
      expect(token).toMatch(/^hanse_it_/);
      expect(link).not.toContain("?");
      await owner.getByRole("button", { name: "Copy link" }).click();
      await owner.getByText("Copied.").waitFor();
      expect(await owner.evaluate<string>("navigator.clipboard.readText()")).toBe(link);
      await eventually(() => userRow(owner, email).textContent()).toContain("invited");
      await shoot(owner, "users");
      expect(await userRow(owner, email).textContent()).toContain("Colleague One");

      await owner.getByRole("button", { name: "Hide" }).click();
      expect(await owner.content()).not.toContain(token);
      await owner.reload();
      await userRow(owner, email).waitFor();
      expect(await owner.content()).not.toContain(token);
    });

    it("the invitation page (no session) takes the token from the fragment: a too-short password shows the server's message at the field, a good one signs the new user in", async () => {
      const email = `invitee@${tenant.slug}.test`;
      const invited = await t.inject({
        method: "POST",
        url: "/api/v1/admin/users",
        headers: bearer(tenant.token),
        payload: { email, role: "viewer" },
      });
      expect(invited.statusCode).toBe(201);
      const { id, invitation } = invited.json<UserBody & { invitation: { token: string } }>();
      secrets.push(invitation.token);

      const context = await newContext();
      const page = await context.newPage();
      await page.goto(`${base}/console/#/invitation/${encodeURIComponent(invitation.token)}`);
      await page.getByRole("heading", { name: "Accept your invitation" }).waitFor();
      // The token leaves the address (and the history) at once.
      expect(page.url()).not.toContain(invitation.token);

      await page.getByLabel("New password", { exact: true }).fill("too short");
      await page.getByRole("button", { name: "Accept invitation" }).click();
      await eventually(() => fieldError(page, "New password").textContent()).toContain(
        "at least 15 characters",
      );
      expect(await page.getByLabel("New password", { exact: true }).getAttribute("aria-invalid")).toBe(
        "true",
      );
      await shoot(page, "invitation");
      expect((await userOf(id)).status).toBe("invited");

      const password = "the invitee's own long passphrase";
      secrets.push(password);
      await page.getByLabel("New password", { exact: true }).fill(password);
      await page.getByRole("button", { name: "Accept invitation" }).click();
      await nav(page).getByRole("link", { name: "Uploads" }).waitFor();
      expect(new URL(page.url()).pathname).toBe("/console/");
      expect(await page.locator("#who").textContent()).toContain("(viewer)");
      expect((await userOf(id)).status).toBe("active");
      const [cookie] = await context.cookies(`${base}/console`);
      expect(cookie).toMatchObject({ name: "hanse_console", httpOnly: true, sameSite: "Strict" });
      const sessions = await page.evaluate(async () => {
        const answer = await fetch("/console/api/auth/sessions");
        return (await answer.json()) as { items: { current: boolean; method: string }[] };
      });
      expect(sessions.items.find((s) => s.current)?.method).toBe("invitation");

      // Used up: the same link again is refused, and says so.
      const again = await (await newContext()).newPage();
      await again.goto(`${base}/console/#/invitation/${encodeURIComponent(invitation.token)}`);
      await again.getByLabel("New password", { exact: true }).fill(password);
      await again.getByRole("button", { name: "Accept invitation" }).click();
      await again.getByRole("alert").waitFor();
      expect(await nav(again).getByRole("link").count()).toBe(0);
      await context.close();
    });

    it("POST /console/invitations is refused from another origin (nothing used) and sets no cookie for a bad token", async () => {
      const member = await t.inject({
        method: "POST",
        url: "/api/v1/admin/users",
        headers: bearer(tenant.token),
        payload: { email: `forged@${tenant.slug}.test`, role: "viewer" },
      });
      const { id, invitation } = member.json<UserBody & { invitation: { token: string } }>();
      secrets.push(invitation.token);
      const body = JSON.stringify({ token: invitation.token, password: "a forged long passphrase" });
      const forged = await fetch(`${base}/console/invitations`, {
        method: "POST",
        headers: { origin: "http://attacker.example", "content-type": "application/json" },
        body,
      });
      expect(forged.status).toBe(403);
      expect(forged.headers.get("set-cookie")).toBeNull();
      expect((await userOf(id)).status).toBe("invited");
      const unknown = await fetch(`${base}/console/invitations`, {
        method: "POST",
        headers: { origin: base, "content-type": "application/json" },
        body: JSON.stringify({ token: `${invitation.token}x`, password: "a forged long passphrase" }),
      });
      expect(unknown.status).toBe(401);
      expect(((await unknown.json()) as { code: string }).code).toBe("ERR_UNAUTHENTICATED");
      expect(unknown.headers.get("set-cookie")).toBeNull();
    });

    it("changes a role, deactivates with a confirmation naming what stops working, reactivates; the last owner cannot deactivate themself", async () => {
      const member = await addUser(t, tenant, "viewer");
      secrets.push(member.password, member.token);
      await open(owner, "users", "Users");
      const row = userRow(owner, member.email);
      await row.waitFor();

      const roleAsked = acceptDialog(owner);
      await owner.getByLabel(`Role of ${member.email}`).selectOption("admin");
      expect(await roleAsked).toContain("admin");
      await eventually(async () => (await userOf(member.id)).role).toBe("admin");

      const deactivateAsked = acceptDialog(owner);
      await owner.getByRole("button", { name: `Deactivate ${member.email}` }).click();
      const question = await deactivateAsked;
      expect(question).toMatch(/sessions end at once/);
      expect(question).toMatch(/can no longer sign in/);
      expect(question).toMatch(/invitation or password reset/);
      await eventually(() => whoamiStatus(t, member.token)).toBe(401);
      await eventually(() => row.textContent()).toContain("deactivated");

      const reactivateAsked = acceptDialog(owner);
      await owner.getByRole("button", { name: `Reactivate ${member.email}` }).click();
      await reactivateAsked;
      await eventually(async () => (await userOf(member.id)).status).toBe("active");

      // The tenant's only owner deactivating themself: 409, shown, nothing changed.
      const ownerRow = userRow(owner, tenant.email);
      const selfAsked = acceptDialog(owner);
      await ownerRow.getByRole("button", { name: `Deactivate ${tenant.email}` }).click();
      await selfAsked;
      await owner.getByRole("alert").getByText(/owner/).waitFor();
      expect(await whoamiStatus(t, tenant.token)).toBe(200);
    });

    it("issues a password reset shown once; the reset page refuses a too-short password at its field, sets a good one, and the user signs in with it", async () => {
      const member = await addUser(t, tenant, "viewer");
      secrets.push(member.password, member.token);
      await open(owner, "users", "Users");
      const asked = acceptDialog(owner);
      await owner.getByRole("button", { name: `Reset password of ${member.email}` }).click();
      expect(await asked).toContain("ends every session");
      const { token } = await shownLink(owner, "password-reset");
      expect(token).toMatch(/^hanse_rt_/);

      const page = await (await newContext()).newPage();
      await page.goto(`${base}/console/#/password-reset/${encodeURIComponent(token)}`);
      await page.getByRole("heading", { name: "Set a new password" }).waitFor();
      expect(page.url()).not.toContain(token);
      await page.getByLabel("New password", { exact: true }).fill("short");
      await page.getByRole("button", { name: "Set password" }).click();
      await eventually(() => fieldError(page, "New password").textContent()).toContain(
        "at least 15 characters",
      );
      expect(await whoamiStatus(t, member.token)).toBe(200);

      const password = "a brand new passphrase after the reset";
      secrets.push(password);
      await page.getByLabel("New password", { exact: true }).fill(password);
      await page.getByRole("button", { name: "Set password" }).click();
      await page.getByText("Your new password is set").waitFor();
      expect(await whoamiStatus(t, member.token)).toBe(401);
      await page.getByLabel("Tenant").fill(tenant.slug);
      await page.getByLabel("E-mail").fill(member.email);
      await page.getByLabel("Password", { exact: true }).fill(password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await nav(page).getByRole("link", { name: "Uploads" }).waitFor();
      expect(new URL(page.url()).pathname).toBe("/console/");
    });

    it("Account: my sessions with the current one marked; a wrong current password is shown at its field; changing it ends my other sessions; I end another session and then this one", async () => {
      const member: MemberUser = await addUser(t, tenant, "admin");
      secrets.push(member.password, member.token);
      const page = await signedInPage(member.email, member.password);
      await nav(page).getByRole("link", { name: "Account" }).click();
      await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
      // The invitation's session and this one.
      await eventually(() => page.getByRole("row").count()).toBe(3);
      expect(await page.getByText("(this session)").count()).toBe(1);

      await page.getByLabel("Current password", { exact: true }).fill("not my password at all");
      await page.getByLabel("New password", { exact: true }).fill("an entirely new long passphrase");
      await page.getByRole("button", { name: "Change password" }).click();
      await eventually(() => fieldError(page, "Current password").textContent()).not.toBe("");
      expect(await whoamiStatus(t, member.token)).toBe(200);

      const password = "an entirely new long passphrase";
      secrets.push(password);
      await page.getByLabel("Current password", { exact: true }).fill(member.password);
      await page.getByLabel("New password", { exact: true }).fill(password);
      await page.getByRole("button", { name: "Change password" }).click();
      await page.getByText("Password changed").waitFor();
      await shoot(page, "account");
      expect(await fieldError(page, "Current password").count()).toBe(0);
      expect(await whoamiStatus(t, member.token)).toBe(401);
      await eventually(() => page.getByRole("row").count()).toBe(2);

      const other = await t.inject({
        method: "POST",
        url: "/api/v1/auth/sessions",
        payload: { tenant: tenant.slug, email: member.email, password },
      });
      const otherToken = other.json<{ token: string }>().token;
      secrets.push(otherToken);
      await page.reload();
      await eventually(() => page.getByRole("row").count()).toBe(3);
      const endOther = page.getByRole("button", { name: /^End session started/ });
      const asked = acceptDialog(page);
      await endOther.click();
      expect(await asked).toContain("signed out at once");
      await eventually(() => whoamiStatus(t, otherToken)).toBe(401);
      await eventually(() => page.getByRole("row").count()).toBe(2);

      const signOut = acceptDialog(page);
      await page.getByRole("button", { name: "End this session" }).click();
      await signOut;
      await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    });

    it("Single sign-on: an issuer that does not answer is refused at its field; the owner saves the settings (the secret never shown) and removes them", async () => {
      await nav(owner).getByRole("link", { name: "Single sign-on" }).click();
      await owner.getByRole("heading", { name: "Single sign-on", level: 1 }).waitFor();
      await owner.getByText("Single sign-on is not set up.").waitFor();

      const closed = await freePort();
      await owner.getByLabel("Issuer", { exact: true }).fill(`http://127.0.0.1:${String(closed)}/nobody`);
      await owner.getByLabel("Client id", { exact: true }).fill(idp.clientId);
      await owner.getByLabel("Client secret", { exact: true }).fill(idp.clientSecret);
      await owner.getByRole("button", { name: "Save single sign-on" }).click();
      await eventually(() => fieldError(owner, "Issuer").count()).toBe(1);
      expect((await t.inject({ url: "/api/v1/admin/sso", headers: bearer(tenant.token) })).statusCode).toBe(
        404,
      );

      await owner.getByLabel("Issuer", { exact: true }).fill(idp.issuer);
      await owner.getByLabel("Client secret", { exact: true }).fill(idp.clientSecret);
      await owner.getByLabel("Create users automatically").selectOption("viewer");
      await owner.getByLabel("For e-mail domains").fill(`${tenant.slug}.test`);
      await owner.getByRole("button", { name: "Save single sign-on" }).click();
      const current = owner.getByRole("region", { name: "Current settings" });
      await eventually(() => current.textContent()).toContain(idp.issuer);
      expect(await current.textContent()).toContain(`viewer for ${tenant.slug}.test`);
      await shoot(owner, "sso");
      expect(await owner.getByLabel("Client secret", { exact: true }).inputValue()).toBe("");
      expect(await owner.content()).not.toContain(idp.clientSecret);
      const saved = await t.inject({ url: "/api/v1/admin/sso", headers: bearer(tenant.token) });
      expect(saved.json()).toMatchObject({
        issuer: idp.issuer,
        clientId: idp.clientId,
        autoCreate: { role: "viewer", emailDomains: [`${tenant.slug}.test`] },
      });
      await owner.reload();
      await eventually(() => current.textContent()).toContain("set (never shown)");
      expect(await owner.getByLabel("Issuer", { exact: true }).inputValue()).toBe(idp.issuer);
      expect(await owner.content()).not.toContain(idp.clientSecret);

      const asked = acceptDialog(owner);
      await owner.getByRole("button", { name: "Remove single sign-on" }).click();
      expect(await asked).toContain("stops working");
      await owner.getByText("Single sign-on is not set up.").waitFor();
      expect((await t.inject({ url: "/api/v1/admin/sso", headers: bearer(tenant.token) })).statusCode).toBe(
        404,
      );
    });

    it("hides what a role may not do: an admin and a viewer see the users but no invite, role or deactivate control; neither can change single sign-on", async () => {
      for (const role of ["admin", "viewer"] as const) {
        const member = await addUser(t, tenant, role);
        secrets.push(member.password, member.token);
        const page = await signedInPage(member.email, member.password);
        await nav(page).getByRole("link", { name: "Users" }).click();
        await page.getByRole("heading", { name: "Users", level: 1 }).waitFor();
        await userRow(page, tenant.email).waitFor();
        expect(await page.getByRole("button", { name: "Invite" }).count()).toBe(0);
        expect(
          await page.getByRole("button", { name: /^(Deactivate|Reactivate|Reset password)/ }).count(),
        ).toBe(0);
        expect(await page.locator("main select").count()).toBe(0);
        expect(await page.getByRole("columnheader", { name: "Actions" }).count()).toBe(0);

        await nav(page).getByRole("link", { name: "Single sign-on" }).click();
        await page.getByText("Single sign-on is not set up.").waitFor();
        expect(await page.getByRole("button", { name: "Save single sign-on" }).count()).toBe(0);
        expect(await page.getByLabel("Client secret").count()).toBe(0);
        expect(await nav(page).getByRole("link", { name: "Account" }).count()).toBe(1);
        await page.context().close();
      }
    });

    it("names every control of these pages for screen readers", async () => {
      const unnamed: string[] = [];
      for (const [path, heading] of [
        ["users", "Users"],
        ["sso", "Single sign-on"],
        ["account", "Account"],
        ["invitation/x", "Accept your invitation"],
        ["password-reset/x", "Set a new password"],
      ] as const) {
        await owner.goto("about:blank");
        await owner.goto(`${base}/console#/${path}`);
        await owner.getByRole("heading", { name: heading, level: 1 }).waitFor();
        await owner.locator("main table, main form").first().waitFor();
        unnamed.push(
          ...(await owner.evaluate<
            string[]
          >(`[...document.querySelectorAll("main input, main select, main textarea, main button, main a[href]")]
            .filter((e) => !(e.labels?.length || e.getAttribute("aria-label") || e.textContent.trim()))
            .map((e) => "${path}: " + e.outerHTML.slice(0, 80))`)),
        );
      }
      expect(unnamed).toEqual([]);
    });

    it("reads well on a 390 px phone screen: none of these pages scrolls sideways", async () => {
      const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const small = await phone.newPage();
      await signIn(small, tenant.email, tenant.password);
      const overflowing: string[] = [];
      for (const [path, heading] of [
        ["users", "Users"],
        ["sso", "Single sign-on"],
        ["account", "Account"],
        ["invitation/x", "Accept your invitation"],
      ] as const) {
        await small.goto("about:blank");
        await small.goto(`${base}/console#/${path}`);
        await small.getByRole("heading", { name: heading, level: 1 }).waitFor();
        await small.locator("main table, main form").first().waitFor();
        overflowing.push(...(await small.evaluate<string[]>(widerThanScreen)).map((e) => `${path}: ${e}`));
      }
      expect(overflowing).toEqual([]);
      await phone.close();
    });

    it("no password or token of these pages reaches a URL the browser requests or a server log line", () => {
      expect(pageErrors).toEqual([]);
      expect(requested.length).toBeGreaterThan(20);
      expect(secrets.length).toBeGreaterThan(10);
      for (const url of requested) {
        for (const secret of secrets) expect(url).not.toContain(encodeURIComponent(secret));
      }
      expect(t.logs.length).toBeGreaterThan(10);
      for (const line of t.logs) {
        for (const secret of secrets)
          expect(line, `log line leaks a secret: ${line.slice(0, 200)}`).not.toContain(secret);
      }
    });
  },
);
