import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import { requestOrigin, requirePrincipal } from "../../../platform/auth/index.js";
import { problemResponses } from "../../../platform/http/openapi-schemas.js";
import type { OpenedSession } from "../sessions/index.js";
import {
  SsoCallbackQuery,
  SsoSettingsBody,
  SsoSettingsItem,
  SsoStartParams,
  SsoStartQuery,
} from "./sso.schemas.js";
import { ssoCallbackPath, ssoStateTtlSeconds, type createSso } from "./sso.service.js";

type Sso = ReturnType<typeof createSso>;

/** The `Set-Cookie` of the console's session for a session signed in here (src/console). */
export type ConsoleSessionCookie = (request: FastifyRequest, session: OpenedSession) => Promise<string>;

export const ssoSettingsPath = "/api/v1/admin/sso";

/** rules/contract §7, single sign-on: the tenant's settings and the two legs of the sign-in. */
export const ssoRoutes =
  (service: Sso, consoleCookie: ConsoleSessionCookie): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      ssoSettingsPath,
      {
        config: { auth: { kind: "session", allScopes: ["users:read"] } },
        schema: {
          operationId: "getSsoSettings",
          tags: ["sso"],
          summary: "The tenant's single sign-on settings (users:read)",
          description: "Never the client secret. A tenant without single sign-on is 404.",
          response: { 200: SsoSettingsItem, ...problemResponses(401, 403, 404, 500, 503) },
        },
      },
      async (request) => service.getSsoSettings(requirePrincipal(request)),
    );

    app.put(
      ssoSettingsPath,
      {
        config: { auth: { kind: "session", allScopes: ["users:write"] } },
        bodyLimit: 16 * 1024,
        schema: {
          operationId: "setSsoSettings",
          tags: ["sso"],
          summary: "Set up or change the tenant's single sign-on (users:write)",
          description:
            "An OpenID Connect issuer and the client registered there for Hanse, whose redirect URI is " +
            `<HANSE_PUBLIC_URL>${ssoCallbackPath}. Hanse reads <issuer>/.well-known/openid-configuration ` +
            "now: an issuer that is not HTTPS on a public address, does not answer, or answers with a " +
            "document naming another issuer or lacking the authorization, token or key endpoints is 400 at " +
            "/issuer. The client secret is sealed at rest and never returned. `autoCreate` creates users on " +
            "their first sign-in when their verified e-mail address is of one of the domains; null: only " +
            "existing users sign in. Replaces any earlier setting.",
          body: SsoSettingsBody,
          response: { 200: SsoSettingsItem, ...problemResponses(400, 401, 403, 413, 500, 503) },
        },
      },
      async (request) => service.saveSsoSettings(requirePrincipal(request), request.body),
    );

    app.delete(
      ssoSettingsPath,
      {
        config: { auth: { kind: "session", allScopes: ["users:write"] } },
        schema: {
          operationId: "deleteSsoSettings",
          tags: ["sso"],
          summary: "Turn the tenant's single sign-on off (users:write)",
          description:
            "Sign-ins under way are refused from then on; sessions already open stay. A tenant without " +
            "single sign-on is 404.",
          response: {
            204: { type: "null", description: "Removed" },
            ...problemResponses(401, 403, 404, 500, 503),
          },
        },
      },
      async (request, reply) => {
        await service.deleteSsoSettings(requirePrincipal(request));
        return reply.code(204).send();
      },
    );

    app.get(
      "/api/v1/auth/sso/:tenantSlug",
      {
        config: { auth: { kind: "public" } },
        schema: {
          operationId: "startSsoSignIn",
          tags: ["sso"],
          summary: "Sign in with the tenant's identity provider",
          description:
            "For a browser: 302 to the issuer's authorization endpoint (authorization code flow with PKCE: " +
            "response_type=code, client_id, redirect_uri, scope `openid email profile`, state, nonce, " +
            `code_challenge, code_challenge_method=S256). The sign-in must be finished within ${String(ssoStateTtlSeconds / 60)} ` +
            "minutes. `returnTo` is a path on Hanse to land on afterwards (default /console/); anything else " +
            "is 400. A tenant without single sign-on is 404.",
          params: SsoStartParams,
          querystring: SsoStartQuery,
          response: {
            302: { type: "null", description: "To the issuer's authorization endpoint (Location)" },
            ...problemResponses(400, 404, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const location = await service.startSsoSignIn(request.params.tenantSlug, request.query.returnTo);
        return reply.code(302).header("cache-control", "no-store").header("location", location).send();
      },
    );

    app.get(
      ssoCallbackPath,
      {
        config: { auth: { kind: "public" } },
        schema: {
          operationId: "finishSsoSignIn",
          tags: ["sso"],
          summary: "Where the identity provider sends the browser back",
          description:
            "The issuer's redirect with `code` and `state`. On success 303 to the sign-in's returnTo with the " +
            "console's session cookie set (a session with method `sso`). The state is used once and expires " +
            "after 10 minutes; the code is redeemed with the PKCE verifier and the client secret; the ID " +
            "token's signature (the issuer's keys), iss, aud, exp and nonce are checked; email_verified must " +
            "be true and the e-mail address an active user's of the tenant, or of an autoCreate domain (the " +
            "user is created with its role). Anything else is 401 and nothing is created.",
          querystring: SsoCallbackQuery,
          response: {
            303: { type: "null", description: "Signed in: to returnTo, with the console's session cookie" },
            ...problemResponses(401, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const { session, returnTo } = await service.finishSsoSignIn(
          request.query,
          (reason) => {
            request.log.info({ reason }, "single sign-on refused");
          },
          requestOrigin(request),
        );
        return reply
          .code(303)
          .header("cache-control", "no-store")
          .header("set-cookie", await consoleCookie(request, session))
          .header("location", returnTo)
          .send();
      },
    );
  };
