import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  rejectedOrders,
  setupPartner,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { browserTestsSkipped, launchBrowser } from "../support/browser.js";
import { provisionTenant, uniqueSlug, type ProvisionedTenant } from "../support/fixtures.js";
import { bearer, bootstrapToken, createTestApp, startWorker, type TestApp } from "../support/test-app.js";
import { waitUntil } from "../support/wait-until.js";
import type { Worker } from "../../src/platform/jobs/index.js";

/** Set CONSOLE_SCREENSHOTS=docs/console to refresh the screenshots of docs/console.md. */
const screenshots = process.env.CONSOLE_SCREENSHOTS;
const shoot = async (page: Page, name: string) => {
  if (screenshots) await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
};

/** A browser under a loaded machine: wait long for what must happen, never judge by time. */
const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 });

describe.skipIf(browserTestsSkipped())("operator console in Chromium", { timeout: 180_000 }, () => {
  let t: TestApp;
  let base: string;
  let worker: Worker;
  let browser: Browser;
  let customer: ProvisionedTenant;
  let partner: PartnerSetup;
  let operator: BrowserContext;
  let page: Page;
  /** Every URL the browser requested, of every context. */
  const requested: string[] = [];
  /** Uncaught errors of the console's scripts, of every page. */
  const pageErrors: string[] = [];
  /** Values that must never appear in a URL. */
  const secrets: string[] = [bootstrapToken];

  const newContext = async (viewport = { width: 1280, height: 900 }) => {
    const context = await browser.newContext({ viewport });
    context.on("request", (request) => requested.push(request.url()));
    context.on("page", (opened) => opened.on("pageerror", (error) => pageErrors.push(error.message)));
    return context;
  };

  const signIn = async (p: Page, tenant: ProvisionedTenant) => {
    await p.goto(`${base}/console`);
    await p.getByLabel("Tenant").fill(tenant.slug);
    await p.getByLabel("E-mail").fill(tenant.email);
    await p.getByLabel("Password").fill(tenant.password);
    await p.getByRole("button", { name: "Sign in", exact: true }).click();
    await p
      .getByRole("navigation", { name: "Console sections" })
      .getByRole("link", { name: "Uploads" })
      .waitFor();
  };

  beforeAll(async () => {
    t = await createTestApp();
    base = (await t.app.listen({ port: 0, host: "127.0.0.1" })).replace("localhost", "127.0.0.1");
    customer = await provisionTenant(t);
    secrets.push(customer.password, customer.token);
    partner = await setupPartner(t, customer.token);
    secrets.push(partner.token);
    worker = await startWorker(t, "console-test");
    browser = await launchBrowser();
    operator = await newContext();
    page = await operator.newPage();
  });

  afterAll(async () => {
    await browser.close();
    await worker.stop(10_000);
    await t.close();
  });

  it("signs in with tenant, e-mail and password into an HttpOnly, SameSite=Strict cookie scoped to /console", async () => {
    await page.goto(`${base}/console`);
    await shoot(page, "sign-in");
    await signIn(page, customer);
    const cookies = await operator.cookies(`${base}/console`);
    expect(cookies).toHaveLength(1);
    const [cookie] = cookies;
    expect(cookie).toMatchObject({
      name: "hanse_console",
      path: "/console",
      httpOnly: true,
      sameSite: "Strict",
    });
    // Served over plain HTTP here: Secure would keep the browser from sending it.
    expect(cookie?.secure).toBe(false);
    expect(cookie?.value).not.toContain(customer.token);
    expect(await page.evaluate<string>("document.cookie")).toBe("");
    expect(await page.evaluate<number>("localStorage.length + sessionStorage.length")).toBe(0);
  });

  it("shows an ORDERS interchange uploaded through the partner API as rejected, and an accepted one's ORDRSP", async () => {
    const broken = await upload(t, partner, rejectedOrders("ICBROKEN1"), "console-broken");
    const accepted = await upload(t, partner, validOrders("ICGOOD1"), "console-good");
    expect([broken.statusCode, accepted.statusCode]).toEqual([202, 202]);
    await waitUntil(
      async () => {
        const list = await t.inject({
          url: "/api/v1/admin/exchange-uploads",
          headers: bearer(customer.token),
        });
        const statuses = list.json<{ items: { status: string }[] }>().items.map((u) => u.status);
        return statuses.length === 2 && statuses.every((s) => s === "processed" || s === "rejected");
      },
      { what: "both uploads processed", timeoutMs: 30_000 },
    );

    await page.goto(`${base}/console#/uploads`);
    const row = page.getByRole("row").filter({ hasText: "ICBROKEN1" });
    await eventually(() => row.getByText("rejected").count()).toBe(1);
    await expect
      .poll(() => page.getByRole("row").filter({ hasText: "ICGOOD1" }).getByText("processed").count())
      .toBe(1);
    await shoot(page, "uploads");

    await row.getByRole("link").click();
    await page.getByRole("heading", { name: "Upload" }).waitFor();
    await eventually(() => page.locator("dl.fields").textContent()).toContain("ICBROKEN1");
    expect(await page.locator("dl.fields").textContent()).toContain("rejected");
    await shoot(page, "upload");

    await page.goto(`${base}/console#/deliveries`);
    await eventually(() => page.getByRole("row").filter({ hasText: "ORDRSP" }).count()).toBeGreaterThan(0);
    await shoot(page, "deliveries");
  });

  it("issues a partner API key whose secret is shown once, and revokes it", async () => {
    await page.goto(`${base}/console#/api-keys`);
    await page.getByLabel("Partner", { exact: true }).selectOption(partner.partnerId);
    await page.getByLabel("Name", { exact: true }).fill("console key");
    await page.getByRole("button", { name: "Issue key" }).click();
    const secret = page.locator("[data-secret]");
    await secret.waitFor();
    const token = (await secret.textContent()) ?? "";
    expect(token).toMatch(/^[0-9a-f-]{36}:.+/);
    secrets.push(token);
    const mailbox = (credential: string) =>
      t.inject({
        url: `/api/v1/b2b-exchange/partner/connections/${partner.connectionId}/mailbox`,
        headers: bearer(credential),
      });
    expect((await mailbox(token)).statusCode).toBe(200);
    await shoot(page, "api-keys");

    await page.getByRole("button", { name: "I have stored it — hide" }).click();
    expect(await page.content()).not.toContain(token);
    await page.reload();
    await page.getByRole("row").filter({ hasText: "console key" }).waitFor();
    expect(await page.content()).not.toContain(token.split(":")[1]);

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revoke console key" }).click();
    await eventually(() => page.getByRole("button", { name: "Revoke console key" }).count()).toBe(0);
    expect((await mailbox(token)).statusCode).toBe(401);
  });

  it("shows a customer administrator no tenants; the system administrator creates one and sees provisioning finish", async () => {
    const nav = page.getByRole("navigation", { name: "Console sections" });
    expect(await nav.getByRole("link").allTextContents()).not.toContain("Tenants");
    await page.goto(`${base}/console#/tenants`);
    await page.getByRole("heading", { level: 1 }).waitFor();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).not.toBe("Tenants");

    const system = await newContext();
    const admin = await system.newPage();
    await admin.goto(`${base}/console`);
    await admin.getByLabel("Access token", { exact: true }).fill(bootstrapToken);
    await admin.getByRole("button", { name: "Sign in with token" }).click();
    await admin
      .getByRole("navigation", { name: "Console sections" })
      .getByRole("link", { name: "Tenants" })
      .click();
    const slug = uniqueSlug("console");
    await admin.getByLabel("Name", { exact: true }).fill("Console GmbH");
    await admin.getByLabel("Slug").fill(slug);
    await admin.getByLabel("Administrator e-mail").fill(`admin@${slug}.test`);
    await admin.getByLabel("Administrator password").fill("a long enough password");
    secrets.push("a long enough password");
    await admin.getByRole("button", { name: "Create tenant" }).click();
    const progress = admin.getByRole("region", { name: "Provisioning" });
    await progress.getByText("Finished").waitFor({ timeout: 120_000 });
    expect(await progress.textContent()).toContain("succeeded");
    await eventually(() => admin.getByRole("row").filter({ hasText: slug }).count()).toBe(1);
    await shoot(admin, "tenants");
    await system.close();
  });

  it("refuses a change from another origin or without the session's CSRF token, and creates nothing", async () => {
    const cookie = (await operator.cookies(`${base}/console`)).map((c) => `${c.name}=${c.value}`).join("; ");
    const session = await fetch(`${base}/console/session`, { headers: { cookie } });
    expect(session.status).toBe(200);
    const { csrfToken } = (await session.json()) as { csrfToken: string };
    const partners = async () =>
      (await t.inject({ url: "/api/v1/admin/partners", headers: bearer(customer.token) })).json<{
        items: unknown[];
      }>().items.length;
    const before = await partners();
    const create = (headers: Record<string, string>) =>
      fetch(`${base}/console/api/admin/partners`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json", ...headers },
        body: JSON.stringify({ name: "Forged GmbH" }),
      });

    const withoutToken = await create({ origin: base });
    const foreignOrigin = await create({ origin: "http://attacker.example", "x-console-csrf": csrfToken });
    const crossSite = await create({
      origin: base,
      "sec-fetch-site": "cross-site",
      "x-console-csrf": csrfToken,
    });
    const noOrigin = await create({ "x-console-csrf": csrfToken });
    const wrongToken = await create({ origin: base, "x-console-csrf": `${csrfToken.slice(1)}x` });
    for (const refused of [withoutToken, foreignOrigin, crossSite, noOrigin, wrongToken]) {
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { code: string }).code).toBe("ERR_FORBIDDEN");
    }
    const signIn = await fetch(`${base}/console/session`, {
      method: "POST",
      headers: { origin: "http://attacker.example", "content-type": "application/json" },
      body: JSON.stringify({ tenant: customer.slug, email: customer.email, password: customer.password }),
    });
    expect(signIn.status).toBe(403);
    expect(signIn.headers.get("set-cookie")).toBeNull();
    expect(await partners()).toBe(before);

    // The same request from the console's own origin with the token is the one that works.
    const allowed = await create({ origin: base, "x-console-csrf": csrfToken });
    expect(allowed.status).toBe(201);
    expect(await partners()).toBe(before + 1);
  });

  it("serves console pages with a strict Content-Security-Policy that its own pages keep", async () => {
    const response = await fetch(`${base}/console`);
    const policy = response.headers.get("content-security-policy") ?? "";
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "frame-ancestors 'none'",
      "object-src 'none'",
      "base-uri 'none'",
    ]) {
      expect(policy).toContain(directive);
    }
    expect(policy).not.toContain("unsafe-inline");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");

    const violations: string[] = [];
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) violations.push(message.text());
    });
    for (const section of ["uploads", "deliveries", "partners", "connections", "api-keys", "audit"]) {
      await page.goto(`${base}/console#/${section}`);
      await page.getByRole("table").first().waitFor();
      if (section !== "uploads" && section !== "deliveries" && section !== "api-keys")
        await shoot(page, section);
    }
    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it("reads well on a 390 px phone screen", async () => {
    const phone = await newContext({ width: 390, height: 844 });
    const small = await phone.newPage();
    await signIn(small, customer);
    await small.goto(`${base}/console#/uploads`);
    await small.getByRole("row").filter({ hasText: "ICBROKEN1" }).waitFor();
    // The page itself never scrolls sideways; wide tables scroll inside their frame.
    expect(await small.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await shoot(small, "uploads-phone");
    await phone.close();
  });

  it("never puts a credential into a URL the browser requests", () => {
    expect(requested.length).toBeGreaterThan(20);
    for (const url of requested) {
      for (const secret of secrets) expect(url).not.toContain(encodeURIComponent(secret));
      expect(url).not.toMatch(/token|password|secret|csrf/i);
    }
  });

  it("signs out: the cookie is gone and the session no longer works", async () => {
    const cookie = (await operator.cookies(`${base}/console`)).map((c) => `${c.name}=${c.value}`).join("; ");
    await page.goto(`${base}/console#/uploads`);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    expect(await operator.cookies(`${base}/console`)).toEqual([]);
    const replayed = await fetch(`${base}/console/api/admin/partners`, { headers: { cookie } });
    expect(replayed.status).toBe(401);
  });
});
