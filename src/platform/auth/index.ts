export * from "./principal.js";
export { authPlugin, bearerToken, requirePrincipal } from "./auth.plugin.js";
