import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config/index.js";
import type { Database } from "../platform/db/database.js";
import { loadAssets } from "./assets.js";
import { enumerationsFrom } from "./enumerations.js";
import { forwardToApi, isPlainApiPath, refuse } from "./bridge.js";
import { isSameOrigin, servedOverHttps } from "./request-origin.js";
import { consoleSecurityHeaders } from "./security-headers.js";
import {
  consoleKeysOf,
  consolePath,
  csrfMatches,
  csrfToken,
  sessionCookie,
  sessionToken,
  signedInCookie,
  type ConsoleKeys,
} from "./session-cookie.js";

export interface ConsoleDeps {
  config: Pick<Config, "HANSE_PUBLIC_URL" | "HANSE_SECRET_KEY" | "HANSE_SECRET_KEY_PREVIOUS">;
  database: Pick<Database, "db">;
}

const publicRoute = { config: { auth: { kind: "public" as const } }, schema: { hide: true } };
const readOnly = new Set(["GET", "HEAD"]);
/** How long the console keeps an access token it was signed in with (the token may end sooner). */
const tokenSignInSeconds = 8 * 60 * 60;

/**
 * The operator console at /console: its static browser files, sign-in and sign-out, and a bridge
 * from /console/api/* to the public /api/v1/* that adds the session of the cookie. See docs/console.md.
 */
export const consolePlugin =
  (root: FastifyInstance, deps: ConsoleDeps): FastifyPluginAsync =>
  async (app) => {
    const publicUrl = deps.config.HANSE_PUBLIC_URL;
    const keys: ConsoleKeys = consoleKeysOf(deps.config, deps.database.db);
    const assets = await loadAssets();

    app.addHook("onSend", async (_request, reply, payload) => {
      reply.headers(consoleSecurityHeaders);
      return payload;
    });

    const page = assets.get("index.html");
    const sendPage = async (_request: FastifyRequest, reply: FastifyReply) =>
      reply.type("text/html; charset=utf-8").send(page?.body);
    app.get(consolePath, publicRoute, sendPage);
    app.get(`${consolePath}/`, publicRoute, sendPage);
    app.get<{ Params: { "*": string } }>(`${consolePath}/assets/*`, publicRoute, async (request, reply) => {
      const asset = assets.get(request.params["*"]);
      if (!asset) return refuse(reply, "ERR_NOT_FOUND", "No such resource.");
      return reply.type(asset.type).send(asset.body);
    });

    /** The value lists of the console's selects, from the API's description (computed once). */
    let enumerations: string | undefined;
    app.get(`${consolePath}/enumerations.json`, publicRoute, async (_request, reply) => {
      enumerations ??= JSON.stringify(
        enumerationsFrom(root.swagger() as Parameters<typeof enumerationsFrom>[0]),
      );
      return reply.type("application/json").send(enumerations);
    });

    /** Who is signed in, and the CSRF token of the session (readable by this origin only). */
    app.get(`${consolePath}/session`, publicRoute, async (request, reply) => {
      const token = await sessionToken(request, keys);
      if (!token) return refuse(reply, "ERR_UNAUTHENTICATED", "Not signed in.");
      const whoami = await root.inject({
        method: "GET",
        url: "/api/v1/profile/whoami",
        headers: { authorization: `Bearer ${token}`, "x-correlation-id": request.id },
        remoteAddress: request.ip,
      });
      if (whoami.statusCode !== 200)
        return reply.code(whoami.statusCode).type("application/problem+json").send(whoami.rawPayload);
      return { csrfToken: await csrfToken(keys, token), whoami: whoami.json<unknown>() };
    });

    /**
     * Answers an API sign-in (`answer`) to the browser: its problem as it came, or the session in
     * the cookie and the session's CSRF token (the session token itself stays out of the page).
     */
    const signInWith = async (
      request: FastifyRequest,
      reply: FastifyReply,
      answer: Awaited<ReturnType<FastifyInstance["inject"]>>,
      sessionOf: () => { token: string; expiresAt: string },
    ) => {
      if (answer.statusCode !== 201 && answer.statusCode !== 200) {
        reply.code(answer.statusCode).type(String(answer.headers["content-type"]));
        const retryAfter = answer.headers["retry-after"];
        if (retryAfter !== undefined) reply.header("retry-after", retryAfter);
        return reply.send(answer.rawPayload);
      }
      const session = sessionOf();
      reply.header("set-cookie", await signedInCookie(keys, request, publicUrl, session));
      return reply
        .code(201)
        .send({ csrfToken: await csrfToken(keys, session.token), expiresAt: session.expiresAt });
    };

    /** Forwards the page's JSON body to an API route that opens a session, and signs in with it. */
    const signInThrough = async (request: FastifyRequest, reply: FastifyReply, url: string) => {
      const answer = await root.inject({
        method: "POST",
        url,
        headers: { "content-type": "application/json", "x-correlation-id": request.id },
        payload: JSON.stringify(request.body ?? {}),
        remoteAddress: request.ip,
      });
      return signInWith(request, reply, answer, () => answer.json<{ token: string; expiresAt: string }>());
    };

    /**
     * Sign-in: tenant, e-mail and password through POST /api/v1/auth/sessions, or an access token
     * (the bootstrap administrator has no password) checked by GET /api/v1/profile/whoami.
     */
    app.post<{ Body: { accessToken?: unknown } | undefined }>(
      `${consolePath}/session`,
      { ...publicRoute, bodyLimit: 16 * 1024 },
      async (request, reply) => {
        if (!isSameOrigin(request, publicUrl))
          return refuse(reply, "ERR_FORBIDDEN", "Cross-origin sign-in refused.");
        const accessToken = request.body?.accessToken;
        if (typeof accessToken === "string") {
          const whoami = await root.inject({
            method: "GET",
            url: "/api/v1/profile/whoami",
            headers: { authorization: `Bearer ${accessToken}`, "x-correlation-id": request.id },
            remoteAddress: request.ip,
          });
          return signInWith(request, reply, whoami, () => ({
            token: accessToken,
            expiresAt: new Date(Date.now() + tokenSignInSeconds * 1000).toISOString(),
          }));
        }
        return signInThrough(request, reply, "/api/v1/auth/sessions");
      },
    );

    /**
     * The invitation page: accepts an invitation (`{token, password}`) through
     * POST /api/v1/auth/invitations and signs the browser in with the session it answers.
     */
    app.post(
      `${consolePath}/invitations`,
      { ...publicRoute, bodyLimit: 16 * 1024 },
      async (request, reply) => {
        if (!isSameOrigin(request, publicUrl))
          return refuse(reply, "ERR_FORBIDDEN", "Cross-origin sign-in refused.");
        return signInThrough(request, reply, "/api/v1/auth/invitations");
      },
    );

    app.delete(`${consolePath}/session`, publicRoute, async (request, reply) => {
      const token = await sessionToken(request, keys);
      if (!isSameOrigin(request, publicUrl) || (token && !(await csrfMatches(request, keys, token)))) {
        return refuse(reply, "ERR_FORBIDDEN", "Cross-origin or unconfirmed sign-out refused.");
      }
      if (token) {
        await root.inject({
          method: "DELETE",
          url: "/api/v1/auth/sessions/current",
          headers: { authorization: `Bearer ${token}`, "x-correlation-id": request.id },
          remoteAddress: request.ip,
        });
      }
      reply.header("set-cookie", sessionCookie("", 0, servedOverHttps(request, publicUrl)));
      return reply.code(204).send();
    });

    await app.register(async (bridge) => {
      // The bridge passes bodies on as they came: no parsing here, the API parses them.
      bridge.removeAllContentTypeParsers();
      bridge.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => {
        done(null, body);
      });
      bridge.all<{ Body: Buffer | undefined }>(
        `${consolePath}/api/*`,
        publicRoute,
        async (request, reply) => {
          const url = request.url.slice(`${consolePath}/api`.length);
          const path = url.split("?")[0] ?? "";
          if (!isPlainApiPath(path)) return refuse(reply, "ERR_NOT_FOUND", "No such resource.");
          const token = await sessionToken(request, keys);
          if (!token) return refuse(reply, "ERR_UNAUTHENTICATED", "Not signed in.");
          if (!readOnly.has(request.method)) {
            if (!isSameOrigin(request, publicUrl))
              return refuse(reply, "ERR_FORBIDDEN", "Cross-origin change refused.");
            if (!(await csrfMatches(request, keys, token))) {
              return refuse(reply, "ERR_FORBIDDEN", "The change lacks this session's CSRF token.");
            }
          }
          return forwardToApi(root, request, reply, {
            method: request.method,
            url,
            token,
            ...(request.body ? { body: request.body } : {}),
          });
        },
      );
    });
  };
