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
      uploadStatuses: ["received", "processing", "processed", "rejected", "failed"],
      deliveryStatuses: ["ready", "claimed", "acknowledged", "failed"],
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

  it("the statuses of uploads, deliveries and connections are enums in the description (the SDK's types follow)", async () => {
    const document = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json<{
      paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>>;
    }>();
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    const statusOf = (operationId: string, path: string[]) => {
      const operation = operations.find((o) => o.operationId === operationId);
      let schema = (operation?.responses?.["200"] as { content: Record<string, { schema: unknown }> })
        .content["application/json"]?.schema as Record<string, unknown> | undefined;
      for (const step of path) {
        const next: unknown = (schema?.properties as Record<string, unknown> | undefined)?.[step];
        schema = next as Record<string, unknown> | undefined;
      }
      return schema?.enum;
    };
    expect(statusOf("getUpload", ["status"])).toEqual([
      "received",
      "processing",
      "processed",
      "rejected",
      "failed",
    ]);
    expect(statusOf("getDelivery", ["status"])).toEqual(["ready", "claimed", "acknowledged", "failed"]);
    expect(statusOf("getConnection", ["status"])).toEqual(["active", "suspended"]);
  });
});
