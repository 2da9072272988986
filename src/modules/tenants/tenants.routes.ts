import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { headers } from "@hanse/client/protocol";
import { requirePrincipal } from "../../platform/auth/index.js";
import { sendIdempotentOutcome } from "../../platform/http/idempotency.js";
import { requireIdempotencyKey } from "../../platform/http/idempotency-key.js";
import { PageQuery, acceptedHeaders, problemResponses } from "../../platform/http/openapi-schemas.js";
import {
  CreateTenantAccepted,
  CreateTenantBody,
  ProvisioningStatus,
  TenantIdParams,
  TenantList,
  TenantSchema,
} from "./tenants.schemas.js";
import { provisioningRetryAfterSeconds, type TenantsService } from "./tenants.service.js";

const base = "/api/v1/system/tenants";
/** rules/contract §3: `Idempotency-Key` is 1–255 visible ASCII characters. */
const tenantKeyRule = { header: "Idempotency-Key", characters: "visible-ascii" } as const;

export const tenantsRoutes =
  (service: TenantsService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      base,
      {
        config: { auth: { kind: "session", systemTenant: true, allScopes: ["tenants:list"] } },
        schema: {
          operationId: "listTenants",
          tags: ["tenants"],
          summary: "List tenants (system tenant, tenants:list)",
          description:
            "Every tenant, oldest first, paged with `limit` and `cursor`. Only the system tenant's callers: " +
            "any other tenant gets 404.",
          querystring: PageQuery,
          response: { 200: TenantList, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) =>
        service.listTenants({
          limit: request.query.limit ?? 50,
          cursor: request.query.cursor,
          order: request.query.order,
        }),
    );

    app.get(
      `${base}/:tenantId`,
      {
        config: { auth: { kind: "session", systemTenant: true, allScopes: ["tenants:read"] } },
        schema: {
          operationId: "getTenant",
          tags: ["tenants"],
          summary: "Read a tenant (system tenant, tenants:read)",
          description:
            "One tenant with its status. Only the system tenant's callers: any other tenant gets 404.",
          params: TenantIdParams,
          response: { 200: TenantSchema, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) => service.getTenant(request.params.tenantId),
    );

    app.post(
      base,
      {
        config: { auth: { kind: "session", systemTenant: true, allScopes: ["tenants:create"] } },
        schema: {
          operationId: "createTenant",
          tags: ["tenants"],
          summary: "Start provisioning a customer tenant (system tenant, tenants:create)",
          description:
            "Requires `Idempotency-Key` (1–255 visible ASCII characters). Answers 202 with `Location` (the new tenant) " +
            "and `Retry-After`; the same key and body replay the first answer, another body is 409 ERR_IDEMPOTENCY_MISMATCH.",
          headers: Type.Object({
            "idempotency-key": Type.Optional(
              Type.String({
                description:
                  "Required (1–255 visible ASCII characters); without it 400 ERR_IDEMPOTENCY_KEY_REQUIRED",
                examples: ["create-acme-1"],
              }),
            ),
          }),
          body: CreateTenantBody,
          response: {
            202: {
              ...CreateTenantAccepted,
              headers: acceptedHeaders("The new tenant's URL"),
            },
            ...problemResponses(400, 401, 403, 404, 409, 413, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const key = requireIdempotencyKey(request.headers[headers.idempotencyKey], tenantKeyRule);
        const outcome = await service.createTenant(requirePrincipal(request), key, request.body);
        request.log.info(
          { idempotencyRef: service.idempotencyReference(key), replay: outcome.replay },
          "tenant creation accepted",
        );
        return sendIdempotentOutcome(reply, outcome);
      },
    );

    for (const act of ["suspend", "resume"] as const) {
      app.post(
        `${base}/:tenantId/${act}`,
        {
          config: { auth: { kind: "session", systemTenant: true, allScopes: ["tenants:write"] } },
          schema: {
            operationId: act === "suspend" ? "suspendTenant" : "resumeTenant",
            tags: ["tenants"],
            summary:
              act === "suspend"
                ? "Suspend a tenant (system tenant, tenants:write)"
                : "Resume a suspended tenant (system tenant, tenants:write)",
            description:
              act === "suspend"
                ? "rules/contract §7, offboarding: from the answer on, the tenant's sessions, access tokens, partner API " +
                  "keys and service credentials are refused as if unknown (401 with the code of their area), its " +
                  "exchange deliveries and webhooks wait, nothing is deleted. Suspending a suspended tenant " +
                  "answers it unchanged; the system tenant, or a tenant that is not active, is 409 ERR_CONFLICT."
                : "Brings a suspended tenant back: the same credentials work again and its waiting jobs run. " +
                  "Resuming an active tenant answers it unchanged; a tenant neither active nor suspended is 409.",
            params: TenantIdParams,
            response: { 200: TenantSchema, ...problemResponses(400, 401, 403, 404, 409, 500, 503) },
          },
        },
        async (request) =>
          act === "suspend"
            ? service.suspendTenant(requirePrincipal(request), request.params.tenantId)
            : service.resumeTenant(requirePrincipal(request), request.params.tenantId),
      );
    }
    app.get(
      `${base}/:tenantId/provisioning`,
      {
        config: {
          auth: {
            kind: "session",
            systemTenant: true,
            anyScopes: ["tenants:read", "system_diagnostics:read"],
          },
        },
        schema: {
          operationId: "getTenantProvisioning",
          tags: ["tenants"],
          summary: "Provisioning status (tenants:read or system_diagnostics:read)",
          description:
            "The state of the tenant's provisioning steps; `terminal` once it succeeded or failed (then " +
            "`error` says why). Carries `Retry-After` while the state is not terminal.",
          params: TenantIdParams,
          response: {
            200: {
              ...ProvisioningStatus,
              headers: { "Retry-After": { type: "integer", description: "While not terminal" } },
            },
            ...problemResponses(400, 401, 403, 404, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const status = await service.getProvisioning(request.params.tenantId);
        if (!status.terminal) reply.header("retry-after", String(provisioningRetryAfterSeconds));
        return status;
      },
    );
  };
