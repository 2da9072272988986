export * from "./principal.js";
export {
  authPlugin,
  bearerToken,
  requirePrincipal,
  requireService,
  settleDeferredCredential,
  type DeferredCredential,
} from "./auth.plugin.js";
