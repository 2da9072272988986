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
          password: Type.String({
            maxLength: 4096,
            description:
              "At least 15 and at most 1024 characters, not one of the most common passwords (else 400 at " +
              "/admin/password)",
          }),
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        },
        { additionalProperties: false, description: "The tenant's first administrator" },
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: "Acme GmbH",
        slug: "acme",
        admin: { email: "admin@acme.example", password: "a long admin password", name: "Acme Admin" },
      },
    ],
  },
);

export const TenantSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    slug: Type.String(),
    type: Type.Union([Type.Literal("system"), Type.Literal("customer")]),
    status: Type.Union(
      [
        Type.Literal("provisioning"),
        Type.Literal("active"),
        Type.Literal("failed"),
        Type.Literal("suspended"),
      ],
      {
        description:
          "suspended: offboarded until resumed (every credential of the tenant refused as unknown, its " +
          "deliveries and webhooks wait, nothing deleted)",
      },
    ),
    createdAt: Timestamp,
  },
  {
    examples: [
      {
        id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
        name: "Acme GmbH",
        slug: "acme",
        type: "customer",
        status: "active",
        createdAt: "2026-11-27T09:00:00.000Z",
      },
    ],
  },
);

export const TenantList = listOf(TenantSchema);

export const CreateTenantAccepted = Type.Object(
  {
    tenantId: Uuid,
    status: Type.Literal("provisioning"),
    statusHref: Type.String(),
  },
  {
    examples: [
      {
        tenantId: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
        status: "provisioning",
        statusHref: "/api/v1/system/tenants/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d/provisioning",
      },
    ],
  },
);

export const ProvisioningStatus = Type.Object(
  {
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
  },
  {
    examples: [
      {
        tenantId: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
        state: "running",
        terminal: false,
        steps: [
          { name: "create-administrator", state: "succeeded" },
          { name: "signing-keys", state: "running" },
        ],
        error: null,
        startedAt: "2026-11-27T09:00:00.120Z",
        completedAt: null,
      },
    ],
  },
);

export const TenantIdParams = Type.Object({ tenantId: Uuid }, { additionalProperties: false });
