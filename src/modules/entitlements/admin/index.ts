/** A tenant's apps and each actor's entitlement: their administration, the only writer of them. */
export { entitlementAdminPaths, entitlementAdminRoutes } from "./admin.routes.js";
export { checkActorId, createEntitlementsService } from "./entitlements.service.js";
