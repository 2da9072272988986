import { Type } from "@sinclair/typebox";
import { Timestamp, Uuid, listOf } from "../../../platform/http/openapi-schemas.js";
import { ScopeSchema } from "../identity.schemas.js";

const tokenExample = {
  id: "0b9d6a4e-8f1c-4f5e-9a37-2c1d5e6f7a80",
  name: "nightly export",
  scopes: ["admin:read"],
  createdAt: "2026-11-27T09:00:00.000Z",
  expiresAt: "2027-11-27T09:00:00.000Z",
  revokedAt: null,
  createdBy: "5e2f7c1a-3b4d-4e6f-8a9b-0c1d2e3f4a5b",
};

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
