import type { FastifyDynamicSwaggerOptions } from "@fastify/swagger";
import { errorCodes, type ErrorCode } from "@hanse/client/protocol";
import type { AuthRequirement } from "../auth/index.js";
import { problemExample } from "./openapi-schemas.js";
import type { ErrorCodeMapper } from "./problem.js";

/** A tag of the OpenAPI document: one per area, with what the area is for. */
export interface ApiTag {
  name: string;
  description: string;
}

export const operationsTag: ApiTag = {
  name: "operations",
  description: "Liveness and readiness of the process, for load balancers and orchestrators.",
};

const serviceHeaders = {
  serviceCredential: ["X-Platform-Service-Credential", "The service binding's credential id"],
  serviceTimestamp: ["X-Platform-Service-Timestamp", "Unix seconds; within the allowed clock skew"],
  serviceNonce: ["X-Platform-Service-Nonce", "Unique per request within the replay window"],
  serviceSignature: [
    "X-Platform-Service-Signature",
    "HMAC-SHA256 over the canonical request (method, target, timestamp, nonce, body hash), see docs/entitlements.md",
  ],
} as const;

const securitySchemes = {
  bearerAuth: {
    type: "http" as const,
    scheme: "bearer",
    description:
      "A user session (POST /api/v1/auth/sessions) or an access token. The scopes an operation needs " +
      "are listed in its security requirement.",
  },
  partnerKey: {
    type: "http" as const,
    scheme: "bearer",
    description: "A partner API key `<apiKeyId>:<secret>`",
  },
  ...Object.fromEntries(
    Object.entries(serviceHeaders).map(([scheme, [name, description]]) => [
      scheme,
      {
        type: "apiKey" as const,
        in: "header" as const,
        name,
        description: `Signed service request: ${description}`,
      },
    ]),
  ),
};

/**
 * The security requirement of a route, from its auth declaration (the one source, so the document
 * cannot disagree with what the server enforces): none for public routes, the bearer scheme with
 * the scopes a session needs (all of them in one requirement; any of them as alternatives), the
 * partner key with its scope, and the four headers of a signed service request together.
 */
export function securityOf(auth: AuthRequirement | undefined): Record<string, string[]>[] {
  switch (auth?.kind) {
    case undefined:
    case "public":
      return [];
    case "partner":
      return [{ partnerKey: [auth.scope] }];
    case "service":
      return [Object.fromEntries(Object.keys(serviceHeaders).map((scheme) => [scheme, []]))];
    case "session":
      if (auth.anyScopes)
        return auth.anyScopes.map((scope) => ({ bearerAuth: [...(auth.allScopes ?? []), scope] }));
      return [{ bearerAuth: [...(auth.allScopes ?? [])] }];
  }
}

interface ProblemMedia {
  example?: { code: string };
}
type Responses = Record<string, { content?: Record<string, ProblemMedia> }>;

/**
 * A problem response's example shows the code this route answers: an area that maps the generic
 * codes (the partner exchange) shows its own, a signed service request its signature failure.
 */
function routeProblemResponses(
  responses: Responses,
  auth: AuthRequirement | undefined,
  mapErrorCode: ErrorCodeMapper | undefined,
): Responses {
  const out: Responses = {};
  for (const [status, response] of Object.entries(responses)) {
    const media = response.content?.["application/problem+json"];
    if (!media?.example) {
      out[status] = response;
      continue;
    }
    let code = media.example.code as ErrorCode;
    if (auth?.kind === "service" && code === "ERR_UNAUTHENTICATED")
      code = "ERR_SERVICE_AUTH_INVALID_SIGNATURE";
    if (mapErrorCode) code = mapErrorCode(code);
    out[status] = {
      ...response,
      content: { "application/problem+json": { ...media, example: problemExample(errorCodes[code], code) } },
    };
  }
  return out;
}

const successPhrases: Record<string, string> = {
  "200": "OK",
  "201": "Created",
  "202": "Accepted",
  "204": "No Content",
};

const correlationHeader = {
  description:
    "The request's correlation id (echoed when well-formed, else generated); also in problem bodies",
  schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
};

type RouteTransform = NonNullable<FastifyDynamicSwaggerOptions["transform"]>;

/** How every route is documented: its security from its auth, its problem examples by its codes. */
const documentRoute: RouteTransform = ({ schema, url, route }) => {
  const { auth, mapErrorCode } = (route.config ?? {}) as {
    auth?: AuthRequirement;
    mapErrorCode?: ErrorCodeMapper;
  };
  if ((schema as { hide?: boolean }).hide) return { schema, url };
  const response = (schema as { response?: Responses }).response;
  return {
    url,
    schema: {
      ...schema,
      security: securityOf(auth),
      ...(response ? { response: routeProblemResponses(response, auth, mapErrorCode) } : {}),
    },
  };
};

/**
 * A route's `config.swaggerTransform` when its document differs from what Fastify validates (a
 * streamed body, a header its handler checks): these parts replace the schema's in the document,
 * which is then made like every other route's.
 */
export const documentedAs =
  (parts: Record<string, unknown>): RouteTransform =>
  (route) =>
    documentRoute({ ...route, schema: { ...route.schema, ...parts } });

interface DocumentOptions {
  publicUrl: string;
  version: string;
  tags: ApiTag[];
}

/** The options of @fastify/swagger: the document's frame, and each route's security from its auth. */
export function openapiOptions({ publicUrl, version, tags }: DocumentOptions): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Hanse",
        version,
        description:
          "Partner exchange (UN/EDIFACT), discovery, system tenants, entitlements and workflow transitions. " +
          "Errors are RFC 9457 problem details (`application/problem+json`) with a stable `code`. " +
          "A request that repeats `Authorization`, `X-Platform-Service-*`, `X-B2B-Claim-Token`, " +
          "`Idempotency-Key`, `X-Idempotency-Key` or `X-Tenant-ID` is refused with `400` on every operation. " +
          "Operation ids are part of the API: they do not change within an API major version.",
        license: { name: "UNLICENSED (proprietary)" },
      },
      servers: [{ url: publicUrl, description: "This server (HANSE_PUBLIC_URL)" }],
      tags,
      components: { securitySchemes },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string | undefined) ?? `def-${i}`,
    },
    transform: documentRoute,
    // A success response without a description of its own is named by its status; every response
    // carries the correlation id.
    transformObject: (document) => {
      if (!("openapiObject" in document)) return document.swaggerObject;
      const { openapiObject } = document;
      for (const methods of Object.values(openapiObject.paths ?? {})) {
        for (const operation of Object.values(methods as Record<string, { responses?: object }>)) {
          for (const [status, response] of Object.entries(operation.responses ?? {})) {
            const described = response as { description?: string; headers?: Record<string, unknown> };
            if (described.description === "Default Response") {
              described.description = successPhrases[status] ?? "Success";
            }
            described.headers = { "X-Correlation-ID": correlationHeader, ...described.headers };
          }
        }
      }
      return openapiObject;
    },
  };
}
