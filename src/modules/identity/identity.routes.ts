import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { accessTokenRoutes } from "./access-tokens/index.js";
import type { IdentityService } from "./identity.service.js";
import { sessionRoutes } from "./sessions/index.js";
import { ssoRoutes, type ConsoleSessionCookie, type createSso } from "./sso/index.js";
import { usersRoutes } from "./users/index.js";

/** Every room's routes. */
export const identityRoutes =
  (
    service: IdentityService,
    sso: ReturnType<typeof createSso>,
    consoleCookie: ConsoleSessionCookie,
  ): FastifyPluginAsyncTypebox =>
  async (app, options) => {
    await sessionRoutes(service)(app, options);
    await accessTokenRoutes(service)(app, options);
    await usersRoutes(service)(app, options);
    await ssoRoutes(sso, consoleCookie)(app, options);
  };
