import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { accessTokenRoutes } from "./access-tokens/index.js";
import type { IdentityService } from "./identity.service.js";
import { sessionRoutes } from "./sessions/index.js";
import { usersRoutes } from "./users/index.js";

/** Every room's routes. */
export const identityRoutes =
  (service: IdentityService): FastifyPluginAsyncTypebox =>
  async (app, options) => {
    await sessionRoutes(service)(app, options);
    await accessTokenRoutes(service)(app, options);
    await usersRoutes(service)(app, options);
  };
