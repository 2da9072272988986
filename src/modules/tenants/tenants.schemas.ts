import { Type } from "@sinclair/typebox";
import { Timestamp, Uuid, listOf } from "../../platform/http/openapi-schemas.js";

export const Slug = Type.String({
  minLength: 2,
  maxLength: 63,
  pattern: "^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$",
  description: "Lower-case letters, digits and inner hyphens; unique",
});

export const CreateTenantBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Slug,
    admin: Type.Optional(
      Type.Object(
        {
          email: Type.String({ minLength: 3, maxLength: 254, pattern: "^[^\\s@]+@[^\\s@]+$" }),
          password: Type.String({ minLength: 12, maxLength: 1024 }),
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        },
        { additionalProperties: false, description: "The tenant's first administrator" },
      ),
    ),
  },
  { additionalProperties: false },
);

export const TenantSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  type: Type.Union([Type.Literal("system"), Type.Literal("customer")]),
  status: Type.Union([Type.Literal("provisioning"), Type.Literal("active"), Type.Literal("failed")]),
  createdAt: Timestamp,
});

export const TenantList = listOf(TenantSchema);

export const CreateTenantAccepted = Type.Object({
  tenantId: Uuid,
  status: Type.Literal("provisioning"),
  statusHref: Type.String(),
});

export const ProvisioningStatus = Type.Object({
  tenantId: Uuid,
  state: Type.Union([
    Type.Literal("pending"),
    Type.Literal("running"),
    Type.Literal("succeeded"),
    Type.Literal("failed"),
  ]),
  terminal: Type.Boolean(),
  steps: Type.Array(
    Type.Object({
      name: Type.String(),
      state: Type.Union([
        Type.Literal("pending"),
        Type.Literal("running"),
        Type.Literal("succeeded"),
        Type.Literal("failed"),
      ]),
    }),
  ),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  startedAt: Type.Union([Timestamp, Type.Null()]),
  completedAt: Type.Union([Timestamp, Type.Null()]),
});

export const TenantIdParams = Type.Object({ tenantId: Uuid }, { additionalProperties: false });
