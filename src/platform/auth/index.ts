export * from "./principal.js";
export {
  authPlugin,
  bearerToken,
  requirePrincipal,
  settleDeferredCredential,
  type DeferredCredential,
} from "./auth.plugin.js";
