import type { Discovery } from "../../protocol/entrypoints.js";
import type { EntrypointRegistry } from "../../platform/http/entrypoints.js";
import type { HanseModule } from "../module.js";
import { discoveryRoutes } from "./discovery.routes.js";

export function createDiscoveryModule(deps: {
  discovery: () => Discovery;
  registry: EntrypointRegistry;
}): HanseModule {
  return { name: "discovery", routes: discoveryRoutes(deps) };
}
