import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import type { Discovery, EntrypointList } from "@hanse/client/protocol";
import { requirePrincipal } from "../../platform/auth/index.js";
import { AppError } from "../../platform/errors/app-error.js";
import type { EntrypointRegistry } from "../../platform/http/entrypoints.js";
import { problemResponses } from "../../platform/http/openapi-schemas.js";
import {
  DiscoveryResponse,
  EntrypointListResponse,
  EntrypointMetaResponse,
  EntryIdParams,
} from "./discovery.schemas.js";

/** Public entrypoints: how to authenticate (kind `auth`). */
const publicEntrypoints: EntrypointList = {
  entrypoints: [
    {
      id: "auth.sessions",
      kind: "auth",
      href: "/api/v1/auth/sessions",
      actions: [
        { id: "create", method: "POST", href: "/api/v1/auth/sessions" },
        { id: "delete", method: "DELETE", href: "/api/v1/auth/sessions/current" },
        // The calling user's own sessions (rules/contract §7), with that user's session as the credential.
        { id: "list", method: "GET", href: "/api/v1/auth/sessions" },
        { id: "end", method: "DELETE", href: "/api/v1/auth/sessions/{id}" },
      ],
    },
    {
      // The calling user's own password (rules/contract §7), with that user's session as the credential.
      id: "auth.password",
      kind: "auth",
      href: "/api/v1/auth/password",
      actions: [{ id: "change", method: "POST", href: "/api/v1/auth/password" }],
    },
  ],
};

export const discoveryRoutes =
  (deps: { discovery: () => Discovery; registry: EntrypointRegistry }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/api/v1/meta/discovery",
      {
        config: { auth: { kind: "public" } },
        schema: {
          operationId: "getDiscovery",
          tags: ["discovery"],
          summary: "API major, server version, build metadata and public capabilities",
          description:
            "Public. Clients check `apiMajor` before anything else and read optional features from " +
            "`capabilities`; `entitlements` names the grant issuer and its JWKS when that module runs.",
          response: { 200: DiscoveryResponse, ...problemResponses(500) },
        },
      },
      async () => deps.discovery(),
    );

    app.get(
      "/api/v1/meta/entrypoints",
      {
        config: { auth: { kind: "public" } },
        schema: {
          operationId: "listPublicEntrypoints",
          tags: ["discovery"],
          summary: "Public authentication and onboarding entrypoints",
          description:
            "Public. How to authenticate: the `auth` entrypoints with their actions (log in, log out).",
          response: {
            200: { ...EntrypointListResponse, examples: [publicEntrypoints] },
            ...problemResponses(500),
          },
        },
      },
      async () => publicEntrypoints,
    );

    app.get(
      "/api/v1/profile/entrypoints",
      {
        config: { auth: { kind: "session" } },
        schema: {
          operationId: "listEntrypoints",
          tags: ["discovery"],
          summary: "Entrypoints and actions this session may use",
          description:
            "What the calling session may use, by its tenant type and scopes: each entrypoint with its href " +
            "and actions (method, href, required headers, accepted status). A missing entry or action is a " +
            "definitive denial; do not infer other paths. Treat unknown kinds as unusable.",
          response: { 200: EntrypointListResponse, ...problemResponses(401, 500, 503) },
        },
      },
      // The list depends only on tenant type and scopes: its JSON text is made once per combination.
      async (request, reply) =>
        (reply as FastifyReply)
          .type("application/json; charset=utf-8")
          .serializer((payload) => payload as string)
          .send(deps.registry.visibleJsonTo(requirePrincipal(request))),
    );

    app.get(
      "/api/v1/profile/entrypoints/:entryId/meta",
      {
        config: { auth: { kind: "session" } },
        schema: {
          operationId: "getEntrypointMeta",
          tags: ["discovery"],
          summary: "JSON Schemas of a crud entrypoint's payloads (its metaHref)",
          description:
            "The JSON Schemas of a `crud` entrypoint's create and update payloads and of one record. An " +
            "entrypoint the session cannot see, or one of another kind, is 404.",
          params: EntryIdParams,
          response: { 200: EntrypointMetaResponse, ...problemResponses(401, 404, 500, 503) },
        },
      },
      async (request) => {
        const principal = requirePrincipal(request);
        const visible = deps.registry.visibleTo(principal).find((e) => e.id === request.params.entryId);
        const definition = deps.registry.find(request.params.entryId);
        if (!visible || visible.kind !== "crud" || !definition?.schemas) {
          throw new AppError("ERR_NOT_FOUND", "No such entrypoint.");
        }
        return { id: definition.id, schemas: definition.schemas };
      },
    );
  };
