export * from "./principal.js";
export {
  authPlugin,
  bearerToken,
  requirePrincipal,
  requireService,
  requestOrigin,
  settleDeferredCredential,
  type DeferredCredential,
} from "./auth.plugin.js";
