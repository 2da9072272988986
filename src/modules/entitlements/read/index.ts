/** The service's read side (rules/contract §5): introspection, snapshot, change feed, grants it asks for, JWKS. */
export { createServiceApi } from "./service-api.service.js";
export { jwksPath, serviceRoutes } from "./service.routes.js";
