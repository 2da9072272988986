import { Type } from "@sinclair/typebox";
import { nullable, stringEnum, Timestamp } from "../../../platform/http/openapi-schemas.js";
import { roles } from "../users/index.js";

const domain = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: "^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}$",
  description: "An e-mail domain, as after the @ (`example.com`); compared without regard to case",
});

const AutoCreate = Type.Object(
  {
    role: stringEnum(roles),
    emailDomains: Type.Array(domain, { minItems: 1, maxItems: 100 }),
  },
  {
    additionalProperties: false,
    description:
      "Users signing in for the first time with a verified e-mail address of one of these domains are created with this role",
  },
);

export const SsoSettingsBody = Type.Object(
  {
    issuer: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        "The issuer identifier, exactly as its discovery document names it (`https://login.example.com/realms/acme`)",
    }),
    clientId: Type.String({ minLength: 1, maxLength: 512 }),
    clientSecret: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: "Sealed at rest; never returned",
    }),
    autoCreate: nullable(AutoCreate),
  },
  {
    additionalProperties: false,
    examples: [
      {
        issuer: "https://login.example.com/realms/acme",
        clientId: "hanse",
        clientSecret: "<client secret>",
        autoCreate: { role: "viewer", emailDomains: ["acme.example"] },
      },
    ],
  },
);

export const SsoSettingsItem = Type.Object(
  {
    issuer: Type.String(),
    clientId: Type.String(),
    autoCreate: nullable(Type.Object({ role: stringEnum(roles), emailDomains: Type.Array(Type.String()) })),
    updatedAt: Timestamp,
  },
  {
    examples: [
      {
        issuer: "https://login.example.com/realms/acme",
        clientId: "hanse",
        autoCreate: { role: "viewer", emailDomains: ["acme.example"] },
        updatedAt: "2026-11-28T14:00:00.000Z",
      },
    ],
  },
);

export const SsoStartParams = Type.Object({
  tenantSlug: Type.String({ minLength: 1, maxLength: 63, description: "The tenant's slug" }),
});

export const SsoStartQuery = Type.Object({
  returnTo: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description: "A path on Hanse to land on after signing in (default `/console/`)",
    }),
  ),
});

/** What the issuer sends back (RFC 6749 §4.1.2); other parameters an issuer adds are ignored. */
export const SsoCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 256 })),
    iss: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: "The issuer, when it says (RFC 9207); must be the tenant's",
      }),
    ),
  },
  { additionalProperties: true },
);
