export { createSso, type SsoDeps } from "./sso.service.js";
export { ssoRoutes, ssoSettingsPath, type ConsoleSessionCookie } from "./sso.routes.js";
export { ssoSealedColumns } from "./sealed-columns.js";
