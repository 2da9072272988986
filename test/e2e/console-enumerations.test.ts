// remote mode: in-process only: compares with the description of this checkout
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enumerationsFrom } from "../../src/console/enumerations.js";
import { createTestApp, type TestApp } from "../support/test-app.js";

/** Issue 36 item 3: the console's value lists come from the API's description, never typed twice. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe("/console/enumerations.json", () => {
  it("answers the lists the API declares, without a session", async () => {
    const response = await t.app.inject({ method: "GET", url: "/console/enumerations.json" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.json()).toEqual({
      userRoles: ["owner", "admin", "viewer"],
      entitlementStatuses: ["active", "suspended", "revoked"],
      deliveryMessageTypes: ["CONTRL", "APERAK", "ORDRSP"],
      transitionStatuses: ["pending", "processing", "succeeded", "failed"],
      partnerScopes: [
        "b2b_exchange_partner_inbox:create",
        "b2b_exchange_partner_mailbox:list",
        "b2b_exchange_partner_mailbox:claim",
        "b2b_exchange_partner_mailbox:payload_read",
        "b2b_exchange_partner_mailbox:acknowledge",
      ],
      contrlResponses: ["always", "on-request", "on-error"],
      aperakResponses: ["always", "on-error", "never"],
      ordrspResponses: ["auto", "never"],
      orderValidations: ["none", "catalog"],
      operatorEventTypes: [
        "exchange.upload.rejected",
        "exchange.upload.failed",
        "exchange.delivery.overdue",
        "exchange.delivery.failed",
        "workflows.request.failed",
      ],
    });
  });

  it("a description without one of the lists is an error naming the list, not an empty select", async () => {
    const document = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json<{
      paths: Record<string, Record<string, { operationId?: string }>>;
    }>();
    for (const methods of Object.values(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (operation.operationId === "listDeliveries") Reflect.deleteProperty(methods, method);
      }
    }
    expect(() => enumerationsFrom(document)).toThrow(/no values for the console's deliveryMessageTypes/);
  });
});
