// remote mode: in-process only: a webhook receiver's settings of its own, seals and tampers with its own database's audit trail, and reads the server's log lines
import { sql } from "kysely";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealAuditTrails } from "../../src/platform/audit/index.js";
import { browserTestsSkipped, shoot, eventually, launchBrowser } from "../support/browser.js";
import {
  createEntitlementApp,
  provisionTenant,
  systemToken,
  type ProvisionedTenant,
} from "../support/fixtures.js";
import { startHttpsReceiver, webhookReceiverEnv, type HttpsReceiver } from "../support/https-receiver.js";
import { signedHeaders, type ServiceCredential } from "../support/service-signer.js";
import { bearer, bootstrapToken, createTestApp, type TestApp } from "../support/test-app.js";
import { addUser, userIdOf, whoamiStatus } from "../support/users.js";
import { subscribeWebhook } from "../support/webhook-subscriptions.js";

/**
 * Issue 33 item 5 (console), rules/contract §7 "Audit" and "Offboarding" in Chromium: the audit page's
 * filters (type or type prefix, who, what, time range), newest first, each record linking to what
 * it names, the trail's verification at the top; revoking a service binding, deleting a webhook
 * subscription, suspending and resuming a tenant, each after a confirmation that names what stops
 * working. What a role may not do is not offered.
 */
describe.skipIf(browserTestsSkipped())(
  "rules/contract §7 audit and offboarding in the console (Chromium)",
  { timeout: 180_000 },
  () => {
    let t: TestApp;
    let receiver: HttpsReceiver;
    let browser: Browser;
    let base: string;
    let tenant: ProvisionedTenant;
    let owner: Page;
    /** Every URL the browser requested, of every context. */
    const requested: string[] = [];
    /** Uncaught errors of the console's scripts. */
    const pageErrors: string[] = [];
    /** Passwords, tokens and secrets that must reach no URL and no log line. */
    const secrets: string[] = [bootstrapToken];

    const newContext = async (): Promise<BrowserContext> => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      context.on("request", (request) => requested.push(request.url()));
      context.on("page", (opened) => opened.on("pageerror", (error) => pageErrors.push(error.message)));
      return context;
    };

    const nav = (page: Page) => page.getByRole("navigation", { name: "Console sections" });

    const signIn = async (page: Page, who: { slug: string; email: string; password: string }) => {
      await page.goto(`${base}/console`);
      await page.getByLabel("Tenant").fill(who.slug);
      await page.getByLabel("E-mail").fill(who.email);
      await page.getByLabel("Password", { exact: true }).fill(who.password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await nav(page).getByRole("link", { name: "Uploads" }).waitFor();
    };

    /** A page of a system tenant's access token (the bootstrap administrator's, or a scoped one). */
    const systemPage = async (token: string) => {
      const page = await (await newContext()).newPage();
      await page.goto(`${base}/console`);
      await page.getByLabel("Access token", { exact: true }).fill(token);
      await page.getByRole("button", { name: "Sign in with token" }).click();
      await nav(page).getByRole("link", { name: "Tenants" }).waitFor();
      return page;
    };

    /** Opens a page anew (drawn from the server, even when it is the page already shown) and waits for its heading. */
    const open = async (page: Page, path: string, heading: string) => {
      await page.goto(`${base}/console#/${path}`);
      await page.reload();
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
    };

    /** The message shown under the form control labelled `label`, once the server refused it. */
    const fieldError = (page: Page, label: string) =>
      page
        .locator(".field")
        .filter({ has: page.getByLabel(label, { exact: true }) })
        .locator(".field-error");

    /** Answers the next confirm() of `page` (accept or dismiss), keeping its question. */
    const answerDialog = (page: Page, accept: boolean) =>
      new Promise<string>((resolve) => {
        page.once("dialog", (dialog) => {
          resolve(dialog.message());
          void (accept ? dialog.accept() : dialog.dismiss());
        });
      });

    const adminGet = (token: string, url: string) => t.inject({ url, headers: bearer(token) });

    const introspect = async (credential: ServiceCredential) => {
      const target = "/api/v1/public/v1/app-entitlements/service/introspect/user-1";
      return (await t.inject({ url: target, headers: signedHeaders(credential, "GET", target) })).statusCode;
    };

    const createPartner = async (name: string) => {
      const response = await t.inject({
        method: "POST",
        url: "/api/v1/admin/partners",
        headers: bearer(tenant.token),
        payload: { name },
      });
      expect(response.statusCode).toBe(201);
      return response.json<{ id: string }>().id;
    };

    /** The audit table's rows (without its head), as text. */
    const auditRows = (page: Page) => page.getByRole("table", { name: "Audit events" }).locator("tbody tr");

    const seal = () => sealAuditTrails(t.container.database.db, () => new Date());

    beforeAll(async () => {
      receiver = await startHttpsReceiver();
      receiver.answer = () => ({ status: 204 });
      t = await createTestApp({ env: webhookReceiverEnv(receiver) });
      base = (await t.app.listen({ port: 0, host: "127.0.0.1" })).replace("localhost", "127.0.0.1");
      tenant = await provisionTenant(t);
      secrets.push(tenant.password, tenant.token);
      browser = await launchBrowser();
      owner = await (await newContext()).newPage();
      await signIn(owner, tenant);
    });

    afterAll(async () => {
      await browser.close();
      await t.close();
      await receiver.close();
    });

    it("lists the audit trail newest first and filters it by type prefix, who (principal id), what (target id) and time range on the server; each record links to what it names", async () => {
      const first = await createPartner("Audit Partner One");
      const second = await createPartner("Audit Partner Two");
      const app = await createEntitlementApp(t, tenant.token, { appId: "audited" });
      secrets.push(app.binding.secret);
      const adminId = await userIdOf(t, tenant.token);
      await seal();

      await open(owner, "audit", "Audit events");
      const rows = auditRows(owner);
      await eventually(() => rows.count()).toBeGreaterThan(4);
      await eventually(() => owner.getByRole("region", { name: "Verification" }).textContent()).toMatch(
        /✓ verified/,
      );
      await shoot(owner, "audit");
      // Newest first: the binding (made last) before the partners, the second partner before the first.
      const types = (await rows.locator("td:nth-child(2)").allTextContents()).map((s) => s.trim());
      expect(types.indexOf("service_binding.created")).toBeLessThan(types.indexOf("partner.created"));
      expect(types.indexOf("app.created")).toBeLessThan(types.indexOf("partner.created"));
      const partnerRows = rows.filter({ hasText: "partner.created" });
      expect(
        await partnerRows
          .first()
          .getByRole("link", { name: /^partner / })
          .getAttribute("title"),
      ).toBe(second);

      // A type prefix: only the partners' records.
      await owner.getByLabel("Type or prefix").fill("partner.");
      await owner.getByRole("button", { name: "Apply" }).click();
      await eventually(() => owner.evaluate<string>("location.hash")).toBe("#/audit?type=partner.");
      await eventually(async () => [await rows.count(), await partnerRows.count()]).toEqual([2, 2]);
      await shoot(owner, "audit-filtered");

      // What: one partner's id; who: the administrator who made it.
      await owner.getByLabel("What (target id)").fill(first);
      await owner.getByLabel("Who (principal id)").fill(adminId);
      await owner.getByRole("button", { name: "Apply" }).click();
      await eventually(async () => [
        await rows.count(),
        await rows.getByRole("link", { name: /^partner / }).getAttribute("title"),
      ]).toEqual([1, first]);
      expect(await rows.textContent()).toContain("user");
      // Reloaded, the filter is still applied: it lives in the page's address.
      await owner.reload();
      await eventually(() => owner.getByLabel("What (target id)").inputValue()).toBe(first);
      await eventually(() => rows.count()).toBe(1);

      // A time range after every record: nothing.
      await owner.getByLabel("What (target id)").fill("");
      await owner.getByLabel("Who (principal id)").fill("");
      await owner.getByLabel("Occurred from").fill("2099-01-01T00:00");
      await owner.getByRole("button", { name: "Apply" }).click();
      await owner.getByText("No audit events match.").waitFor();

      // The binding's record links to the Service bindings page; the time to the record itself.
      await open(owner, "audit?type=service_binding.", "Audit events");
      await eventually(() => rows.count()).toBe(1);
      await rows.getByRole("link", { name: /^service binding / }).click();
      await owner.getByRole("heading", { name: "Service bindings", level: 1 }).waitFor();
      await open(owner, "audit?type=service_binding.", "Audit events");
      await eventually(() => rows.count()).toBe(1);
      await rows.getByRole("link").first().click();
      await owner.getByRole("heading", { name: "Audit event", level: 1 }).waitFor();
      await eventually(() => owner.locator("dl.fields").textContent()).toContain("service_binding.created");
      expect(await owner.locator("dl.fields").textContent()).toContain(app.binding.id);
      expect(await owner.content()).not.toContain(app.binding.secret);
    });

    it("pages a filtered trail with Load more: 50 records, then the rest, newest first throughout (the cursor bound to the filter)", async () => {
      for (let i = 0; i < 52; i += 1) await createPartner(`Paged Partner ${String(i)}`);
      await open(owner, "audit?type=partner.created", "Audit events");
      const rows = auditRows(owner);
      await eventually(() => rows.count()).toBe(50);
      await owner.getByRole("button", { name: "Load more" }).click();
      await eventually(() => rows.count()).toBe(54);
      await eventually(() => owner.getByRole("button", { name: "Load more" }).isHidden()).toBe(true);
      const types = await rows.locator("td:nth-child(2)").allTextContents();
      expect(new Set(types.map((s) => s.trim()))).toEqual(new Set(["partner.created"]));
      const listed = await t.inject({
        url: "/api/v1/admin/audit-events?type=partner.created&order=desc&limit=100",
        headers: bearer(tenant.token),
      });
      const ids = listed.json<{ items: { id: string }[] }>().items.map((e) => e.id);
      const links = await rows.locator("td:first-child a").all();
      const hrefs = await Promise.all(links.map((a) => a.getAttribute("href")));
      expect(hrefs).toEqual(ids.map((id) => `#/audit/${id}`));
    });

    it("an invalid filter (occurred from later than before) shows the server's message at the field, and lists nothing", async () => {
      await open(owner, "audit", "Audit events");
      await eventually(() => auditRows(owner).count()).toBeGreaterThan(0);
      await owner.getByLabel("Occurred from").fill("2026-06-02T00:00");
      await owner.getByLabel("Occurred before").fill("2026-06-01T00:00");
      await owner.getByRole("button", { name: "Apply" }).click();
      await eventually(() => fieldError(owner, "Occurred before").textContent()).toContain(
        "later than occurredFrom",
      );
      expect(await owner.getByLabel("Occurred before", { exact: true }).getAttribute("aria-invalid")).toBe(
        "true",
      );
      expect(await auditRows(owner).count()).toBe(0);
    });

    it("shows the verification at the top: records not sealed yet, then verified with count and time, then a tampered record named with a link to it", async () => {
      const other = await provisionTenant(t);
      secrets.push(other.password, other.token);
      const page = await (await newContext()).newPage();
      await signIn(page, other);
      await open(page, "audit", "Audit events");
      const verification = page.getByRole("region", { name: "Verification" });
      await eventually(() => verification.textContent()).toMatch(/not sealed yet/);

      await seal();
      await page.reload();
      await eventually(() => verification.textContent()).toMatch(/✓ verified/);
      const checked = (await adminGet(other.token, "/api/v1/admin/audit-events/verification")).json<{
        count: number;
      }>();
      expect(await verification.textContent()).toContain(`${String(checked.count)} sealed record`);
      expect(await verification.textContent()).toContain("checked through");
      expect(await verification.textContent()).not.toMatch(/not sealed yet/);

      const { rows } = await sql<{ id: string }>`SELECT id FROM audit_events
        WHERE tenant_id = ${other.id}::uuid AND seal_sequence = 2`.execute(t.container.database.db);
      const id = rows[0]?.id ?? "(none)";
      await sql`UPDATE audit_events SET source_address = '203.0.113.9'
        WHERE tenant_id = ${other.id}::uuid AND id = ${id}::uuid`.execute(t.container.database.db);
      await page.reload();
      const alert = verification.getByRole("alert");
      await eventually(() => alert.textContent()).toContain("does not verify");
      expect(await alert.textContent()).toContain("changed at sequence 2");
      await shoot(page, "audit-tampered");
      await alert.getByRole("link", { name: id }).click();
      await page.getByRole("heading", { name: "Audit event", level: 1 }).waitFor();
      await eventually(() => page.locator("dl.fields").textContent()).toContain("203.0.113.9");
      await page.context().close();
    });

    it("revokes a service binding after a confirmation naming what stops working; cancelling changes nothing", async () => {
      const app = await createEntitlementApp(t, tenant.token, { appId: "offboarded", audience: "revoke-me" });
      secrets.push(app.binding.secret);
      expect(await introspect(app.binding)).toBe(200);
      await open(owner, "service-bindings", "Service bindings");
      const row = owner.getByRole("row").filter({ hasText: "revoke-me" });
      await eventually(() => row.textContent()).toContain("active");

      const cancelled = answerDialog(owner, false);
      await owner.getByRole("button", { name: "Revoke offboarded revoke-me" }).click();
      const question = await cancelled;
      expect(question).toMatch(
        /Every credential of it, the previous one of a rotation's overlap included, is refused at once/,
      );
      expect(question).toMatch(/webhook subscriptions stop/);
      expect(question).toMatch(/Grants already issued stay valid until they expire/);
      expect(await introspect(app.binding)).toBe(200);
      expect(await row.textContent()).toContain("active");

      const accepted = answerDialog(owner, true);
      await owner.getByRole("button", { name: "Revoke offboarded revoke-me" }).click();
      await accepted;
      await eventually(() => row.textContent()).toContain("revoked");
      expect(await introspect(app.binding)).toBe(401);
      expect(await row.getByRole("button").count()).toBe(0);
      await shoot(owner, "service-bindings-revoked");
    });

    it("deletes a webhook subscription after a confirmation that no delivery of it starts afterwards; cancelling changes nothing", async () => {
      const { subscription } = await subscribeWebhook(t, tenant.token, "hooked", receiver.url);
      secrets.push(subscription.secret);
      const href = `/api/v1/admin/webhook-subscriptions/${subscription.id}`;
      await open(owner, `webhooks/${subscription.id}`, "Webhook subscription");
      const remove = owner.getByRole("button", { name: "Delete subscription" });

      const cancelled = answerDialog(owner, false);
      await remove.click();
      expect(await cancelled).toMatch(/No delivery of it starts after this/);
      expect((await adminGet(tenant.token, href)).statusCode).toBe(200);
      expect(await owner.getByRole("heading", { name: "Webhook subscription", level: 1 }).count()).toBe(1);

      const accepted = answerDialog(owner, true);
      await remove.click();
      await accepted;
      await owner.getByRole("heading", { name: "Webhook subscriptions", level: 1 }).waitFor();
      expect((await adminGet(tenant.token, href)).statusCode).toBe(404);
      await eventually(() => owner.getByRole("link", { name: receiver.url }).count()).toBe(0);
    });

    it("the system administrator suspends a tenant after a confirmation naming what stops working, and resumes it; cancelling changes nothing; the system tenant has no Suspend", async () => {
      const customer = await provisionTenant(t);
      secrets.push(customer.password, customer.token);
      const admin = await systemPage(bootstrapToken);
      await open(admin, "tenants", "Tenants");
      const row = admin.getByRole("row").filter({ hasText: customer.slug });
      await eventually(() => row.textContent()).toContain("active");
      const suspend = admin.getByRole("button", { name: `Suspend ${customer.slug}` });

      const cancelled = answerDialog(admin, false);
      await suspend.click();
      const question = await cancelled;
      expect(question).toMatch(
        /Every session, access token, partner API key and service credential of the tenant is refused/,
      );
      expect(question).toMatch(/deliveries and webhooks wait/);
      expect(question).toMatch(/Nothing is deleted/);
      expect(await whoamiStatus(t, customer.token)).toBe(200);

      const accepted = answerDialog(admin, true);
      await suspend.click();
      await accepted;
      await eventually(() => row.textContent()).toContain("suspended");
      expect(await whoamiStatus(t, customer.token)).toBe(401);
      await shoot(admin, "tenants-suspended");

      const resumed = answerDialog(admin, true);
      await admin.getByRole("button", { name: `Resume ${customer.slug}` }).click();
      expect(await resumed).toMatch(/work again/);
      await eventually(() => row.textContent()).toContain("active");
      expect(await whoamiStatus(t, customer.token)).toBe(200);

      const systemRow = admin
        .getByRole("row")
        .filter({ has: admin.getByRole("cell", { name: "system", exact: true }) });
      await systemRow.first().waitFor();
      expect(await systemRow.getByRole("button").count()).toBe(0);
      await admin.context().close();
    });

    it("hides what a role may not do: a viewer sees bindings, subscriptions and the audit trail but no Rotate, Revoke or Delete; a system viewer no Suspend or Resume", async () => {
      const viewer = await addUser(t, tenant, "viewer");
      secrets.push(viewer.password, viewer.token);
      const { subscription } = await subscribeWebhook(t, tenant.token, "viewed", receiver.url);
      secrets.push(subscription.secret);
      const page = await (await newContext()).newPage();
      await signIn(page, { slug: tenant.slug, email: viewer.email, password: viewer.password });

      await open(page, "service-bindings", "Service bindings");
      await page.getByRole("row").filter({ hasText: "aud-viewed" }).waitFor();
      expect(
        await page
          .locator("main")
          .getByRole("button", { name: /Rotate|Revoke|Create/ })
          .count(),
      ).toBe(0);
      expect(await page.getByRole("columnheader", { name: "Actions" }).count()).toBe(0);

      await open(page, `webhooks/${subscription.id}`, "Webhook subscription");
      await page.locator("dl.fields").getByText(receiver.url).waitFor();
      expect(await page.getByRole("button", { name: /Delete|Disable|Enable/ }).count()).toBe(0);

      await open(page, "audit", "Audit events");
      await eventually(() => auditRows(page).count()).toBeGreaterThan(0);
      await page
        .getByRole("region", { name: "Verification" })
        .getByText(/verified|not sealed/)
        .first()
        .waitFor();
      await page.context().close();

      const token = await systemToken(t, ["tenants:list", "tenants:read"]);
      secrets.push(token);
      const systemViewer = await systemPage(token);
      await open(systemViewer, "tenants", "Tenants");
      await systemViewer.getByRole("row").filter({ hasText: tenant.slug }).waitFor();
      expect(await systemViewer.getByRole("button", { name: /^(Suspend|Resume)/ }).count()).toBe(0);
      expect(await systemViewer.getByRole("columnheader", { name: "Actions" }).count()).toBe(0);
      await systemViewer.context().close();
    });

    it("no password, token or secret reaches a URL the browser requests or a server log line", () => {
      expect(pageErrors).toEqual([]);
      expect(requested.length).toBeGreaterThan(20);
      for (const url of requested) {
        for (const secret of secrets) expect(url).not.toContain(encodeURIComponent(secret));
        expect(url).not.toMatch(/token|password|secret|csrf/i);
      }
      expect(t.logs.length).toBeGreaterThan(10);
      for (const line of t.logs) {
        for (const secret of secrets)
          expect(line, `log line leaks a secret: ${line.slice(0, 200)}`).not.toContain(secret);
      }
    });
  },
);
