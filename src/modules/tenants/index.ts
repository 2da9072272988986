import { defineJob } from "../../platform/jobs/index.js";
import type { IdentityService } from "../identity/index.js";
import type { HanseModule, ModuleDeps, ProvisioningStep } from "../module.js";
import { registerTenantMetrics } from "./tenants.metrics.js";
import { tenantsRoutes } from "./tenants.routes.js";
import { createTenantsService, provisionTenantJobSpec, type TenantsService } from "./tenants.service.js";

export function createTenantsModule(
  deps: ModuleDeps & { identity: IdentityService; steps: () => ProvisioningStep[] },
): HanseModule & { service: TenantsService } {
  const service = createTenantsService(deps);
  registerTenantMetrics(deps.metrics, deps.database.db);
  const provision = defineJob<{ tenantId: string }>({
    ...provisionTenantJobSpec,
    run: (payload, context) => service.runProvisioning(payload.tenantId, context),
    onDead: (payload) => service.failProvisioning(payload.tenantId),
  });
  const href = "/api/v1/system/tenants";
  return {
    name: "tenants",
    service,
    routes: tenantsRoutes(service),
    apiTags: [
      {
        name: "tenants",
        description:
          "The system tenant's operators create customer tenants (asynchronous provisioning with a status " +
          "to poll) and read them.",
      },
    ],
    jobs: [provision],
    entrypoints: [
      {
        id: "system.tenants",
        kind: "system-resource",
        href,
        tenantTypes: ["system"],
        actions: [
          { id: "list", method: "GET", href, anyScopes: ["tenants:list"] },
          { id: "read", method: "GET", href: `${href}/{tenantId}`, anyScopes: ["tenants:read"] },
          {
            id: "create",
            method: "POST",
            href,
            anyScopes: ["tenants:create"],
            requiredHeaders: ["Idempotency-Key"],
            acceptedStatus: 202,
            responseHeaders: ["Location", "Retry-After"],
            statusHref: `${href}/{tenantId}/provisioning`,
            statusRequiredAnyScopes: ["tenants:read", "system_diagnostics:read"],
          },
          { id: "suspend", method: "POST", href: `${href}/{tenantId}/suspend`, anyScopes: ["tenants:write"] },
          { id: "resume", method: "POST", href: `${href}/{tenantId}/resume`, anyScopes: ["tenants:write"] },
        ],
      },
    ],
  };
}
