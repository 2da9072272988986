// remote mode: in-process only: a manual clock and the overdue sweep on its own database, for the browser
import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepOverdueDeliveries } from "../../src/modules/exchange/index.js";
import {
  setupPartner,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import type { Connection, Delivery } from "@hanse/client";
import {
  browserTestsSkipped,
  shoot,
  eventually,
  widerThanScreen,
  launchBrowser,
} from "../support/browser.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { addUser } from "../support/users.js";
import { bearer, bootstrapToken, createTestApp, type TestApp } from "../support/test-app.js";

/** The main area's controls that have no name for a screen reader. */
const unnamedControls = `[...document.querySelectorAll("main input, main select, main button, main a[href]")]
  .filter((e) => !(e.labels?.length || e.getAttribute("aria-label") || e.textContent.trim()))
  .map((e) => e.outerHTML.slice(0, 80))`;

const desktop = { width: 1366, height: 900 };
const phone = { width: 390, height: 844 };

/**
 * Issue 34 item 5: the console's parity with the API for the exchange. A partner's page (its
 * connections, keys, recent uploads and overdue deliveries), a connection's profile edited as a
 * new revision with a preview of what changes, suspending and resuming a connection, the upload's
 * raw bytes, and errors that name their cause; each at 1366 and at 390 px.
 */
describe.skipIf(browserTestsSkipped())(
  "exchange pages of the console (Chromium)",
  { timeout: 180_000 },
  () => {
    let t: TestApp;
    let base: string;
    let browser: Browser;
    let customer: ProvisionedTenant;
    let clock: { now(): Date; advance(ms: number): void };
    let acme: PartnerSetup;
    let other: PartnerSetup;
    let late: Delivery;
    let fresh: Delivery;
    let firstUpload: string;
    let context: BrowserContext;
    let page: Page;
    const requested: string[] = [];
    const pageErrors: string[] = [];
    let n = 0;

    const adminApi = async <T>(url: string, method: "GET" | "POST" | "PATCH" = "GET", payload?: object) => {
      const response = await t.inject({
        method,
        url,
        headers: bearer(customer.token),
        ...(payload ? { payload } : {}),
      });
      expect(response.statusCode, response.body).toBeLessThan(300);
      return response.json<T>();
    };

    const newPartner = async (name: string) => {
      const { id } = await adminApi<{ id: string }>("/api/v1/admin/partners", "POST", { name });
      return setupPartner(t, customer.token, { partnerId: id });
    };

    /** An accepted order of `p`, processed: its upload id and its ORDRSP delivery. */
    const processedOrder = async (p: PartnerSetup, reference: string) => {
      const r = await upload(t, p, validOrders(reference), `console-exchange-${n++}`);
      expect(r.statusCode, r.body).toBe(202);
      await t.drainJobs();
      const { uploadId } = r.json<{ uploadId: string }>();
      const { items } = await adminApi<{ items: Delivery[] }>(
        `/api/v1/admin/exchange-deliveries?uploadId=${uploadId}&messageType=ORDRSP`,
      );
      const [delivery] = items;
      if (!delivery) throw new Error(`no ORDRSP of ${reference}`);
      return { uploadId, delivery };
    };

    const getConnection = (id: string) => adminApi<Connection>(`/api/v1/admin/connections/${id}`);

    /** Opens a console page anew (drawn from the server) and waits for its heading. */
    const open = async (path: string, heading: string) => {
      await page.goto(`${base}/console#/${path}`);
      await page.reload();
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
    };

    /** At 390 px nothing scrolls sideways; the viewport goes back to 1366 px. */
    const fitsPhone = async (screenshot?: string) => {
      await page.setViewportSize(phone);
      expect(await page.evaluate<string[]>(widerThanScreen)).toEqual([]);
      if (screenshot) await shoot(page, screenshot);
      await page.setViewportSize(desktop);
    };

    /** A page of `context` signed in as `who` (its requests and script errors recorded). */
    const signedIn = async (context: BrowserContext, who: { email: string; password: string }) => {
      context.on("request", (request) => requested.push(request.url()));
      const opened = await context.newPage();
      opened.on("pageerror", (error) => pageErrors.push(error.message));
      await opened.goto(`${base}/console`);
      await opened.getByLabel("Tenant").fill(customer.slug);
      await opened.getByLabel("E-mail").fill(who.email);
      await opened.getByLabel("Password").fill(who.password);
      await opened.getByRole("button", { name: "Sign in", exact: true }).click();
      await opened
        .getByRole("navigation", { name: "Console sections" })
        .getByRole("link", { name: "Uploads" })
        .waitFor();
      return opened;
    };

    const answerDialog = (accept: boolean) =>
      new Promise<string>((resolve) => {
        page.once("dialog", (dialog) => {
          resolve(dialog.message());
          void (accept ? dialog.accept() : dialog.dismiss());
        });
      });

    beforeAll(async () => {
      // A receiver on this machine may be subscribed (nothing is delivered to it here).
      t = await createTestApp({ manualClock: true, env: { HANSE_WEBHOOK_ALLOW_PRIVATE: "1" } });
      clock = t.container.clock as unknown as typeof clock;
      base = (await t.app.listen({ port: 0, host: "127.0.0.1" })).replace("localhost", "127.0.0.1");
      customer = await provisionTenant(t);
      acme = await newPartner("ACME Retail");
      other = await newPartner("Other Foods");
      await adminApi(`/api/v1/admin/connections/${acme.connectionId}`, "PATCH", {
        collectionDeadlineSeconds: 300,
      });
      const first = await processedOrder(acme, "ICPART1");
      firstUpload = first.uploadId;
      late = first.delivery;
      await processedOrder(other, "ICOTHER1");
      clock.advance(400_000);
      fresh = (await processedOrder(acme, "ICPART2")).delivery;
      await sweepOverdueDeliveries(t.container.database.db, clock.now());
      browser = await launchBrowser();
      context = await browser.newContext({ viewport: desktop, acceptDownloads: true });
      page = await signedIn(context, customer);
    }, 180_000);

    afterAll(async () => {
      await browser.close();
      await t.close();
    });

    it("shows a partner's page from the list: its overdue deliveries, connections, keys and recent uploads, none of another partner's", async () => {
      await open("partners", "Partners");
      const sinceOpened = requested.length;
      await page.getByRole("link", { name: "ACME Retail" }).click();
      await page.getByRole("heading", { name: "Partner", level: 1 }).waitFor();
      await eventually(() => page.locator("dl.fields").textContent()).toContain(acme.partnerId);

      // Overdue: the first order's ORDRSP (past its 300 s deadline), not the fresh one, not the other partner's.
      const overdue = page.getByRole("table", { name: "Overdue deliveries" }).locator("tbody tr");
      await eventually(() => overdue.count()).toBe(1);
      expect(await overdue.getByRole("link", { name: /^ORDRSP/ }).getAttribute("href")).toBe(
        `#/deliveries/${late.id}`,
      );
      expect(await overdue.textContent()).toContain("ACME Retail");
      expect(late.id).not.toBe(fresh.id);

      const connections = page
        .getByRole("table", { name: "Connections of this partner" })
        .locator("tbody tr");
      await eventually(() => connections.count()).toBe(1);
      expect(await connections.getByRole("link").getAttribute("href")).toBe(
        `#/connections/${acme.connectionId}`,
      );
      expect(await connections.textContent()).toContain("300 s (5 min)");

      const keys = page.getByRole("table", { name: "API keys of this partner" }).locator("tbody tr");
      await eventually(() => keys.count()).toBe(1);
      expect(await keys.textContent()).toContain(acme.apiKeyId);
      expect(await keys.textContent()).not.toContain(other.apiKeyId);
      // The server filters both lists by partnerId: no list of every partner's read and kept here.
      const lists = requested.slice(sinceOpened).map((url) => new URL(url));
      for (const list of ["/console/api/admin/connections", "/console/api/admin/api-keys"]) {
        const reads = lists.filter((url) => url.pathname === list);
        expect(reads.length, list).toBeGreaterThan(0);
        expect(
          reads.map((url) => url.searchParams.get("partnerId")),
          list,
        ).toEqual(reads.map(() => acme.partnerId));
      }

      // Recent uploads, newest first: the second order before the first; the other partner's not at all.
      const uploads = page.getByRole("table", { name: "Recent uploads" }).locator("tbody tr");
      await eventually(() => uploads.count()).toBe(2);
      const interchanges = await uploads.locator("td:nth-child(3)").allTextContents();
      expect(interchanges).toEqual(["ICPART2", "ICPART1"]);
      await shoot(page, "partner");

      expect(await page.evaluate<string[]>(unnamedControls)).toEqual([]);
      await fitsPhone("partner-phone");

      // The overdue delivery's link opens its page, which says since when.
      await overdue.getByRole("link", { name: /^ORDRSP/ }).click();
      await page.getByRole("heading", { name: "Delivery", level: 1 }).waitFor();
      await eventually(() => page.locator("dl.fields").textContent()).toMatch(/Overdueyes, since/);
    });

    it("renames a partner on its page; a blank name is refused by the server, its message at the field", async () => {
      await open(`partners/${other.partnerId}`, "Partner");
      const name = page.getByLabel("Name", { exact: true });
      await eventually(() => name.inputValue()).toBe("Other Foods");
      await name.fill("Other Foods AG");
      await page.getByRole("button", { name: "Rename partner" }).click();
      await page.getByRole("status").filter({ hasText: 'Renamed to "Other Foods AG".' }).waitFor();
      expect((await adminApi<{ name: string }>(`/api/v1/admin/partners/${other.partnerId}`)).name).toBe(
        "Other Foods AG",
      );
      await eventually(() => page.locator("dl.fields").textContent()).toContain("Other Foods AG");

      // Blank: the server's message at the field, the name unchanged.
      await name.fill("   ");
      await page.getByRole("button", { name: "Rename partner" }).click();
      const refused = page.locator(".field").filter({ has: name }).locator(".field-error");
      await refused.waitFor();
      expect(await refused.textContent()).toBeTruthy();
      expect(await page.getByRole("alert").textContent()).toMatch(/Correlation id/);
      expect((await adminApi<{ name: string }>(`/api/v1/admin/partners/${other.partnerId}`)).name).toBe(
        "Other Foods AG",
      );
      await fitsPhone();
    });

    it("edits a connection's profile as a new revision: the preview lists what changes, saving creates and activates it and sets the deadline", async () => {
      await open(`connections/${acme.connectionId}`, "Connection");
      const contrl = page.getByLabel("CONTRL replies");
      await eventually(() => contrl.inputValue()).toBe("on-error");
      expect(await page.getByLabel("Duplicate window (days, 0: off)").inputValue()).toBe("30");
      expect(await page.getByLabel("Collection deadline (seconds, empty: never overdue)").inputValue()).toBe(
        "300",
      );
      const preview = page.getByRole("region", { name: "Preview" });

      // Unchanged: nothing to save.
      await page.getByRole("button", { name: "Preview changes" }).click();
      await page.getByRole("status").filter({ hasText: "Nothing changes" }).waitFor();
      expect(await preview.count()).toBe(0);

      await page.getByLabel("APERAK replies").selectOption("always");
      await page.getByLabel("Order validation").selectOption("catalog");
      await page.getByLabel("Duplicate window (days, 0: off)").fill("7");
      await page.getByLabel("Collection deadline (seconds, empty: never overdue)").fill("3600");
      await page.getByRole("button", { name: "Preview changes" }).click();
      await preview.waitFor();
      const rows = preview.getByRole("table", { name: "Changes" }).locator("tbody tr");
      expect(await rows.allTextContents()).toEqual([
        "APERAK replieson-erroralways",
        "Order validationnonecatalog",
        "Duplicate window30 days7 days",
        "Collection deadline300 s (5 min)3600 s (1 h)",
      ]);
      // Nothing is saved by a preview.
      expect((await getConnection(acme.connectionId)).activeProfileRevision.revision).toBe(1);
      await shoot(page, "connection-preview");
      expect(await page.evaluate<string[]>(unnamedControls)).toEqual([]);
      await fitsPhone();

      // An edit takes the preview away: it was of other values.
      await page.getByLabel("Duplicate window (days, 0: off)").fill("14");
      await eventually(() => preview.count()).toBe(0);
      await page.getByRole("button", { name: "Preview changes" }).click();
      await eventually(() => rows.nth(2).textContent()).toBe("Duplicate window30 days14 days");

      expect(await preview.getByLabel("Activate the new revision at once").isChecked()).toBe(true);
      await preview.getByRole("button", { name: "Save as a new revision" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: "Revision 2 created and active. Collection deadline: 3600 s (1 h)." })
        .waitFor();
      const saved = await getConnection(acme.connectionId);
      expect(saved.collectionDeadlineSeconds).toBe(3600);
      expect(saved.activeProfileRevision).toMatchObject({
        revision: 2,
        responses: { contrl: "on-error", aperak: "always", ordrsp: "auto" },
        orderValidation: "catalog",
        duplicateWindowDays: 14,
        partnerIdentification: { id: "5412345000013", qualifier: "14" },
      });
      // The form shows the new active revision.
      await eventually(() => page.getByLabel("Order validation").inputValue()).toBe("catalog");

      // A revision saved without activating it: revision 2 stays active; then revision 1 is activated from the list.
      await page.getByLabel("ORDRSP replies").selectOption("never");
      await page.getByRole("button", { name: "Preview changes" }).click();
      await preview.getByLabel("Activate the new revision at once").uncheck();
      await preview.getByRole("button", { name: "Save as a new revision" }).click();
      await page.getByRole("status").filter({ hasText: "Revision 3 created (not active yet)." }).waitFor();
      expect((await getConnection(acme.connectionId)).activeProfileRevision.revision).toBe(2);
      const revisions = page.getByRole("table", { name: "Profile revisions" }).locator("tbody tr");
      await eventually(() => revisions.count()).toBe(3);
      await page.getByRole("button", { name: "Activate revision 1" }).click();
      await page.getByRole("status").filter({ hasText: "Revision 1 is active now." }).waitFor();
      expect((await getConnection(acme.connectionId)).activeProfileRevision.revision).toBe(1);
      await fitsPhone();
    });

    it("suspends a connection after a confirmation that names what stops, and resumes it; the partner's upload is refused meanwhile", async () => {
      await open(`connections/${acme.connectionId}`, "Connection");
      const fields = page.locator("dl.fields");
      await eventually(() => fields.textContent()).toContain("Statusactive");

      // Cancelled: nothing changes.
      let question = answerDialog(false);
      await page.getByRole("button", { name: "Suspend connection" }).click();
      expect(await question).toMatch(/uploads and mailbox reads are refused/);
      expect((await getConnection(acme.connectionId)).status).toBe("active");

      question = answerDialog(true);
      await page.getByRole("button", { name: "Suspend connection" }).click();
      await question;
      await page.getByRole("status").filter({ hasText: "The connection is suspended now." }).waitFor();
      await eventually(() => fields.textContent()).toContain("Statussuspended");
      expect((await getConnection(acme.connectionId)).status).toBe("suspended");
      const refused = await upload(t, acme, validOrders("ICSUSP1"), `console-exchange-${n++}`);
      expect(refused.statusCode).toBeGreaterThanOrEqual(400);
      await shoot(page, "connection-suspended");
      await fitsPhone();

      question = answerDialog(true);
      await page.getByRole("button", { name: "Resume connection" }).click();
      expect(await question).toMatch(/upload and collect again/);
      await page.getByRole("status").filter({ hasText: "The connection is active now." }).waitFor();
      expect((await getConnection(acme.connectionId)).status).toBe("active");
      expect((await upload(t, acme, validOrders("ICSUSP2"), `console-exchange-${n++}`)).statusCode).toBe(202);
    });

    it("downloads an upload's bytes exactly as received, through the audited content read", async () => {
      await open(`uploads/${firstUpload}`, "Upload");
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "Download the bytes" }).click(),
      ]);
      expect(download.suggestedFilename()).toBe("upload-ICPART1.edi");
      expect(readFileSync(await download.path()).toString("latin1")).toBe(validOrders("ICPART1"));
      const audit = await adminApi<{ items: { type: string; byteCount: number | null }[] }>(
        `/api/v1/admin/audit-events?type=upload.content.read&targetId=${firstUpload}`,
      );
      expect(audit.items.map((e) => e.byteCount)).toContain(validOrders("ICPART1").length);
      await fitsPhone();
    });

    it("names the cause of a refused change and of an unknown partner", async () => {
      await open(`connections/${acme.connectionId}`, "Connection");
      const partnerId = page.getByLabel("Partner id (UNB)");
      await eventually(() => partnerId.inputValue()).toBe("5412345000013");
      // A UNB identification may not hold EDIFACT's separators: the server says so, naming the field.
      await partnerId.fill("ACME+1");
      await page.getByRole("button", { name: "Preview changes" }).click();
      const preview = page.getByRole("region", { name: "Preview" });
      await preview.getByRole("button", { name: "Save as a new revision" }).click();
      const alert = preview.getByRole("alert");
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/partnerIdentification\/id/);
      expect(await alert.textContent()).toMatch(/Correlation id/);
      expect((await getConnection(acme.connectionId)).activeProfileRevision.revision).toBe(1);
      await shoot(page, "connection-error");
      await fitsPhone();

      await open("partners/00000000-0000-4000-8000-000000000000", "Partner");
      const missing = page.getByRole("alert");
      await missing.waitFor();
      expect(await missing.textContent()).toMatch(/not found/i);
      // No lists of a partner that does not exist.
      expect(await page.getByRole("table").count()).toBe(0);
      await fitsPhone();
    });

    it("subscribes a receiver to operator events, lists it with its event types, disables and enables it; a bad address or no event type is refused at its field", async () => {
      const receiverUrl = "https://127.0.0.1:9/hooks/hanse";
      await open("webhooks", "Webhook subscriptions");
      const address = page.getByLabel("Receiver (HTTPS address)");
      const add = page.getByRole("button", { name: "Add operator subscription" });
      const form = page.locator("form").filter({ has: add });
      const fieldError = (control: ReturnType<Page["getByLabel"]>) =>
        form.locator(".field").filter({ has: control }).locator(".field-error");

      // Plain HTTP: the server's reason at the address.
      await address.fill("http://127.0.0.1:9/hooks/hanse");
      await add.click();
      await fieldError(address).waitFor();
      expect(await form.getByRole("alert").textContent()).toMatch(/url/i);

      // No event type ticked: refused, naming eventTypes.
      await address.fill(receiverUrl);
      for (const box of await form.getByRole("checkbox").all()) await box.uncheck();
      await add.click();
      await eventually(() => form.getByRole("alert").textContent()).toMatch(/eventTypes/);
      expect((await adminApi<{ items: unknown[] }>("/api/v1/admin/webhook-subscriptions")).items).toEqual([]);

      await form.getByLabel("exchange.delivery.overdue").check();
      await form.getByLabel("exchange.upload.rejected").check();
      await add.click();
      const secret = page.locator("[data-secret]");
      await secret.waitFor();
      expect(await secret.textContent()).toMatch(/^whsec_/);
      await page.getByRole("button", { name: "I have stored it — hide" }).click();
      const row = page.getByRole("row").filter({ hasText: receiverUrl });
      await eventually(() => row.textContent()).toContain(
        "exchange.upload.rejected, exchange.delivery.overdue",
      );
      await shoot(page, "webhooks-operator");
      await fitsPhone();

      await row.getByRole("link").click();
      await page.getByRole("heading", { name: "Webhook subscription", level: 1 }).waitFor();
      const fields = page.locator("dl.fields");
      await eventually(() => fields.textContent()).toContain("none (operator events)");
      await page.getByRole("button", { name: "Disable" }).click();
      await eventually(() => fields.textContent()).toContain("disabled");
      const [subscription] = (
        await adminApi<{ items: { enabled: boolean; eventTypes: string[] }[] }>(
          "/api/v1/admin/webhook-subscriptions",
        )
      ).items;
      expect(subscription).toMatchObject({ enabled: false });
      await page.getByRole("button", { name: "Enable" }).click();
      await eventually(() => fields.textContent()).toContain("enabled");
      await fitsPhone();
    });

    it("offers a viewer the pages but none of the changes: no rename, profile editor, suspension or subscription form", async () => {
      const viewer = await addUser(t, customer, "viewer");
      const own = await browser.newContext({ viewport: desktop });
      const small = await signedIn(own, viewer);

      await small.goto(`${base}/console#/partners/${acme.partnerId}`);
      await small.getByRole("table", { name: "Overdue deliveries" }).waitFor();
      await eventually(() => small.locator("dl.fields").textContent()).toContain("ACME Retail");
      expect(await small.getByRole("button", { name: "Rename partner" }).count()).toBe(0);

      await small.goto(`${base}/console#/connections/${acme.connectionId}`);
      await small.getByRole("table", { name: "Profile revisions" }).waitFor();
      await eventually(() => small.locator("dl.fields").textContent()).toContain("Statusactive");
      expect(
        await small
          .getByRole("button", { name: /Suspend connection|Preview changes|Activate revision/ })
          .count(),
      ).toBe(0);

      await small.goto(`${base}/console#/uploads/${firstUpload}`);
      await small.getByRole("link", { name: "Deliveries of this upload" }).waitFor();
      // Reading the bytes is a read (admin:read): a viewer may download them.
      expect(await small.getByRole("button", { name: "Download the bytes" }).count()).toBe(1);

      await small.goto(`${base}/console#/webhooks`);
      await small.getByRole("table", { name: "Webhook subscriptions" }).waitFor();
      expect(await small.getByRole("button", { name: "Add operator subscription" }).count()).toBe(0);
      await own.close();
    });

    it("raised no script error and put no credential into a URL", () => {
      expect(pageErrors).toEqual([]);
      for (const secret of [bootstrapToken, customer.password, customer.token, acme.token])
        expect(requested.filter((url) => url.includes(secret))).toEqual([]);
    });
  },
);
