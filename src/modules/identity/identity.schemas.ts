import { Type } from "@sinclair/typebox";
import { allScopes } from "../../protocol/scopes.js";
import { Timestamp, Uuid, listOf } from "../../platform/http/openapi-schemas.js";

export const ScopeSchema = Type.Union(
  allScopes.map((s) => Type.Literal(s)),
  { description: "A scope (CONTRACT §2)" },
);

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

const tokenExample = {
  id: "0b9d6a4e-8f1c-4f5e-9a37-2c1d5e6f7a80",
  name: "nightly export",
  scopes: ["admin:read"],
  createdAt: "2026-11-27T09:00:00.000Z",
  expiresAt: "2027-11-27T09:00:00.000Z",
  revokedAt: null,
  createdBy: "5e2f7c1a-3b4d-4e6f-8a9b-0c1d2e3f4a5b",
};

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
        principal: { id: "5e2f7c1a-3b4d-4e6f-8a9b-0c1d2e3f4a5b", kind: "user", name: "admin@acme.example" },
        tenant: { id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", slug: "acme", type: "customer" },
        scopes: ["admin:read", "admin:write"],
      },
    ],
  },
);

export const CreateAccessTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Array(ScopeSchema, { minItems: 1, maxItems: 32, uniqueItems: true }),
    expiresAt: Type.Optional(Type.String({ format: "date-time" })),
  },
  {
    additionalProperties: false,
    examples: [{ name: "nightly export", scopes: ["admin:read"], expiresAt: "2027-11-27T09:00:00.000Z" }],
  },
);

export const AccessTokenItem = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    createdAt: Timestamp,
    expiresAt: Type.Union([Timestamp, Type.Null()]),
    revokedAt: Type.Union([Timestamp, Type.Null()]),
    createdBy: Type.Union([Uuid, Type.Null()]),
  },
  { examples: [tokenExample] },
);

export const CreatedAccessToken = Type.Composite(
  [
    AccessTokenItem,
    Type.Object({ token: Type.String({ description: "Bearer token; shown only in this response" }) }),
  ],
  { examples: [{ ...tokenExample, token: "<access token>" }] },
);

export const AccessTokenList = listOf(AccessTokenItem);

export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false });
