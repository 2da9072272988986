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
  { additionalProperties: false },
);

export const SessionResponse = Type.Object({
  id: Uuid,
  token: Type.String({ description: "Bearer token; shown only here" }),
  expiresAt: Timestamp,
  scopes: Type.Array(Type.String()),
  createdAt: Timestamp,
});

export const WhoamiResponse = Type.Object({
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
});

export const CreateAccessTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Array(ScopeSchema, { minItems: 1, maxItems: 32, uniqueItems: true }),
    expiresAt: Type.Optional(Type.String({ format: "date-time" })),
  },
  { additionalProperties: false },
);

export const AccessTokenItem = Type.Object({
  id: Uuid,
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  createdAt: Timestamp,
  expiresAt: Type.Union([Timestamp, Type.Null()]),
  revokedAt: Type.Union([Timestamp, Type.Null()]),
  createdBy: Type.Union([Uuid, Type.Null()]),
});

export const CreatedAccessToken = Type.Composite([
  AccessTokenItem,
  Type.Object({ token: Type.String({ description: "Bearer token; shown only in this response" }) }),
]);

export const AccessTokenList = listOf(AccessTokenItem);

export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false });
