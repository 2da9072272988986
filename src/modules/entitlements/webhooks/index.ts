/** Webhook subscriptions, their deliveries and attempts, and the operator events queued through them. */
export { raiseOperatorEventsSql } from "./operator-events.js";
export {
  webhookBatchSize,
  webhookDeliveryJob,
  webhookDeliveryJobName,
  type WebhookCounters,
} from "./webhook-delivery.job.js";
export { stopBindingSubscriptions } from "./webhooks.repository.js";
export { webhooksRoutes } from "./webhooks.routes.js";
export { createWebhooksService } from "./webhooks.service.js";
export { webhookSealedColumns } from "./webhooks.repository.js";
