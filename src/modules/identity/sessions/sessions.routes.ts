import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { requestOrigin, requirePrincipal } from "../../../platform/auth/index.js";
import { PageQuery, problemResponses } from "../../../platform/http/openapi-schemas.js";
import { IdParams } from "../identity.schemas.js";
import { AcceptInvitationBody, ChangePasswordBody, UsePasswordResetBody } from "../users/index.js";
import { CreateSessionBody, SessionList, SessionResponse, WhoamiResponse } from "./sessions.schemas.js";
import type { createSessions } from "./sessions.service.js";

type Sessions = ReturnType<typeof createSessions>;

/** Sign-in, sign-out, the user's sessions, passwords and whoami. */
export const sessionRoutes =
  (service: Sessions): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      "/api/v1/auth/sessions",
      {
        config: { auth: { kind: "public" } },
        // A login is a few hundred bytes; anyone may send one, so nobody may send a megabyte.
        bodyLimit: 16 * 1024,
        schema: {
          operationId: "createSession",
          tags: ["auth"],
          summary: "Log in with tenant slug, e-mail and password",
          description:
            "Any wrong part is the same 401. Ten failed logins for one account from one client address (then " +
            "one per 30 s), or a hundred from one address (then one per second), are answered 429 " +
            "ERR_RATE_LIMITED with Retry-After, before the password is checked; other addresses are not " +
            "affected. Past HANSE_SIGN_IN_ACCOUNT_FAILURES failures of one account from all addresses, its " +
            "password checks are spaced one per second: slower, but a correct password is still accepted.",
          body: CreateSessionBody,
          response: { 201: SessionResponse, ...problemResponses(400, 401, 413, 429, 500, 503) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.createSession(request.body, requestOrigin(request))),
    );

    app.post(
      "/api/v1/auth/invitations",
      {
        config: { auth: { kind: "public" } },
        bodyLimit: 16 * 1024,
        schema: {
          operationId: "acceptInvitation",
          tags: ["auth"],
          summary: "Accept an invitation with a new password, for a session",
          description:
            "The invitation's token (from inviteUser) and the user's new password: at least 15 and at most " +
            "1024 characters, else 400 at /password. The user becomes active, the invitation is used up, and " +
            "the answer is a session as from createSession. An unknown, used or expired invitation, or one " +
            "of a user deactivated since, is 401.",
          body: AcceptInvitationBody,
          response: { 201: SessionResponse, ...problemResponses(400, 401, 413, 500, 503) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.acceptInvitation(request.body, requestOrigin(request))),
    );

    app.post(
      "/api/v1/auth/password",
      {
        config: { auth: { kind: "session" } },
        bodyLimit: 16 * 1024,
        schema: {
          operationId: "changePassword",
          tags: ["auth"],
          summary: "Change the calling user's password",
          description:
            "With a user session only (an access token is 403). The current password must be right, else 400 " +
            "at /currentPassword (counted like a failed sign-in: too many are 429 ERR_RATE_LIMITED); the new " +
            "one has at least 15 and at most 1024 characters and is not one of the most common passwords, " +
            "else 400 at /newPassword. The user's other sessions end; the calling one stays.",
          body: ChangePasswordBody,
          response: {
            204: { type: "null", description: "Changed" },
            ...problemResponses(400, 401, 403, 413, 429, 500, 503),
          },
        },
      },
      async (request, reply) => {
        await service.changePassword(requirePrincipal(request), request.body);
        return reply.code(204).send();
      },
    );

    app.post(
      "/api/v1/auth/password-resets",
      {
        config: { auth: { kind: "public" } },
        bodyLimit: 16 * 1024,
        schema: {
          operationId: "usePasswordReset",
          tags: ["auth"],
          summary: "Set a new password with a password reset",
          description:
            "The reset's token (from issuePasswordReset) and the user's new password: at least 15 and at most " +
            "1024 characters, not one of the most common passwords, else 400 at /password (the token stays " +
            "usable). Every session of the user ends; the reset is used up. An unknown, used or expired " +
            "reset, or one of a user no longer active, is 401.",
          body: UsePasswordResetBody,
          response: {
            204: { type: "null", description: "The new password is set" },
            ...problemResponses(400, 401, 413, 500, 503),
          },
        },
      },
      async (request, reply) => {
        await service.usePasswordReset(request.body, requestOrigin(request));
        return reply.code(204).send();
      },
    );

    app.delete(
      "/api/v1/auth/sessions/current",
      {
        config: { auth: { kind: "session" } },
        schema: {
          operationId: "deleteCurrentSession",
          tags: ["auth"],
          summary: "Log out: revoke the calling session",
          description:
            "Revokes the session whose token authenticated the request; its token is refused from then on. " +
            "Called with an access token, nothing is revoked (revoke tokens with revokeAccessToken).",
          response: { 204: { type: "null", description: "Revoked" }, ...problemResponses(401, 500, 503) },
        },
      },
      async (request, reply) => {
        const principal = requirePrincipal(request);
        if (principal.kind === "user") await service.revokeSession(principal);
        return reply.code(204).send();
      },
    );

    app.get(
      "/api/v1/auth/sessions",
      {
        config: { auth: { kind: "session" } },
        schema: {
          operationId: "listSessions",
          tags: ["auth"],
          summary: "List the calling user's open sessions",
          description:
            "With a user session only (an access token is 403). The user's sessions that are not ended, " +
            "expired or idle, oldest first, paged with `limit` and `cursor`; `current` marks the calling one, " +
            "`method` says how each was opened. Never a token.",
          querystring: PageQuery,
          response: { 200: SessionList, ...problemResponses(400, 401, 403, 500, 503) },
        },
      },
      async (request) =>
        service.listSessions(requirePrincipal(request), {
          limit: request.query.limit ?? 50,
          cursor: request.query.cursor,
          order: request.query.order,
        }),
    );

    app.delete(
      "/api/v1/auth/sessions/:id",
      {
        config: { auth: { kind: "session" } },
        schema: {
          operationId: "deleteSession",
          tags: ["auth"],
          summary: "End one of the calling user's sessions",
          description:
            "With a user session only (an access token is 403). The session's token is refused from then on " +
            "(the calling session may end itself this way too). Another user's session, or an unknown or " +
            "already ended one, is 404 and nothing ends.",
          params: IdParams,
          response: {
            204: { type: "null", description: "Ended" },
            ...problemResponses(401, 403, 404, 500, 503),
          },
        },
      },
      async (request, reply) => {
        await service.endSession(requirePrincipal(request), request.params.id);
        return reply.code(204).send();
      },
    );

    app.get(
      "/api/v1/profile/whoami",
      {
        config: { auth: { kind: "session" } },
        schema: {
          operationId: "getWhoami",
          tags: ["auth"],
          summary: "The calling principal, its tenant and scopes",
          description:
            "Who the bearer token belongs to: a user session or an access token, its tenant and scopes.",
          response: { 200: WhoamiResponse, ...problemResponses(401, 500, 503) },
        },
      },
      async (request) => {
        const principal = requirePrincipal(request);
        return {
          principal: {
            id: principal.id,
            kind: principal.kind as "user" | "access_token",
            name: principal.name,
            role: principal.role ?? null,
          },
          tenant: principal.tenant,
          scopes: [...principal.scopes],
        };
      },
    );
  };
