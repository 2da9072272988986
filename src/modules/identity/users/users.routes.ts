import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { requirePrincipal } from "../../../platform/auth/index.js";
import { pagedDescription, registerCollectionRoutes } from "../../../platform/http/crud-routes.js";
import { problemResponses } from "../../../platform/http/openapi-schemas.js";
import { IdParams } from "../identity.schemas.js";
import {
  CreateUserBody,
  CreatedUser,
  InvitationItem,
  PasswordResetItem,
  UpdateUserBody,
  UserItem,
  UserList,
} from "./users.schemas.js";
import type { createUsers } from "./users.service.js";

type Users = ReturnType<typeof createUsers>;

export const usersPath = "/api/v1/admin/users";
const scopes = { read: "users:read", write: "users:write" } as const;

/** The admin.users collection (rules/contract §7): users:read to read, users:write to invite and change. */
export const usersRoutes =
  (service: Users): FastifyPluginAsyncTypebox =>
  async (app) => {
    registerCollectionRoutes(app, {
      path: usersPath,
      tags: ["users"],
      scopes,
      list: {
        operationId: "listUsers",
        summary: "List the tenant's users (users:read)",
        description: `Oldest first. ${pagedDescription}`,
        response: UserList,
        run: (principal, page) => service.listUsers(principal, page),
      },
      create: {
        operationId: "inviteUser",
        summary: "Invite a user (users:write)",
        description:
          "Creates the user with status `invited` and an invitation whose token is in this answer only " +
          "(stored as a hash), valid HANSE_INVITATION_TTL_SECONDS (default 3 days). The invited person " +
          "accepts it with a password at POST /api/v1/auth/invitations. An e-mail address already used " +
          "in the tenant (in any case) is 409.",
        body: CreateUserBody,
        response: CreatedUser,
        conflict: true,
        run: (principal, body) => service.inviteUser(principal, body),
      },
      read: {
        operationId: "getUser",
        summary: "Read a user (users:read)",
        description: "One user of the tenant; an unknown id, or another tenant's, is 404.",
        params: IdParams,
        response: UserItem,
        run: (principal, { id }) => service.getUser(principal, id),
      },
    });

    app.patch(
      `${usersPath}/:id`,
      {
        config: { auth: { kind: "session", allScopes: [scopes.write] } },
        schema: {
          operationId: "updateUser",
          tags: ["users"],
          summary: "Change a user's name, role or status (users:write)",
          description:
            "At least one field. A role change applies from the user's next request on. `deactivated` ends " +
            "the user's sessions at once and refuses its sign-ins and its invitation; `active` allows sign-in " +
            "again (ended sessions stay ended; a user that never accepted its invitation cannot be made " +
            "active: 409). A change that would leave the tenant without an active owner is 409.",
          params: IdParams,
          body: UpdateUserBody,
          response: { 200: UserItem, ...problemResponses(400, 401, 403, 404, 409, 413, 500, 503) },
        },
      },
      async (request) => service.updateUser(requirePrincipal(request), request.params.id, request.body),
    );

    app.post(
      `${usersPath}/:id/invitation`,
      {
        config: { auth: { kind: "session", allScopes: [scopes.write] } },
        schema: {
          operationId: "reissueInvitation",
          tags: ["users"],
          summary: "Invite an invited user again (users:write)",
          description:
            "For a user that has not accepted its invitation yet (it expired, or the token was lost): a new " +
            "invitation whose token is in this answer only (stored as a hash), valid " +
            "HANSE_INVITATION_TTL_SECONDS. The user's earlier invitation tokens stop working. Audited as " +
            "`user.invited` (data.reissued). An unknown id, or another tenant's, is 404; a user that is " +
            "active or deactivated is 409.",
          params: IdParams,
          response: { 201: InvitationItem, ...problemResponses(400, 401, 403, 404, 409, 500, 503) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.reissueInvitation(requirePrincipal(request), request.params.id)),
    );

    app.post(
      `${usersPath}/:id/password-reset`,
      {
        config: { auth: { kind: "session", allScopes: [scopes.write] } },
        schema: {
          operationId: "issuePasswordReset",
          tags: ["users"],
          summary: "Issue a password reset for a user (users:write)",
          description:
            "A one-use token, in this answer only (stored as a hash), valid HANSE_PASSWORD_RESET_TTL_SECONDS " +
            "(default 1 hour). Hand it to the user, who sets a new password with it at " +
            "POST /api/v1/auth/password-resets; that ends every session of the user. An unknown id, or " +
            "another tenant's, is 404; an invited or deactivated user is 409.",
          params: IdParams,
          response: { 201: PasswordResetItem, ...problemResponses(400, 401, 403, 404, 409, 500, 503) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.issuePasswordReset(requirePrincipal(request), request.params.id)),
    );
  };
