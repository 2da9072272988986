import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Kysely } from "kysely";
import { actorOf, recordAudit } from "../../../platform/audit/index.js";
import { requirePrincipal, type Principal } from "../../../platform/auth/index.js";
import type { Database } from "../../../platform/db/database.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { problemResponses } from "../../../platform/http/openapi-schemas.js";
import type { ModuleDeps } from "../../module.js";
import { hasTenantState } from "../entitlements.repository.js";
import { RotationResult, SigningKeyList, TenantKeyParams, TenantParams } from "../entitlements.schemas.js";
import type { EntitlementTables } from "../entitlements.tables.js";
import { keyState, type KeyRing } from "./signing-keys.js";

export const signingKeysHref = "/api/v1/system/tenants/{tenantId}/signing-keys";
const tags = ["signing-keys"];
const systemAdmin = (scope: "admin:read" | "admin:write") => ({
  auth: { kind: "session" as const, systemTenant: true, allScopes: [scope] },
});

/** The system administrator's view of a tenant's grant signing keys: list, rotate, withdraw. */
export function signingKeysAdmin(
  deps: Pick<ModuleDeps, "clock" | "newId"> & { database: Database; keys: KeyRing },
) {
  const database = deps.database.as<EntitlementTables>();
  const db: Kysely<EntitlementTables> = database.db;

  async function tenantOf(tenantId: string) {
    if (!(await hasTenantState(db, tenantId.toLowerCase()))) {
      throw new AppError("ERR_NOT_FOUND", "No such tenant, or its entitlement state is not provisioned.");
    }
    return tenantId.toLowerCase();
  }

  const audit = (principal: Principal, tenantId: string, type: string, kid: string) => ({
    tenantId,
    id: deps.newId(),
    type,
    occurredAt: deps.clock.now(),
    actor: actorOf(principal),
    targetType: "signing_key",
    targetId: kid,
    data: { kid },
  });

  const routes: FastifyPluginAsyncTypebox = async (app) => {
    const path = "/api/v1/system/tenants/:tenantId/signing-keys";
    app.get(
      path,
      {
        config: systemAdmin("admin:read"),
        schema: {
          tags,
          operationId: "listSigningKeys",
          summary: "A tenant's grant signing keys and their states (system tenant, admin:read)",
          description:
            "The keys that sign a tenant's grants: the active one, the next one and withdrawn or retired ones, with their states and times. Only the system tenant's callers: any other tenant gets 404.",
          params: TenantParams,
          response: { 200: SigningKeyList, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) => {
        const tenantId = await tenantOf(request.params.tenantId);
        const now = deps.clock.now();
        const rows = await deps.keys.list(db, tenantId);
        return {
          items: rows.map((row) => ({
            kid: row.kid,
            state: keyState(row, now),
            createdAt: row.created_at.toISOString(),
            activatesAt: row.activates_at?.toISOString() ?? null,
            retiresAt: row.retires_at?.toISOString() ?? null,
            expiresAt: row.expires_at?.toISOString() ?? null,
            withdrawnAt: row.withdrawn_at?.toISOString() ?? null,
          })),
        };
      },
    );
    app.post(
      `${path}/rotate`,
      {
        config: systemAdmin("admin:write"),
        schema: {
          tags,
          operationId: "rotateSigningKey",
          summary: "Rotate a tenant's signing key now (system tenant, admin:write)",
          description:
            "The key published ahead signs once it has been in the JWKS for its max-age (300 s; at once " +
            "when it has been); the current key retires then and leaves the JWKS when its grants expired.",
          params: TenantParams,
          response: { 200: RotationResult, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) => {
        const principal = requirePrincipal(request);
        const tenantId = await tenantOf(request.params.tenantId);
        const result = await database.transaction(async (trx) => {
          const rotated = await deps.keys.rotate(trx, tenantId);
          await recordAudit(trx, audit(principal, tenantId, "signing_key.rotated", rotated.kid));
          return rotated;
        });
        return { kid: result.kid, activatesAt: result.activatesAt.toISOString() };
      },
    );
    app.post(
      `${path}/:kid/withdraw`,
      {
        config: systemAdmin("admin:write"),
        schema: {
          tags,
          operationId: "withdrawSigningKey",
          summary: "Withdraw a compromised signing key at once (system tenant, admin:write)",
          description:
            "The key leaves the JWKS and signs no more; when it was signing, the key published ahead signs from now on.",
          params: TenantKeyParams,
          response: {
            204: { type: "null", description: "No Content" },
            ...problemResponses(400, 401, 403, 404, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const principal = requirePrincipal(request);
        const tenantId = await tenantOf(request.params.tenantId);
        const { kid } = request.params;
        const withdrawn = await database.transaction(async (trx) => {
          const done = await deps.keys.withdraw(trx, tenantId, kid);
          if (done) await recordAudit(trx, audit(principal, tenantId, "signing_key.withdrawn", kid));
          return done;
        });
        if (!withdrawn)
          throw new AppError("ERR_NOT_FOUND", "No such signing key, or it is withdrawn already.");
        return reply.code(204).send();
      },
    );
  };
  return routes;
}
