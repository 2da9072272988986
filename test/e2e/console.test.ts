// remote mode: in-process only: settings of its own (HANSE_PUBLIC_URL, webhook receiver) for the browser
import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  acknowledge,
  claim,
  listMailbox,
  readPayload,
  rejectedOrders,
  setupPartner,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import {
  browserTestsSkipped,
  shoot,
  eventually,
  widerThanScreen,
  launchBrowser,
} from "../support/browser.js";
import { startHttpsReceiver, type HttpsReceiver } from "../support/https-receiver.js";
import { signedHeaders } from "../support/service-signer.js";
import { provisionTenant, uniqueSlug, type ProvisionedTenant } from "../support/fixtures.js";
import { bearer, bootstrapToken, createTestApp, startWorker, type TestApp } from "../support/test-app.js";
import { waitUntil } from "../support/wait-until.js";
import type { Worker } from "../../src/platform/jobs/index.js";

/** The pages of the console's sections that a customer administrator sees, each opening with a table. */
const mainSections = [
  "uploads",
  "deliveries",
  "partners",
  "connections",
  "api-keys",
  "audit",
  "workflows",
  "apps",
  "service-bindings",
  "webhooks",
];

/** A mailbox claim lease this short lets a delivery spend its budget (one claim) within the test. */
const leaseSeconds = 4;

describe.skipIf(browserTestsSkipped())("operator console in Chromium", { timeout: 180_000 }, () => {
  let t: TestApp;
  let base: string;
  let worker: Worker;
  let browser: Browser;
  let customer: ProvisionedTenant;
  let partner: PartnerSetup;
  let operator: BrowserContext;
  let page: Page;
  let receiver: HttpsReceiver;
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

  /** The customer administrator's API, as a test reads what the console changed. */
  const adminApi = async <T>(url: string, method: "GET" | "POST" | "PUT" = "GET", payload?: object) => {
    const response = await t.inject({
      method,
      url,
      headers: bearer(customer.token),
      ...(payload ? { payload } : {}),
    });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json<T>();
  };

  /** Opens a section's page and waits until it is drawn with its first table. */
  const openSection = async (p: Page, section: string) => {
    await p.goto(`${base}/console#/${section}`);
    await p.locator(`#nav a[aria-current="page"][href="#/${section}"]`).waitFor();
    await p.locator("main table").first().waitFor();
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
    receiver = await startHttpsReceiver();
    t = await createTestApp({
      env: {
        HANSE_MAILBOX_LEASE_SECONDS: String(leaseSeconds),
        HANSE_MAILBOX_MAX_ATTEMPTS: "1",
        HANSE_WEBHOOK_ALLOW_PRIVATE: "1",
        HANSE_WEBHOOK_CA_FILE: receiver.caFile,
      },
    });
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
    await receiver.close();
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
    await eventually(() =>
      page.getByRole("row").filter({ hasText: "ICGOOD1" }).getByText("processed").count(),
    ).toBe(1);
    // Each upload with what it produced.
    await eventually(() => row.textContent()).toContain("CONTRL 1");
    await eventually(() => page.getByRole("row").filter({ hasText: "ICGOOD1" }).textContent()).toContain(
      "ORDRSP 1",
    );
    await shoot(page, "uploads");

    await row.getByRole("link").click();
    await page.getByRole("heading", { name: "Upload" }).waitFor();
    await eventually(() => page.locator("dl.fields").textContent()).toMatch(
      /ICBROKEN1[^]*rejected|rejected[^]*ICBROKEN1/,
    );
    // The rejection is marked in the segment tree at the segment (and element) the API names,
    // with its 0085 code and reason, beside the CONTRL that answers the interchange.
    const uploadId = page.url().split("/").pop() ?? "";
    const { findings } = await adminApi<{
      findings: {
        code: string;
        message: string;
        segment: string | null;
        position: number | null;
        element: string | null;
      }[];
    }>(`/api/v1/admin/exchange-uploads/${uploadId}`);
    expect(findings.length).toBeGreaterThan(0);
    const finding = findings[0];
    if (!finding) throw new Error("no finding");
    expect(finding.segment).toBe("UNZ");
    await eventually(() => page.getByRole("table", { name: "Findings" }).textContent()).toContain(
      finding.message,
    );
    const marked = page.locator(`li.segment.has-findings[data-position="${finding.position}"]`);
    await eventually(() => marked.locator("code").first().textContent()).toMatch(/^UNZ\+3\+ICBROKEN1/);
    await eventually(() => marked.locator("li.finding").first().textContent()).toBe(
      `Code ${finding.code}${finding.element ? ` at element ${finding.element}` : ""}: ${finding.message}`,
    );
    await eventually(() => page.locator("li.segment.has-findings").count()).toBe(
      new Set(findings.filter((f) => f.position !== null).map((f) => f.position)).size,
    );
    const envelope = page.getByRole("region", { name: "Interchange", exact: true });
    await eventually(() => envelope.textContent()).toContain("Outbound · CONTRL");
    await eventually(() =>
      envelope
        .getByRole("list", { name: /^Outbound CONTRL/ })
        .locator("li.segment")
        .count(),
    ).toBeGreaterThan(3);
    await shoot(page, "upload");

    // The accepted order: its ORDRSP beside the message it answers.
    await page.goto(`${base}/console#/uploads`);
    await page.getByRole("row").filter({ hasText: "ICGOOD1" }).getByRole("link").click();
    const message = page.getByRole("region", { name: "Message 1" });
    await message.waitFor();
    await eventually(() => message.getByRole("list", { name: "Inbound Message 1" }).textContent()).toContain(
      "UNH+1+ORDERS",
    );
    await eventually(() => message.getByRole("list", { name: /^Outbound ORDRSP/ }).textContent()).toContain(
      "ORDRSP:D:96A",
    );
    expect(await page.locator("li.segment.has-findings").count()).toBe(0);
    await shoot(page, "upload-answered");

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

  it("requests a workflow transition with an idempotency key made in the browser and follows it to succeeded", async () => {
    const entity = await adminApi<{ id: string }>("/api/v1/admin/entities", "POST", {
      kind: "product",
      attributes: { gtin: "4006381333931", name: "Console pen" },
    });
    const posted: Record<string, string>[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST" && request.url().endsWith("/console/api/workflows/transition-requests"))
        posted.push(request.headers());
    });

    await page.goto(`${base}/console#/workflows`);
    await page.getByRole("link", { name: /Console pen/ }).click();
    await page.getByRole("heading", { name: "Entity", exact: true }).waitFor();
    await eventually(() => page.locator("dl.fields").textContent()).toContain("draft");
    await page.getByLabel("Transition", { exact: true }).selectOption("submit");
    await page.getByRole("button", { name: "Request transition" }).click();
    const request = page.getByRole("row").filter({ hasText: "submit" });
    await eventually(() => request.textContent()).toMatch(
      /draft → in_review.*succeeded|succeeded.*draft → in_review/,
    );
    await eventually(() => page.locator("dl.fields").textContent()).toContain("in_review");
    await shoot(page, "workflow-entity");

    expect(posted).toHaveLength(1);
    expect(posted[0]?.["x-idempotency-key"]).toMatch(
      /^console-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(posted[0]?.["x-tenant-id"]).toBe(customer.id);
    const stored = await adminApi<{ state: string; version: number }>(`/api/v1/admin/entities/${entity.id}`);
    expect(stored).toMatchObject({ state: "in_review", version: 2 });

    // The bridge passes X-Tenant-ID on, and the API holds it to the session's tenant.
    const cookie = (await operator.cookies(`${base}/console`)).map((c) => `${c.name}=${c.value}`).join("; ");
    const { csrfToken } = (await (
      await fetch(`${base}/console/session`, { headers: { cookie } })
    ).json()) as {
      csrfToken: string;
    };
    const foreign = await fetch(`${base}/console/api/workflows/transition-requests`, {
      method: "POST",
      headers: {
        cookie,
        origin: base,
        "x-console-csrf": csrfToken,
        "content-type": "application/json",
        "x-idempotency-key": "console-foreign-tenant",
        "x-tenant-id": "01930000-0000-7000-8000-000000000001",
      },
      body: JSON.stringify({ entity: "product", entityId: entity.id, transition: "approve" }),
    });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { code: string }).code).toBe("ERR_FORBIDDEN");
    expect(await adminApi<{ state: string }>(`/api/v1/admin/entities/${entity.id}`)).toMatchObject({
      state: "in_review",
    });

    // The entities list shows the new state; the request stays listed while the tab lives.
    await page.getByRole("link", { name: "← All entities" }).click();
    const row = page.getByRole("row").filter({ hasText: "Console pen" });
    await eventually(() => row.getByText("in_review").count()).toBe(1);
    await eventually(() => page.getByRole("table", { name: "Transition requests" }).textContent()).toContain(
      "succeeded",
    );
    await shoot(page, "workflows");
  });

  it("lists a transition request made through the API, not the console, with its status and outcome", async () => {
    const entity = await adminApi<{ id: string }>("/api/v1/admin/entities", "POST", {
      kind: "product",
      attributes: { name: "Integration pen" },
    });
    const send = async (transition: string, key: string) => {
      const response = await t.inject({
        method: "POST",
        url: "/api/v1/workflows/transition-requests",
        headers: { ...bearer(customer.token), "x-tenant-id": customer.id, "x-idempotency-key": key },
        payload: { entity: "product", entityId: entity.id, transition },
      });
      expect(response.statusCode, response.body).toBe(202);
      const { requestId } = response.json<{ requestId: string }>();
      await waitUntil(
        async () => {
          const status = await adminApi<{ status: string }>(
            `/api/v1/workflows/transition-requests/${requestId}`,
          );
          return status.status === "succeeded" || status.status === "failed";
        },
        { what: `${transition} request final`, timeoutMs: 60_000 },
      );
      return requestId;
    };
    const submitted = await send("submit", uniqueSlug("api-submit"));
    const refused = await send("publish", uniqueSlug("api-publish"));

    // The entity's page lists both requests of this entity, with their outcomes.
    await page.goto(`${base}/console#/workflows/${entity.id}`);
    const requests = page.getByRole("table", { name: "Transition requests" });
    const row = (id: string) =>
      requests.getByRole("row").filter({ has: page.locator(`code[title="${id}"]`) });
    await eventually(() => row(submitted).textContent()).toMatch(
      /draft → in_review.*succeeded|succeeded.*draft → in_review/,
    );
    await eventually(() => row(refused).textContent()).toContain("ERR_WORKFLOW_TRANSITION_NOT_ALLOWED");
    await eventually(() => requests.getByRole("row").count()).toBe(3);

    // The workflows page lists the tenant's requests; the status filter narrows it to the failed one.
    await page.goto(`${base}/console#/workflows`);
    const all = page.getByRole("table", { name: "Transition requests" });
    await eventually(() => all.textContent()).toMatch(
      /ERR_WORKFLOW_TRANSITION_NOT_ALLOWED[^]*succeeded|succeeded[^]*ERR_WORKFLOW_TRANSITION_NOT_ALLOWED/,
    );
    await page.getByLabel("Request status").selectOption("failed");
    await page.getByRole("button", { name: "Apply" }).nth(1).click();
    // Until the filtered page replaces the unfiltered one (or while it loads), both are listed or none.
    await eventually(async () => [
      await all.locator(`code[title="${refused}"]`).count(),
      await all.locator(`code[title="${submitted}"]`).count(),
      await all.getByText("succeeded", { exact: true }).count(),
    ]).toEqual([1, 0, 0]);
  });

  it("shows an unknown transition request's problem with its detail and correlation id", async () => {
    await page.goto(`${base}/console#/workflows`);
    await page.getByLabel("Request id").fill("01930000-0000-7000-8000-000000000000");
    await page.getByRole("button", { name: "Look up" }).click();
    const alert = page.getByRole("alert");
    await eventually(() => alert.textContent()).toMatch(/Correlation id: \S+/);
    expect(await alert.textContent()).not.toMatch(/HTTP 404$/);
  });

  it("defines an app, sets an actor's entitlement and changes it, each change with the next sequence", async () => {
    await page.goto(`${base}/console#/apps`);
    await page.getByLabel("App id").fill("crm");
    await page.getByLabel("Name", { exact: true }).fill("CRM");
    await page.getByLabel("Capabilities (comma-separated)").fill("read, write, export");
    await page.getByRole("button", { name: "Create app" }).click();
    await page.getByRole("link", { name: "crm", exact: true }).click();
    await page.getByRole("heading", { name: "App crm" }).waitFor();
    await page.getByLabel("Actor id").fill("user-1");
    await page.getByLabel("Plan").fill("pro");
    await page.getByLabel("export").uncheck();
    await page.getByLabel("Valid until (empty: no end)").fill("2030-01-01T12:00");
    await page.getByRole("button", { name: "Set entitlement" }).click();
    await page.getByRole("heading", { name: "Entitlement of user-1" }).waitFor();
    const fields = page.locator("dl.fields");
    await eventually(() => fields.textContent()).toMatch(/read, write[^]*Change \(sequence\)1/);

    const { validUntil } = await adminApi<{ validUntil: string }>(
      "/api/v1/admin/apps/crm/entitlements/user-1",
    );
    expect(validUntil).toMatch(/^2030-01-01T/);

    // Changing the status keeps the validity the form shows.
    await page.getByLabel("Status").selectOption("suspended");
    await page.getByRole("button", { name: "Save entitlement" }).click();
    await eventually(() => fields.textContent()).toMatch(/suspended[^]*Change \(sequence\)2/);
    await shoot(page, "entitlement");
    await page.getByRole("link", { name: "← App crm" }).click();
    await page.getByRole("row").filter({ hasText: "user-1" }).getByText("suspended").waitFor();
    await shoot(page, "app");
    expect(
      await adminApi<{ status: string; sequence: number; capabilities: string[] }>(
        "/api/v1/admin/apps/crm/entitlements/user-1",
      ),
    ).toMatchObject({ status: "suspended", sequence: 2, capabilities: ["read", "write"], validUntil });

    // A second app with the same id: the API's problem, with its correlation id.
    await page.goto(`${base}/console#/apps`);
    await page.getByLabel("App id").fill("crm");
    await page.getByLabel("Name", { exact: true }).fill("CRM again");
    await page.getByRole("button", { name: "Create app" }).click();
    const alert = page.getByRole("alert");
    await eventually(() => alert.textContent()).toMatch(/Correlation id: \S+/);
    await shoot(page, "error");
  });

  it("shows an actor's history from the API, newest first: changes made through the API and the console appear", async () => {
    await page.goto(`${base}/console#/apps/crm/history-1`);
    await page.getByRole("heading", { name: "Entitlement of history-1" }).waitFor();
    const history = page.getByRole("table", { name: "Changes of history-1" });
    await history.waitFor();
    await page.getByText("No changes kept.").waitFor();

    const url = "/api/v1/admin/apps/crm/entitlements/history-1";
    const first = await adminApi<{ sequence: number }>(url, "PUT", {
      status: "active",
      plan: "api-basic",
      capabilities: ["read"],
    });
    const second = await adminApi<{ sequence: number }>(url, "PUT", {
      status: "suspended",
      plan: "api-pro",
      capabilities: ["read", "write"],
    });
    await page.reload();
    const rows = history.locator("tbody tr");
    await eventually(() => rows.count()).toBe(2);
    await eventually(() => rows.nth(0).textContent()).toMatch(
      new RegExp(`^${second.sequence}.*suspended.*api-pro`),
    );
    await eventually(() => rows.nth(1).textContent()).toMatch(
      new RegExp(`^${first.sequence}.*active.*api-basic`),
    );
    // Who changed it: the administrator's principal, as the API names it.
    const { items } = await adminApi<{ items: { changedBy: string }[] }>(`${url}/changes`);
    expect(await rows.nth(0).locator("code").getAttribute("title")).toBe(items[0]?.changedBy);

    // A change made in the console is the newest entry at once.
    await page.getByLabel("Plan").fill("console-plan");
    await page.getByRole("button", { name: "Save entitlement" }).click();
    await eventually(() => rows.count()).toBe(3);
    await eventually(() => rows.nth(0).textContent()).toMatch(
      new RegExp(`^${second.sequence + 1}.*console-plan`),
    );
    expect(await page.content()).not.toContain("not available");
  });

  it("pages an actor's history: 50 changes, then the rest with Load more", async () => {
    for (let i = 1; i <= 51; i++)
      await adminApi("/api/v1/admin/apps/crm/entitlements/history-2", "PUT", {
        status: "active",
        plan: `plan-${i}`,
        capabilities: ["read"],
      });
    await page.goto(`${base}/console#/apps/crm/history-2`);
    const rows = page.getByRole("table", { name: "Changes of history-2" }).locator("tbody tr");
    await eventually(() => rows.count()).toBe(50);
    await eventually(() => rows.nth(0).textContent()).toContain("plan-51");
    await page.getByRole("button", { name: "Load more" }).click();
    await eventually(() => rows.count()).toBe(51);
    await eventually(() => rows.nth(50).textContent()).toContain("plan-1");
    await eventually(() => page.getByRole("button", { name: "Load more" }).isHidden()).toBe(true);
  });

  it("creates and rotates a service binding, each secret shown once and working", async () => {
    const introspect = async (credentialId: string, secret: string) => {
      const target = "/api/v1/public/v1/app-entitlements/service/introspect/user-1";
      return (
        await t.inject({ url: target, headers: signedHeaders({ credentialId, secret }, "GET", target) })
      ).statusCode;
    };
    await page.goto(`${base}/console#/service-bindings`);
    await page.getByLabel("App", { exact: true }).selectOption("crm");
    await page.getByLabel("Audience").fill("crm-sync");
    await page.getByLabel("Required capabilities (comma-separated)").fill("read");
    await page.getByRole("button", { name: "Create binding" }).click();
    const secret = page.locator("[data-secret]");
    await secret.waitFor();
    const first = (await secret.textContent()) ?? "";
    secrets.push(first);
    const row = page.getByRole("row").filter({ hasText: "crm-sync" });
    await row.waitFor();
    const credentialId = (await row.locator("code").nth(1).textContent()) ?? "";
    expect(credentialId).toMatch(/^hanse_sc_/);
    expect(await introspect(credentialId, first)).toBe(200);
    await page.getByRole("button", { name: "I have stored it — hide" }).click();
    expect(await page.content()).not.toContain(first);

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Rotate crm crm-sync" }).click();
    await secret.waitFor();
    const second = (await secret.textContent()) ?? "";
    secrets.push(second);
    expect(second).not.toBe(first);
    await eventually(() => row.locator("code").nth(1).textContent()).not.toBe(credentialId);
    const rotatedId = (await row.locator("code").nth(1).textContent()) ?? "";
    expect(await introspect(rotatedId, second)).toBe(200);
    await shoot(page, "service-bindings");
    await page.getByRole("button", { name: "I have stored it — hide" }).click();
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(second);
    expect(await page.evaluate<number>("localStorage.length + sessionStorage.length")).toBe(0);
  });

  it("subscribes a webhook receiver and lists its delivery attempts", async () => {
    await page.goto(`${base}/console#/webhooks`);
    await page.getByLabel("Service binding").selectOption({ label: "crm · crm-sync" });
    await page.getByLabel("URL (HTTPS)").fill(receiver.url);
    await page.getByRole("button", { name: "Subscribe" }).click();
    const secret = page.locator("[data-secret]");
    await secret.waitFor();
    const whsec = (await secret.textContent()) ?? "";
    expect(whsec).toMatch(/^whsec_/);
    secrets.push(whsec);
    await page.getByRole("button", { name: "I have stored it — hide" }).click();

    await adminApi("/api/v1/admin/apps/crm/entitlements/user-2", "PUT", {
      status: "active",
      plan: "basic",
      capabilities: ["read"],
    });
    await waitUntil(async () => receiver.received.length > 0, {
      what: "a webhook delivery",
      timeoutMs: 30_000,
    });
    await page.getByRole("link", { name: receiver.url }).click();
    await page.getByRole("heading", { name: "Webhook subscription" }).waitFor();
    const attempts = page.getByRole("table", { name: "Delivery attempts" });
    await eventually(async () => {
      await page.reload();
      await page.getByRole("heading", { name: "Delivery attempts" }).waitFor();
      return attempts.getByRole("row").filter({ hasText: "204" }).count();
    }).toBeGreaterThan(0);
    expect(await page.content()).not.toContain(whsec);
    await shoot(page, "webhook");
  });

  it("lets a delivery spend its attempt budget (short lease) and requeues it in the console", async () => {
    expect((await upload(t, partner, validOrders("ICLEASE1"), "console-lease")).statusCode).toBe(202);
    const ordrsp = async () => {
      const mailbox = await listMailbox(t, partner);
      return mailbox.items.find((d) => d.inboundInterchangeId === "ICLEASE1");
    };
    await waitUntil(async () => (await ordrsp()) !== undefined, { what: "the ORDRSP", timeoutMs: 30_000 });
    const delivery = await ordrsp();
    if (!delivery) throw new Error("no ORDRSP in the mailbox");
    expect((await claim(t, partner, delivery.deliveryAttemptId)).statusCode).toBe(200);
    // The partner never acknowledges: the lease ends and, with a budget of one claim, the delivery fails.
    const status = async () =>
      (await adminApi<{ status: string }>(`/api/v1/admin/exchange-deliveries/${delivery.deliveryAttemptId}`))
        .status;
    await waitUntil(async () => (await status()) === "failed", {
      what: "the delivery failed",
      timeoutMs: 60_000,
    });

    await page.goto(`${base}/console#/deliveries`);
    const row = page.getByRole("row").filter({ hasText: "ICLEASE1" });
    await eventually(() => row.getByText("failed").count()).toBe(1);
    await row.getByRole("button", { name: /Requeue/ }).click();
    await eventually(() => row.getByText("ready").count()).toBe(1);
    expect(await status()).toBe("ready");
    expect((await ordrsp())?.status).toBe("ready");
  });

  it("follows an accepted order to its ORDRSP and sees it acknowledged after the partner's acknowledgement", async () => {
    expect((await upload(t, partner, validOrders("ICACK1"), "console-ack")).statusCode).toBe(202);
    await page.goto(`${base}/console#/uploads`);
    const uploadRow = page.getByRole("row").filter({ hasText: "ICACK1" });
    await eventually(async () => {
      await page.reload();
      await uploadRow.first().waitFor();
      return uploadRow.getByText("processed").count();
    }).toBe(1);
    await uploadRow.getByRole("link").click();
    await page.getByRole("link", { name: "Deliveries of this upload" }).click();
    await page.getByRole("heading", { name: "Deliveries of one upload" }).waitFor();
    const row = page.getByRole("row").filter({ hasText: "ORDRSP" });
    await eventually(() => row.getByText("ready").count()).toBe(1);

    // The partner fetches and acknowledges it through the partner API.
    const delivery = (await listMailbox(t, partner)).items.find((d) => d.inboundInterchangeId === "ICACK1");
    if (!delivery) throw new Error("no ORDRSP of ICACK1 in the mailbox");
    expect(delivery.messageType).toBe("ORDRSP");
    const claimed = await claim(t, partner, delivery.deliveryAttemptId);
    const { claimToken } = claimed.json<{ claimToken: string }>();
    expect((await readPayload(t, partner, delivery.deliveryAttemptId, claimToken)).statusCode).toBe(200);
    expect((await acknowledge(t, partner, delivery.deliveryAttemptId, claimToken)).statusCode).toBeLessThan(
      300,
    );

    await page.reload();
    await eventually(() => row.getByText("acknowledged").count()).toBe(1);
    await eventually(() => row.textContent()).toContain("ICACK1");
    await shoot(page, "deliveries-acknowledged");
  });

  it("filters uploads and deliveries on the server and re-sends an acknowledged ORDRSP", async () => {
    await page.goto(`${base}/console#/uploads`);
    await page.getByLabel("Status").selectOption("rejected");
    await page.getByRole("button", { name: "Apply" }).click();
    await eventually(() => page.evaluate<string>("location.hash")).toBe("#/uploads?status=rejected");
    // Until the filtered page replaces the unfiltered one, both uploads are listed.
    await eventually(async () => [
      await page.getByRole("row").filter({ hasText: "ICBROKEN1" }).count(),
      await page.getByRole("row").filter({ hasText: "ICGOOD1" }).count(),
    ]).toEqual([1, 0]);
    expect(await page.getByRole("row").filter({ hasText: "processed" }).count()).toBe(0);
    // Reloaded, the filter is still applied: it lives in the page's address, not in the browser's storage.
    await page.reload();
    await page.getByRole("row").filter({ hasText: "ICBROKEN1" }).waitFor();
    await eventually(() => page.getByLabel("Status").inputValue()).toBe("rejected");
    await shoot(page, "uploads-filtered");

    await page.goto(`${base}/console#/deliveries`);
    await page.getByLabel("Message type").selectOption("ORDRSP");
    await page.getByLabel("Status").selectOption("acknowledged");
    await page.getByRole("button", { name: "Apply" }).click();
    const acknowledged = page.getByRole("row").filter({ hasText: "ICACK1" });
    // The unfiltered list shows ICACK1 too: wait until the filtered page has replaced it.
    await eventually(async () => [
      await page.locator("tbody tr").count(),
      await acknowledged.count(),
    ]).toEqual([1, 1]);

    page.once("dialog", (dialog) => void dialog.accept());
    await acknowledged.getByRole("button", { name: /^Resend/ }).click();
    await page.getByRole("status").filter({ hasText: "in the mailbox again" }).waitFor();
    const again = (await listMailbox(t, partner)).items.filter((d) => d.inboundInterchangeId === "ICACK1");
    expect(again.map((d) => d.status)).toEqual(["ready"]);
    // The copy answers the same message: the upload shows both ORDRSPs beside it.
    await page.goto(`${base}/console#/uploads`);
    await page.getByRole("row").filter({ hasText: "ICACK1" }).getByRole("link").click();
    const message = page.getByRole("region", { name: "Message 1" });
    await message.waitFor();
    await eventually(() => message.getByRole("list", { name: /^Outbound ORDRSP/ }).count()).toBe(2);
  });

  it("shows one delivery with its status, overdue state and the message it answers, downloads its bytes and resends it (issue 34 item 5), at 1366 and 390 px", async () => {
    const acked = (
      await adminApi<{ items: { id: string; status: string; inboundInterchangeId: string }[] }>(
        "/api/v1/admin/exchange-deliveries?messageType=ORDRSP&status=acknowledged",
      )
    ).items.find((d) => d.inboundInterchangeId === "ICACK1");
    if (!acked) throw new Error("no acknowledged ORDRSP of ICACK1");
    await page.setViewportSize({ width: 1366, height: 900 });
    // The list links each delivery to its page.
    await page.goto(`${base}/console#/deliveries?messageType=ORDRSP&status=acknowledged`);
    await page.reload();
    const row = page.getByRole("row").filter({ hasText: "ICACK1" });
    await eventually(() => page.locator("tbody tr").count()).toBe(1);
    await row.getByRole("link", { name: /^ORDRSP/ }).click();
    await page.getByRole("heading", { name: "Delivery", level: 1 }).waitFor();
    const fields = page.locator("dl.fields");
    await eventually(() => fields.textContent()).toContain("acknowledged");
    const text = (await fields.textContent()) ?? "";
    expect(text).toContain("Overdueno");
    expect(text).toContain("interchange ICACK1");
    expect(await page.getByRole("link", { name: "the upload" }).getAttribute("href")).toMatch(
      /^#\/uploads\//,
    );

    // The bytes as stored: the same as the audited content read answers.
    const stored = await t.inject({
      url: `/api/v1/admin/exchange-deliveries/${acked.id}/content`,
      headers: bearer(customer.token),
    });
    expect(stored.statusCode).toBe(200);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download the bytes" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^ORDRSP-.+\.edi$/);
    const path = await download.path();
    expect(readFileSync(path)).toEqual(stored.rawPayload);

    // Every control is named and reachable by keyboard.
    const unnamed = await page.evaluate<
      string[]
    >(`[...document.querySelectorAll("main input, main select, main button, main a[href]")]
      .filter((e) => !(e.labels?.length || e.getAttribute("aria-label") || e.textContent.trim()))
      .map((e) => e.outerHTML.slice(0, 80))`);
    expect(unnamed).toEqual([]);
    let reached = false;
    for (let i = 0; i < 40 && !reached; i += 1) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate<boolean>(`document.activeElement?.textContent === "Resend"`);
    }
    expect(reached).toBe(true);

    // 390 px: nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<string[]>(widerThanScreen)).toEqual([]);
    await shoot(page, "delivery-phone");
    await page.setViewportSize({ width: 1366, height: 900 });

    // Resend by keyboard: a new mailbox item, linked from the notice.
    page.once("dialog", (dialog) => void dialog.accept());
    await page.keyboard.press("Enter");
    const notice = page.getByRole("status").filter({ hasText: "in the mailbox again" });
    await notice.waitFor();
    await notice.getByRole("link").click();
    await eventually(() => fields.textContent()).toContain("ready");
    await shoot(page, "delivery");
  });

  it("shows a delivery's problem detail when it does not exist", async () => {
    await page.goto(`${base}/console#/deliveries/00000000-0000-4000-8000-000000000000`);
    await page.reload();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/not found/i);
  });

  it("lists uploads newest first with partner and connection names, and finds one by order number or interchange reference (rules/contract §8)", async () => {
    await page.goto(`${base}/console#/uploads`);
    const rows = page.locator("tbody tr");
    await page.getByRole("row").filter({ hasText: "ICGOOD1" }).waitFor();
    await page.getByRole("row").filter({ hasText: "ICACK1" }).waitFor();
    const texts = await rows.allTextContents();
    const at = (ref: string) => texts.findIndex((text) => text.includes(ref));
    // ICACK1 came after ICGOOD1, ICGOOD1 after ICBROKEN1.
    expect([at("ICACK1") < at("ICGOOD1"), at("ICGOOD1") < at("ICBROKEN1")]).toEqual([true, true]);
    expect(texts[at("ICGOOD1")]).toContain("Buyer GmbH");

    const search = page.getByLabel("Interchange or order number");
    for (const [term, ref] of [
      ["PO-ICGOOD1", "ICGOOD1"], // BGM 1004 of its message
      ["ICBROKEN1", "ICBROKEN1"], // UNB 0020
    ] as const) {
      await search.fill(term);
      await page.getByRole("button", { name: "Apply" }).click();
      await eventually(() => page.evaluate<string>("location.hash")).toBe(`#/uploads?q=${term}`);
      await eventually(async () => [await rows.count(), await rows.filter({ hasText: ref }).count()]).toEqual(
        [1, 1],
      );
    }
    await shoot(page, "uploads-search");
    await search.fill("");
    await page.getByRole("button", { name: "Apply" }).click();
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
    await eventually(() => progress.textContent()).toContain("succeeded");
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
    for (const section of mainSections) {
      await openSection(page, section);
      if (["partners", "connections"].includes(section)) await shoot(page, section);
    }
    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it("reads well on a 390 px phone screen: no main page scrolls sideways", async () => {
    const phone = await newContext({ width: 390, height: 844 });
    const small = await phone.newPage();
    await signIn(small, customer);
    await small.goto(`${base}/console#/uploads`);
    await small.getByRole("row").filter({ hasText: "ICBROKEN1" }).waitFor();
    await shoot(small, "uploads-phone");
    const overflowing: string[] = [];
    for (const section of mainSections) {
      await openSection(small, section);
      // Wide tables scroll inside their frame; the page itself never does.
      overflowing.push(...(await small.evaluate<string[]>(widerThanScreen)).map((e) => `${section}: ${e}`));
    }
    await small.goto(`${base}/console#/uploads`);
    await small.getByRole("row").filter({ hasText: "ICBROKEN1" }).getByRole("link").click();
    await small.getByRole("region", { name: "Interchange trailer" }).waitFor();
    overflowing.push(...(await small.evaluate<string[]>(widerThanScreen)).map((e) => `upload: ${e}`));
    await shoot(small, "upload-phone");
    await small.goto(`${base}/console#/apps/crm/user-1`);
    await small.getByRole("heading", { name: "Entitlement of user-1" }).waitFor();
    overflowing.push(...(await small.evaluate<string[]>(widerThanScreen)));
    expect(overflowing).toEqual([]);
    await phone.close();
  });

  it("names every control for screen readers and works with the keyboard alone", async () => {
    const unnamed: string[] = [];
    for (const section of mainSections) {
      await openSection(page, section);
      unnamed.push(
        ...(await page.evaluate<
          string[]
        >(`[...document.querySelectorAll("input, select, textarea, button, a[href]")]
          .filter((e) => !(e.labels?.length || e.getAttribute("aria-label") || e.textContent.trim()))
          .map((e) => "${section}: " + e.outerHTML.slice(0, 80))`)),
      );
    }
    expect(unnamed).toEqual([]);

    // Sign in and request a transition by keyboard only.
    const keyboard = await newContext();
    const tab = await keyboard.newPage();
    await tab.goto(`${base}/console`);
    await tab.getByLabel("Tenant").waitFor();
    const focused = () =>
      tab.evaluate<string>(
        "document.activeElement?.labels?.[0]?.textContent ?? document.activeElement?.textContent ?? ''",
      );
    const tabTo = async (name: string) => {
      for (let i = 0; i < 60 && (await focused()) !== name; i++) await tab.keyboard.press("Tab");
      expect(await focused()).toBe(name);
    };
    await tabTo("Tenant");
    await tab.keyboard.type(customer.slug);
    await tab.keyboard.press("Tab");
    await tab.keyboard.type(customer.email);
    await tab.keyboard.press("Tab");
    await tab.keyboard.type(customer.password);
    await tab.keyboard.press("Enter");
    await tab
      .getByRole("navigation", { name: "Console sections" })
      .getByRole("link", { name: "Workflows" })
      .waitFor();
    await tabTo("Workflows");
    await tab.keyboard.press("Enter");
    await tab.getByRole("heading", { name: "Workflows", level: 1 }).waitFor();
    await tab.getByRole("link", { name: /Console pen/ }).waitFor();
    await tabTo((await tab.getByRole("link", { name: /Console pen/ }).textContent()) ?? "");
    await tab.keyboard.press("Enter");
    await tab.getByRole("heading", { name: "Entity", exact: true }).waitFor();
    await tab.getByLabel("Transition", { exact: true }).waitFor();
    await tabTo("Transition");
    await tab.keyboard.press("Tab");
    await tab.keyboard.press("Tab");
    await tab.keyboard.press("Enter");
    const row = tab.getByRole("row").filter({ hasText: "approve" });
    await eventually(() => row.getByText("succeeded").count()).toBe(1);
    await keyboard.close();
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
