import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { requirePrincipal } from "../../../platform/auth/index.js";
import {
  logPagedDescription,
  pagedDescription,
  registerCollectionRoutes,
} from "../../../platform/http/crud-routes.js";
import { PagingQuery, problemResponses } from "../../../platform/http/openapi-schemas.js";
import {
  CreatedSubscription,
  CreateSubscriptionBody,
  IdParams,
  RecoverBody,
  RecoverResult,
  RotatedWebhookSecret,
  SubscriptionList,
  SubscriptionSchema,
  WebhookAttemptList,
} from "../entitlements.schemas.js";
import type { WebhooksService } from "./webhooks.service.js";

export const subscriptionsHref = "/api/v1/admin/webhook-subscriptions";
const tags = ["webhooks"];
const read = { auth: { kind: "session" as const, allScopes: ["admin:read" as const] } };
const write = { auth: { kind: "session" as const, allScopes: ["admin:write" as const] } };
const errors = problemResponses(400, 401, 403, 404, 500, 503);

export const webhooksRoutes =
  (webhooks: WebhooksService): FastifyPluginAsyncTypebox =>
  async (app) => {
    registerCollectionRoutes(app, {
      tags,
      scopes: { read: "admin:read", write: "admin:write" },
      path: subscriptionsHref,
      list: {
        operationId: "listWebhookSubscriptions",
        summary: "List webhook subscriptions (admin:read)",
        description: pagedDescription,
        response: SubscriptionList,
        run: (principal, page) => webhooks.list(principal, page),
      },
      create: {
        operationId: "createWebhookSubscription",
        summary:
          "Subscribe an HTTPS URL to a binding's entitlement changes or to operator events (admin:write)",
        description:
          "With `bindingId`: the binding's app's entitlement changes (rules/contract §5). Without it: the tenant's " +
          "operator subscription to `eventTypes` (rules/contract §8: `exchange.upload.rejected`, " +
          "`exchange.upload.failed`, `exchange.delivery.overdue`, `exchange.delivery.failed`, " +
          "`workflows.request.failed`), delivered as `{eventId, type, tenantId, occurredAt, subject: " +
          "{uploadId?, deliveryAttemptId?, connectionId?, requestId?}}`, ids only, never payload bytes. " +
          "An unknown, empty or repeated event type, `eventTypes` missing without `bindingId` or given " +
          "with it is 400 ERR_VALIDATION at `/eventTypes[/<i>]`, nothing created. " +
          "HTTPS only, no credentials in the URL, and the host must resolve to public addresses (checked " +
          "again at every delivery). The Standard Webhooks `secret` is shown only in this response.",
        body: CreateSubscriptionBody,
        response: CreatedSubscription,
        run: (principal, body) => webhooks.create(principal, body),
      },
      read: {
        operationId: "getWebhookSubscription",
        summary: "Read a webhook subscription (admin:read)",
        description: "One subscription of the tenant, without its signing secret.",
        params: IdParams,
        response: SubscriptionSchema,
        run: (principal, { id }) => webhooks.get(principal, id),
      },
    });

    app.get(
      `${subscriptionsHref}/:id/attempts`,
      {
        config: read,
        schema: {
          tags,
          operationId: "listWebhookAttempts",
          summary: "A subscription's delivery attempts, newest first (admin:read)",
          description: `Every attempt to deliver the subscription's changes, with its outcome. ${logPagedDescription}`,
          params: IdParams,
          querystring: PagingQuery,
          response: { 200: WebhookAttemptList, ...errors },
        },
      },
      async (request) =>
        webhooks.attempts(requirePrincipal(request), request.params.id, {
          limit: request.query.limit ?? 50,
          cursor: request.query.cursor,
        }),
    );
    for (const [action, enabled] of [
      ["enable", true],
      ["disable", false],
    ] as const) {
      app.post(
        `${subscriptionsHref}/:id/${action}`,
        {
          config: write,
          schema: {
            tags,
            operationId: enabled ? "enableWebhookSubscription" : "disableWebhookSubscription",
            summary: enabled
              ? "Enable a subscription again (admin:write)"
              : "Disable a subscription; its pending deliveries are dropped (admin:write)",
            description: enabled
              ? "Deliveries resume from where they stopped."
              : "No deliveries until enabled again; pending ones are dropped (recover re-sends from a sequence).",
            params: IdParams,
            response: { 200: SubscriptionSchema, ...errors, ...problemResponses(409) },
          },
        },
        async (request) => webhooks.setEnabled(requirePrincipal(request), request.params.id, enabled),
      );
    }
    app.delete(
      `${subscriptionsHref}/:id`,
      {
        config: write,
        schema: {
          tags,
          operationId: "deleteWebhookSubscription",
          summary: "Delete a webhook subscription (admin:write)",
          description:
            "rules/contract §7, offboarding: no delivery of the subscription starts after the answer (its pending " +
            "deliveries are cancelled; one already being sent may finish). It is 404 from then on.",
          params: IdParams,
          response: { 204: { type: "null", description: "Deleted" }, ...errors },
        },
      },
      async (request, reply) => {
        await webhooks.delete(requirePrincipal(request), request.params.id);
        return reply.code(204).send();
      },
    );
    app.post(
      `${subscriptionsHref}/:id/recover`,
      {
        config: write,
        schema: {
          tags,
          operationId: "recoverWebhookSubscription",
          summary: "Re-send every change from a sequence on (admin:write)",
          description:
            "Queues one delivery per change of the app from `fromSequence` on that the feed still holds. " +
            "An operator subscription has no change feed: 409 ERR_CONFLICT.",
          params: IdParams,
          body: RecoverBody,
          response: { 200: RecoverResult, ...errors, ...problemResponses(409) },
        },
      },
      async (request) =>
        webhooks.recover(requirePrincipal(request), request.params.id, request.body.fromSequence),
    );
    app.post(
      `${subscriptionsHref}/:id/rotate-secret`,
      {
        config: write,
        schema: {
          tags,
          operationId: "rotateWebhookSecret",
          summary: "Rotate a subscription's signing secret (admin:write)",
          description:
            "Deliveries carry a signature with each secret until the old one expires " +
            "(HANSE_CREDENTIAL_OVERLAP_SECONDS): `webhook-signature: v1,<new> v1,<old>`.",
          params: IdParams,
          response: { 200: RotatedWebhookSecret, ...errors },
        },
      },
      async (request) => webhooks.rotateSecret(requirePrincipal(request), request.params.id),
    );
  };
