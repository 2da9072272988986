/** Administration of partners, connections, profile revisions and API keys; the operator's views. */
export { adminPaths, adminRoutes } from "./admin.routes.js";
export { createAdminService, type AdminService } from "./admin.service.js";
export { adminEntrypoints } from "./admin.entrypoints.js";
