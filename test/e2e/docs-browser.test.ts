import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserTestsSkipped, launchBrowser } from "../support/browser.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import { inProcessOnly } from "../support/remote-app.js";

describe.skipIf(
  inProcessOnly(
    "the browser session hung against HAProxy; it renders /docs, which nothing cross-process changes",
  ) || browserTestsSkipped(),
)("/docs in a browser", () => {
  let t: TestApp;
  let baseUrl: string;
  let browser: Browser;
  beforeAll(async () => {
    t = await createTestApp();
    baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
    await t.close();
  });

  it("renders every operation of /openapi.json, with parameters, schemas, examples and errors", async () => {
    const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const ids = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    const page = await browser.newPage();
    const outside: string[] = [];
    const refused: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(baseUrl) && !request.url().startsWith("data:"))
        outside.push(request.url());
    });
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) refused.push(message.text());
    });
    await page.goto(`${baseUrl}/docs`);
    await page.locator(".opblock").first().waitFor({ timeout: 60_000 });
    expect(await page.locator(".opblock").count()).toBe(ids.length);
    // Operation ids are shown with their operations.
    const shown = await page.locator(".opblock .opblock-summary-operation-id").allTextContents();
    expect(shown.sort()).toEqual([...ids].sort());

    // One operation opened: its parameters, request body example, responses and problem errors.
    const create = page.locator("#operations-tenants-createTenant");
    await create.locator(".opblock-summary").click();
    await create.locator(".parameters").first().waitFor();
    const text = await create.innerText();
    expect(text).toContain("idempotency-key");
    expect(text).toContain("Acme GmbH");
    expect(text).toContain("application/problem+json");
    expect(text).toContain("ERR_VALIDATION");
    expect(outside).toEqual([]);
    expect(refused).toEqual([]);
  });
});
