import { Type } from "@sinclair/typebox";

export const DiscoveryResponse = Type.Object(
  {
    apiMajor: Type.Integer(),
    serverVersion: Type.String(),
    build: Type.Object({
      commit: Type.Union([Type.String(), Type.Null()]),
      builtAt: Type.Union([Type.String(), Type.Null()]),
    }),
    capabilities: Type.Array(Type.String()),
    entitlements: Type.Optional(Type.Object({ issuer: Type.String(), jwksUri: Type.String() })),
  },
  {
    examples: [
      {
        apiMajor: 1,
        serverVersion: "0.1.0",
        build: { commit: null, builtAt: null },
        capabilities: [
          "b2b.exchange.partner",
          "entitlements.service",
          "workflows.lifecycleAdapters",
          "workflows.transitionRequests",
        ],
        entitlements: {
          issuer: "https://hanse.example.com",
          jwksUri: "https://hanse.example.com/api/v1/public/v1/app-entitlements/jwks",
        },
      },
    ],
  },
);

const Action = Type.Object({
  id: Type.String(),
  method: Type.String(),
  href: Type.String(),
  requiredHeaders: Type.Optional(Type.Array(Type.String())),
  acceptedStatus: Type.Optional(Type.Integer()),
  responseHeaders: Type.Optional(Type.Array(Type.String())),
  statusHref: Type.Optional(Type.String()),
  statusRequiredAnyScopes: Type.Optional(Type.Array(Type.String())),
});

export const EntrypointListResponse = Type.Object(
  {
    entrypoints: Type.Array(
      Type.Object({
        id: Type.String(),
        kind: Type.String({ description: "crud, system-resource or auth; treat unknown kinds as unusable" }),
        href: Type.String(),
        metaHref: Type.Optional(Type.String()),
        actions: Type.Array(Action),
      }),
    ),
  },
  {
    examples: [
      {
        entrypoints: [
          {
            id: "admin.accessTokens",
            kind: "crud",
            href: "/api/v1/admin/access-tokens",
            metaHref: "/api/v1/profile/entrypoints/admin.accessTokens/meta",
            actions: [
              { id: "list", method: "GET", href: "/api/v1/admin/access-tokens" },
              { id: "create", method: "POST", href: "/api/v1/admin/access-tokens" },
            ],
          },
        ],
      },
    ],
  },
);

export const EntrypointMetaResponse = Type.Object(
  {
    id: Type.String(),
    schemas: Type.Object({
      create: Type.Unknown({ description: "JSON Schema of the create payload" }),
      update: Type.Unknown({ description: "JSON Schema of the update payload, or null" }),
      item: Type.Unknown({ description: "JSON Schema of one record" }),
    }),
  },
  {
    examples: [
      {
        id: "admin.partners",
        schemas: {
          create: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
          update: null,
          item: { type: "object", properties: { id: { type: "string", format: "uuid" } } },
        },
      },
    ],
  },
);

export const EntryIdParams = Type.Object({ entryId: Type.String({ minLength: 1, maxLength: 100 }) });
