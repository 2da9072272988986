import { Type } from "@sinclair/typebox";
import { listOf, stringEnum, Timestamp, Uuid } from "../../../platform/http/openapi-schemas.js";

export const CreateSessionBody = Type.Object(
  {
    tenant: Type.String({ minLength: 1, maxLength: 63, description: "Tenant slug" }),
    email: Type.String({ minLength: 3, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  {
    additionalProperties: false,
    examples: [{ tenant: "acme", email: "admin@acme.example", password: "a long admin password" }],
  },
);

export const SessionResponse = Type.Object(
  {
    id: Uuid,
    token: Type.String({ description: "Bearer token; shown only here" }),
    expiresAt: Timestamp,
    scopes: Type.Array(Type.String()),
    createdAt: Timestamp,
  },
  {
    examples: [
      {
        id: "7c4e2a1b-9d3f-4b6a-8e5c-1f2a3b4c5d6e",
        token: "<session token>",
        expiresAt: "2026-11-27T21:00:00.000Z",
        scopes: ["admin:read", "admin:write"],
        createdAt: "2026-11-27T09:00:00.000Z",
      },
    ],
  },
);

export const WhoamiResponse = Type.Object(
  {
    principal: Type.Object({
      id: Uuid,
      kind: Type.Union([Type.Literal("user"), Type.Literal("access_token")]),
      name: Type.String(),
      role: Type.Union([Type.Literal("owner"), Type.Literal("admin"), Type.Literal("viewer"), Type.Null()], {
        description: "A user's current role (rules/contract §7); null for an access token",
      }),
    }),
    tenant: Type.Object({
      id: Uuid,
      slug: Type.String(),
      type: Type.Union([Type.Literal("system"), Type.Literal("customer")]),
    }),
    scopes: Type.Array(Type.String()),
  },
  {
    examples: [
      {
        principal: {
          id: "5e2f7c1a-3b4d-4e6f-8a9b-0c1d2e3f4a5b",
          kind: "user",
          name: "admin@acme.example",
          role: "owner",
        },
        tenant: { id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", slug: "acme", type: "customer" },
        scopes: ["admin:read", "admin:write"],
      },
    ],
  },
);

/** One of the calling user's open sessions (rules/contract §7); never its token. */
export const SessionItem = Type.Object(
  {
    id: Uuid,
    createdAt: Timestamp,
    lastUsedAt: Type.String({
      format: "date-time",
      description:
        "When the session was last used, recorded at most once a minute (so up to a minute behind); its creation at first",
    }),
    expiresAt: Timestamp,
    current: Type.Boolean({ description: "Whether this is the session the request came with" }),
    method: stringEnum(["password", "sso", "invitation", "password-reset"] as const),
  },
  {
    examples: [
      {
        id: "7c4e2a1b-9d3f-4b6a-8e5c-1f2a3b4c5d6e",
        createdAt: "2026-11-27T09:00:00.000Z",
        lastUsedAt: "2026-11-27T10:41:00.000Z",
        expiresAt: "2026-11-27T21:00:00.000Z",
        current: true,
        method: "password",
      },
    ],
  },
);

export const SessionList = listOf(SessionItem);
