import { expect } from "vitest";
import { bearer, type TestApp } from "./test-app.js";

export interface WebhookSubscription {
  id: string;
  secret: string;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
}

export interface WebhookAttempt {
  deliveryId: string;
  sequence: number;
  attempt: number;
  status: number | null;
  latencyMs: number;
  errorClass: string | null;
}

/**
 * An app, a service binding of it and a webhook subscription of the binding to `url`, made through
 * the admin API as the administrator whose session `token` is. `change` writes an entitlement
 * change of the app and returns its sequence; `read` and `attempts` are the subscription's admin
 * views (attempts newest first).
 */
export async function subscribeWebhook(t: TestApp, token: string, appId: string, url: string) {
  const admin = (method: "GET" | "POST" | "PUT", path: string, payload?: object) =>
    t.inject({ method, url: path, headers: bearer(token), ...(payload ? { payload } : {}) });
  await admin("POST", "/api/v1/admin/apps", { id: appId, name: appId, capabilities: ["use"] });
  const binding = (
    await admin("POST", "/api/v1/admin/service-bindings", {
      appId,
      audience: `aud-${appId}`,
      requiredCapabilities: [],
    })
  ).json<{ id: string }>();
  const created = await admin("POST", "/api/v1/admin/webhook-subscriptions", { bindingId: binding.id, url });
  expect(created.statusCode, created.body).toBe(201);
  const subscription = created.json<WebhookSubscription>();
  const href = `/api/v1/admin/webhook-subscriptions/${subscription.id}`;
  return {
    appId,
    subscription,
    async change(actorId: string, plan = "basic"): Promise<number> {
      const response = await admin("PUT", `/api/v1/admin/apps/${appId}/entitlements/${actorId}`, {
        status: "active",
        plan,
        capabilities: ["use"],
      });
      expect(response.statusCode).toBe(200);
      return response.json<{ sequence: number }>().sequence;
    },
    read: async () => (await admin("GET", href)).json<WebhookSubscription>(),
    attempts: async () => (await admin("GET", `${href}/attempts`)).json<{ items: WebhookAttempt[] }>().items,
  };
}
