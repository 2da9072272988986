import type { Entrypoint } from "../protocol/index.js";
import type { ListItem, RequestBody, ResponseBody } from "./api.js";
import type { Transport } from "./http.js";
import { createPublishedCall, type PageQuery } from "./published-call.js";
import type { Page } from "./types.js";

/** The published admin entry of webhook subscriptions (rules/contract §5). */
export const webhookSubscriptionsEntryId = "admin.webhookSubscriptions";

/** The event types of an operator subscription (rules/contract §8). */
export type OperatorEventType = NonNullable<WebhookSubscription["eventTypes"]>[number];

export type WebhookSubscription = ResponseBody<"getWebhookSubscription">;

/** A subscription as created: the Standard Webhooks `secret` (`whsec_…`) is shown only here. */
export type CreatedWebhookSubscription = ResponseBody<"createWebhookSubscription", 201>;

/** One delivery attempt: never a body or a secret. */
export type WebhookAttempt = ListItem<"listWebhookAttempts">;

export type WebhookRecovery = ResponseBody<"recoverWebhookSubscription">;

export type RotatedWebhookSecret = ResponseBody<"rotateWebhookSecret">;

export interface WebhooksAdminApi {
  listSubscriptions(query?: PageQuery): Promise<Page<WebhookSubscription>>;
  /** A binding's subscription (`bindingId`), or the tenant's operator subscription (`eventTypes`). */
  createSubscription(input: RequestBody<"createWebhookSubscription">): Promise<CreatedWebhookSubscription>;
  getSubscription(id: string): Promise<WebhookSubscription>;
  /** Newest first. */
  listAttempts(id: string, query?: PageQuery): Promise<Page<WebhookAttempt>>;
  /** Re-sends every change from `fromSequence` on that the feed still holds (`409` when disabled). */
  recover(id: string, fromSequence: number): Promise<WebhookRecovery>;
  enable(id: string): Promise<WebhookSubscription>;
  /** Pending deliveries are dropped. */
  disable(id: string): Promise<WebhookSubscription>;
  rotateSecret(id: string): Promise<RotatedWebhookSecret>;
  /** Offboarding (rules/contract §7): no delivery of it starts after the answer; 404 from then on. */
  deleteSubscription(id: string): Promise<void>;
}

/** Webhook subscription administration through the session's published entry only. */
export function createWebhooksAdminApi(
  transport: Transport,
  findEntry: (id: string) => Promise<Entrypoint>,
): WebhooksAdminApi {
  const run = createPublishedCall(transport, findEntry);
  const entry = webhookSubscriptionsEntryId;
  return {
    listSubscriptions: (query = {}) => run(entry, "list", {}, { query }),
    createSubscription: (input) => run(entry, "create", {}, { body: input }),
    getSubscription: (id) => run(entry, "read", { id }),
    listAttempts: (id, query = {}) => run(entry, "attempts", { id }, { query }),
    recover: (id, fromSequence) => run(entry, "recover", { id }, { body: { fromSequence } }),
    enable: (id) => run(entry, "enable", { id }),
    disable: (id) => run(entry, "disable", { id }),
    rotateSecret: (id) => run(entry, "rotateSecret", { id }),
    deleteSubscription: (id) => run(entry, "delete", { id }),
  };
}
