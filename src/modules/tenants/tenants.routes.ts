import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { headers } from "../../protocol/headers.js";
import { requirePrincipal } from "../../platform/auth/index.js";
import { sendIdempotentOutcome } from "../../platform/http/idempotency.js";
import { requireIdempotencyKey } from "../../platform/http/idempotency-key.js";
import { PageQuery, problemResponses } from "../../platform/http/openapi-schemas.js";
import {
  CreateTenantAccepted,
  CreateTenantBody,
  ProvisioningStatus,
  TenantIdParams,
  TenantList,
  TenantSchema,
} from "./tenants.schemas.js";
import { provisioningRetryAfterSeconds, type TenantsService } from "./tenants.service.js";

const bearer = [{ bearerAuth: [] }];
const base = "/api/v1/system/tenants";
/** CONTRACT §3: `Idempotency-Key` is 1–255 visible ASCII characters. */
const tenantKeyRule = { header: "Idempotency-Key", characters: "visible-ascii" } as const;

export const tenantsRoutes =
  (service: TenantsService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      base,
      {
        config: { auth: { kind: "session", systemTenant: true, allScopes: ["tenants:list"] } },
        schema: {
          tags: ["system"],
          summary: "List tenants (system tenant, tenants:list)",
          security: bearer,
          querystring: PageQuery,
          response: { 200: TenantList, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) =>
        service.listTenants({ limit: request.query.limit ?? 50, cursor: request.query.cursor }),
    );

    app.get(
      `${base}/:tenantId`,
      {
        config: { auth: { kind: "session", systemTenant: true, allScopes: ["tenants:read"] } },
        schema: {
          tags: ["system"],
          summary: "Read a tenant (system tenant, tenants:read)",
          security: bearer,
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
          tags: ["system"],
          summary: "Start provisioning a customer tenant (system tenant, tenants:create)",
          description:
            "Requires `Idempotency-Key` (1–255 visible ASCII characters). Answers 202 with `Location` (the new tenant) " +
            "and `Retry-After`; the same key and body replay the first answer, another body is 409 ERR_IDEMPOTENCY_MISMATCH.",
          security: bearer,
          headers: Type.Object({ "idempotency-key": Type.Optional(Type.String()) }),
          body: CreateTenantBody,
          response: {
            202: {
              ...CreateTenantAccepted,
              headers: { Location: { type: "string" }, "Retry-After": { type: "integer" } },
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
          tags: ["system"],
          summary: "Provisioning status (tenants:read or system_diagnostics:read)",
          description: "Carries `Retry-After` while the state is not terminal.",
          security: bearer,
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
