import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import { headers } from "@hanse/client/protocol";
import { requirePrincipal } from "../../platform/auth/index.js";
import { isUuid } from "../../platform/crypto/index.js";
import { AppError } from "../../platform/errors/app-error.js";
import { sendIdempotentOutcome } from "../../platform/http/idempotency.js";
import { requireIdempotencyKey, type IdempotencyKeyRule } from "../../platform/http/idempotency-key.js";
import { acceptedHeaders, problemResponses } from "../../platform/http/openapi-schemas.js";
import { isTerminal } from "./workflow-rules.js";
import {
  RequestIdParams,
  StatusHeaders,
  TransitionHeaders,
  TransitionRequestAccepted,
  TransitionRequestBody,
  TransitionRequestStatusSchema,
} from "./workflows.schemas.js";
import {
  requireTenant,
  statusRetryAfterSeconds,
  transitionRequestsHref,
} from "./transition-requests.service.js";
import type { WorkflowsService } from "./workflows.service.js";

/** rules/contract §6: the transition request body is read no further than 1 MiB. */
export const transitionBodyLimit = 1024 * 1024;
/** Spec D limits: non-empty, at most 255 characters, of any kind. */
const keyRule: IdempotencyKeyRule = { header: "X-Idempotency-Key", characters: "any" };
const tenantHeaderName = "X-Tenant-ID";

/**
 * `X-Tenant-ID` names the credential's tenant: missing (where required) or malformed → 400
 * ERR_VALIDATION, another tenant → 403 ERR_FORBIDDEN (`requireTenant`). An empty header was sent
 * and names no tenant, so it is another tenant than the credential's: 403 on both routes
 * (docs/decisions.md, issue 38). Returns the tenant id.
 */
function tenantHeader(request: FastifyRequest, required: boolean): string | undefined {
  const value = request.headers[headers.tenantId];
  const pointer = `/headers/${headers.tenantId}`;
  // Node's parser trims a header's spaces; a value of spaces only is empty too.
  if (typeof value === "string" && value.trim() === "")
    throw new AppError("ERR_FORBIDDEN", `The ${tenantHeaderName} header is not the credential's tenant.`);
  if (value === undefined) {
    if (!required) return undefined;
    throw new AppError("ERR_VALIDATION", `The ${tenantHeaderName} header is required.`, {
      errors: [{ pointer, message: "required header is missing" }],
    });
  }
  if (Array.isArray(value) || !isUuid(value)) {
    throw new AppError("ERR_VALIDATION", `The ${tenantHeaderName} header must be one tenant UUID.`, {
      errors: [{ pointer, message: "a tenant UUID" }],
    });
  }
  return value.toLowerCase();
}

export const transitionRequestsRoutes =
  (service: WorkflowsService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      transitionRequestsHref,
      {
        bodyLimit: transitionBodyLimit,
        // The accept statement checks the credential itself (one round trip per request).
        config: { auth: { kind: "session", allScopes: ["workflows:transition"], deferred: true } },
        // Header rules come before the body's schema: a missing key is the integration error to report.
        preValidation: async (request) => {
          tenantHeader(request, true);
          requireIdempotencyKey(request.headers[headers.workflowIdempotencyKey], keyRule);
        },
        schema: {
          operationId: "requestTransition",
          tags: ["workflows"],
          summary: "Request a workflow transition (asynchronous, idempotent; workflows:transition)",
          description:
            "Headers `X-Tenant-ID` (the credential's tenant) and `X-Idempotency-Key` (1–255 characters of any " +
            "kind, sent as UTF-8) are required. Answers 202 with `requestId`, `status` and `statusUrl`, plus `Location` " +
            "and `Retry-After`. An exact retry returns the first answer byte for byte (with " +
            "`Idempotent-Replayed: true`); the key with another entity, entityId, transition or payload is " +
            "409 ERR_IDEMPOTENCY_MISMATCH. The body is limited to 1 MiB (413, nothing created). The business " +
            "outcome is read from `statusUrl`.",
          headers: TransitionHeaders,
          body: TransitionRequestBody,
          response: {
            202: {
              ...TransitionRequestAccepted,
              headers: acceptedHeaders("The request's status URL"),
            },
            ...problemResponses(400, 401, 403, 409, 413, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const key = requireIdempotencyKey(request.headers[headers.workflowIdempotencyKey], keyRule);
        const tenantId = tenantHeader(request, true) as string;
        const credential = request.deferredCredential;
        if (!credential) throw new AppError("ERR_UNAUTHENTICATED");
        const outcome = await service.requestTransition({ tenantId, credential }, key, request.body);
        // The key may carry business data: logs get an opaque reference only (rules/interface D rule 6).
        request.log.info(
          { idempotencyRef: outcome.reference, replay: outcome.replay },
          "workflow transition request accepted",
        );
        return sendIdempotentOutcome(reply, outcome);
      },
    );

    app.get(
      `${transitionRequestsHref}/:requestId`,
      {
        config: { auth: { kind: "session", allScopes: ["workflows:read"] } },
        preValidation: async (request) => {
          const tenantId = tenantHeader(request, false);
          if (tenantId !== undefined) requireTenant(requirePrincipal(request), tenantId);
        },
        schema: {
          operationId: "getTransitionRequest",
          tags: ["workflows"],
          summary: "Status of a transition request (workflows:read)",
          description:
            "`X-Tenant-ID` is optional and must name the credential's tenant when sent. Carries " +
            "`Retry-After` while the status is `pending` or `processing`. Business failures are outcomes " +
            "(`error.code`: ERR_WORKFLOW_ENTITY_NOT_FOUND, ERR_WORKFLOW_TRANSITION_NOT_ALLOWED, " +
            "ERR_WORKFLOW_CONFLICT, ERR_WORKFLOW_ADAPTER_REJECTED, ERR_WORKFLOW_ADAPTER_UNAVAILABLE), not HTTP errors.",
          headers: StatusHeaders,
          params: RequestIdParams,
          response: {
            200: {
              ...TransitionRequestStatusSchema,
              headers: {
                "Retry-After": { type: "integer", description: "While not terminal" },
                "Cache-Control": { type: "string", enum: ["no-store"] },
              },
            },
            ...problemResponses(400, 401, 403, 404, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const status = await service.getTransitionRequest(
          requirePrincipal(request),
          request.params.requestId,
        );
        reply.header("cache-control", "no-store");
        if (!isTerminal(status.status)) reply.header(headers.retryAfter, String(statusRetryAfterSeconds));
        return status;
      },
    );
  };
