import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { requireService } from "../../../platform/auth/index.js";
import { problemResponses } from "../../../platform/http/openapi-schemas.js";
import {
  Changes,
  ChangesQuery,
  Grant,
  IntrospectParams,
  Introspection,
  Jwks,
  Snapshot,
  SnapshotQuery,
} from "../entitlements.schemas.js";
import type { ServiceApi } from "./service-api.service.js";
import { jwksMaxAgeSeconds } from "../grants/index.js";

export const serviceBase = "/api/v1/public/v1/app-entitlements";
export const jwksPath = `${serviceBase}/jwks`;

/** A signed request's body is small: service calls carry none or a few fields. */
const serviceBodyLimit = 64 * 1024;
const tags = ["entitlements-service"];
const signed = { auth: { kind: "service" as const } };
const signedErrors = problemResponses(400, 401, 404, 500, 503);

export const serviceRoutes =
  (api: ServiceApi): FastifyPluginAsyncTypebox =>
  async (app) => {
    // The signature covers the body's bytes exactly as sent: keep them raw, whatever their type.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      "*",
      { parseAs: "buffer", bodyLimit: serviceBodyLimit },
      (_request, body, done) => {
        done(null, body);
      },
    );

    app.get(
      `${serviceBase}/service/introspect/:actorId`,
      {
        config: signed,
        schema: {
          tags,
          operationId: "introspectEntitlement",
          summary: "The current entitlement decision for one actor of the binding's app",
          description:
            "`entitled` is true only when the status is active, now is within [validFrom, validUntil) and " +
            "the capabilities include the binding's required ones. An unknown actor is 200 with `entitled: false`.",
          params: IntrospectParams,
          response: { 200: Introspection, ...signedErrors },
        },
      },
      async (request) => api.introspect(requireService(request), request.params.actorId),
    );

    app.get(
      `${serviceBase}/service/snapshot`,
      {
        config: signed,
        schema: {
          tags,
          operationId: "getEntitlementSnapshot",
          summary: "One page of the binding's app's entitlements as of a sequence",
          description:
            "The first page yields `asOfSequence`; every later page sends `cursor` and the same " +
            "`asOfSequence` and shows the state as of it. 410 ERR_APP_ENTITLEMENT_CURSOR_EXPIRED when that " +
            "state can no longer be served.",
          querystring: SnapshotQuery,
          response: { 200: Snapshot, ...signedErrors, ...problemResponses(410) },
        },
      },
      async (request) => api.snapshot(requireService(request), request.query),
    );

    app.get(
      `${serviceBase}/service/changes`,
      {
        config: signed,
        schema: {
          tags,
          operationId: "listEntitlementChanges",
          summary: "Changes of the binding's app after a sequence, in ascending order",
          description:
            "410 ERR_APP_ENTITLEMENT_CURSOR_EXPIRED exactly when a change after `afterSequence` has been " +
            "pruned: discard the local projection and start with a new snapshot.",
          querystring: ChangesQuery,
          response: { 200: Changes, ...signedErrors, ...problemResponses(410) },
        },
      },
      // The page is JSON text already (see ServiceApi.changes); a refusal is a
      // problem the error handler serializes, so the raw serializer is set only for a page.
      async (request, reply) => {
        const page = await api.changes(requireService(request), request.query);
        return (reply as FastifyReply)
          .type("application/json; charset=utf-8")
          .serializer((payload) => payload as string)
          .send(page);
      },
    );

    app.post(
      `${serviceBase}/service/grants/:actorId`,
      {
        config: signed,
        bodyLimit: serviceBodyLimit,
        schema: {
          tags,
          operationId: "issueGrant",
          summary: "Issue a short-lived Ed25519 grant for an entitled actor",
          description:
            "A compact JWS (`typ: entitlement-grant+jwt`) bound to the calling binding (`aud`, `binding`). " +
            "An actor that is not entitled, or lacks the binding's required capabilities, gets 403 " +
            "ERR_APP_ENTITLEMENT_NOT_ENTITLED and no grant.",
          params: IntrospectParams,
          response: { 200: Grant, ...signedErrors, ...problemResponses(403, 413) },
        },
      },
      async (request) => api.grant(requireService(request), request.params.actorId),
    );

    app.get(
      jwksPath,
      {
        config: { auth: { kind: "public" } },
        schema: {
          tags,
          operationId: "getGrantJwks",
          summary: "Public Ed25519 keys that verify grants (JWKS)",
          description:
            "Current keys, keys published ahead of signing, and retired keys whose grants may still be valid.",
          response: { 200: Jwks, ...problemResponses(500, 503) },
        },
      },
      async (_request, reply) => {
        reply.header("cache-control", `public, max-age=${jwksMaxAgeSeconds}`);
        return api.jwks();
      },
    );
  };
