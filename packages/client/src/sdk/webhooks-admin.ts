import type { Entrypoint } from "../protocol/index.js";
import type { Transport } from "./http.js";
import { createPublishedCall, type PageQuery } from "./published-call.js";
import type { Page } from "./types.js";

/** The published admin entry of webhook subscriptions (CONTRACT §5). */
export const webhookSubscriptionsEntryId = "admin.webhookSubscriptions";

/** The event types of an operator subscription (CONTRACT §8). */
export type OperatorEventType =
  | "exchange.upload.rejected"
  | "exchange.upload.failed"
  | "exchange.delivery.overdue"
  | "exchange.delivery.failed"
  | "workflows.request.failed";

export interface WebhookSubscription {
  id: string;
  /** Null for a tenant's operator subscription (CONTRACT §8). */
  bindingId: string | null;
  appId: string | null;
  url: string;
  /** An operator subscription's event types; null for a binding's subscription. */
  eventTypes: OperatorEventType[] | null;
  enabled: boolean;
  /** Why deliveries stopped (`410`, failing too long, an administrator), or null. */
  disabledReason: string | null;
  failingSince: string | null;
  createdAt: string;
}

/** A subscription as created: the Standard Webhooks `secret` (`whsec_…`) is shown only here. */
export type CreatedWebhookSubscription = WebhookSubscription & { secret: string };

/** One delivery attempt: never a body or a secret. */
export interface WebhookAttempt {
  id: string;
  deliveryId: string;
  /** The entitlement change's sequence; null for an operator event. */
  sequence: number | null;
  attempt: number;
  attemptedAt: string;
  /** HTTP status; null when no answer came. */
  status: number | null;
  latencyMs: number;
  /** `address`, `dns`, `timeout`, `connect`, `tls`, `protocol` or `http-<status>`; null on success. */
  errorClass: string | null;
}

export interface WebhookRecovery {
  subscriptionId: string;
  fromSequence: number;
  /** Deliveries queued: the changes from `fromSequence` on that the feed still holds. */
  enqueued: number;
}

export interface RotatedWebhookSecret {
  subscriptionId: string;
  /** The new `whsec_…` secret, shown only here. */
  secret: string;
  /** Until then deliveries carry a signature with the old secret too. */
  previousSecretValidUntil: string;
}

export interface WebhooksAdminApi {
  listSubscriptions(query?: PageQuery): Promise<Page<WebhookSubscription>>;
  /** A binding's subscription (`bindingId`), or the tenant's operator subscription (`eventTypes`). */
  createSubscription(
    input: { bindingId: string; url: string } | { url: string; eventTypes: OperatorEventType[] },
  ): Promise<CreatedWebhookSubscription>;
  getSubscription(id: string): Promise<WebhookSubscription>;
  /** Newest first. */
  listAttempts(id: string, query?: PageQuery): Promise<Page<WebhookAttempt>>;
  /** Re-sends every change from `fromSequence` on that the feed still holds (`409` when disabled). */
  recover(id: string, fromSequence: number): Promise<WebhookRecovery>;
  enable(id: string): Promise<WebhookSubscription>;
  /** Pending deliveries are dropped. */
  disable(id: string): Promise<WebhookSubscription>;
  rotateSecret(id: string): Promise<RotatedWebhookSecret>;
  /** Offboarding (CONTRACT §7): no delivery of it starts after the answer; 404 from then on. */
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
