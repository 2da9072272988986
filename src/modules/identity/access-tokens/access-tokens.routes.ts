import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { requirePrincipal } from "../../../platform/auth/index.js";
import { registerCollectionRoutes } from "../../../platform/http/crud-routes.js";
import { problemResponses } from "../../../platform/http/openapi-schemas.js";
import { IdParams } from "../identity.schemas.js";
import {
  AccessTokenItem,
  AccessTokenList,
  CreateAccessTokenBody,
  CreatedAccessToken,
} from "./access-tokens.schemas.js";
import type { createAccessTokens } from "./access-tokens.service.js";

type AccessTokens = ReturnType<typeof createAccessTokens>;

/** The admin.accessTokens collection and revocation. */
export const accessTokenRoutes =
  (service: AccessTokens): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tokens = "/api/v1/admin/access-tokens";
    // The token itself is in the create answer only (`CreatedAccessToken`).
    registerCollectionRoutes(app, {
      path: tokens,
      tags: ["access-tokens"],
      scopes: { read: "admin:read", write: "admin:write" },
      list: {
        operationId: "listAccessTokens",
        summary: "List access tokens of the tenant",
        description:
          "Oldest first, paged with `limit` and the opaque `cursor` of the previous page's `meta.nextCursor`.",
        response: AccessTokenList,
        run: (principal, page) => service.listAccessTokens(principal, page),
      },
      create: {
        operationId: "createAccessToken",
        summary: "Create an access token (scopes ⊆ the caller's)",
        description:
          "A token for a program, with at most the caller's scopes (else 403) and an optional expiry. The " +
          "token itself is in this answer only; it is stored as a hash.",
        body: CreateAccessTokenBody,
        response: CreatedAccessToken,
        run: (principal, body) => service.createAccessToken(principal, body),
      },
      read: {
        operationId: "getAccessToken",
        summary: "Read an access token",
        description: "One access token of the tenant, without its secret.",
        params: IdParams,
        response: AccessTokenItem,
        run: (principal, { id }) => service.getAccessToken(principal, id),
      },
    });

    app.post(
      `${tokens}/:id/revoke`,
      {
        config: { auth: { kind: "session", allScopes: ["admin:write"] } },
        schema: {
          operationId: "revokeAccessToken",
          tags: ["access-tokens"],
          summary: "Revoke an access token (idempotent)",
          description: "The token is refused from now on; revoking a revoked token answers it unchanged.",
          params: IdParams,
          response: { 200: AccessTokenItem, ...problemResponses(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) => service.revokeAccessToken(requirePrincipal(request), request.params.id),
    );
  };
