import type { Discovery } from "@hanse/client/protocol";
import type { EntrypointRegistry } from "../../platform/http/entrypoints.js";
import type { HanseModule } from "../module.js";
import { discoveryRoutes } from "./discovery.routes.js";

export function createDiscoveryModule(deps: {
  discovery: () => Discovery;
  registry: EntrypointRegistry;
}): HanseModule {
  return {
    name: "discovery",
    routes: discoveryRoutes(deps),
    apiTags: [
      {
        name: "discovery",
        description:
          "Where to start: the API major and capabilities, and the entrypoints (hrefs and actions) a " +
          "caller may use. Clients follow these instead of building paths.",
      },
    ],
  };
}
