import { Type } from "@sinclair/typebox";
import { Timestamp, Uuid, listOf } from "../../../platform/http/openapi-schemas.js";
import { roles } from "./roles.js";

const RoleSchema = Type.Union(
  roles.map((r) => Type.Literal(r)),
  { description: "owner: every tenant scope; admin: the same without users:write; viewer: reads" },
);

const userExample = {
  id: "0190f2a0-7b1c-7d2e-8f3a-4b5c6d7e8f90",
  email: "ops@acme.example",
  name: "Ops Team",
  role: "viewer",
  status: "invited",
  createdAt: "2026-11-28T09:00:00.000Z",
  lastSignInAt: null,
};

export const UserItem = Type.Object(
  {
    id: Uuid,
    email: Type.String(),
    name: Type.String(),
    role: RoleSchema,
    status: Type.Union([Type.Literal("invited"), Type.Literal("active"), Type.Literal("deactivated")]),
    createdAt: Timestamp,
    lastSignInAt: Type.Union([Timestamp, Type.Null()], {
      description: "The last sign-in (password or invitation); null before the first",
    }),
  },
  { examples: [userExample] },
);

export const UserList = listOf(UserItem);

export const CreateUserBody = Type.Object(
  {
    email: Type.String({
      format: "email",
      minLength: 3,
      maxLength: 254,
      description: "Unique in the tenant, case-insensitive",
    }),
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "Defaults to the e-mail address" }),
    ),
    role: RoleSchema,
  },
  {
    additionalProperties: false,
    examples: [{ email: "ops@acme.example", name: "Ops Team", role: "viewer" }],
  },
);

export const CreatedUser = Type.Composite(
  [
    UserItem,
    Type.Object({
      invitation: Type.Object({
        token: Type.String({
          description:
            "Shown only in this response; stored as a hash. Accept it at POST /api/v1/auth/invitations",
        }),
        expiresAt: Timestamp,
      }),
    }),
  ],
  {
    examples: [
      {
        ...userExample,
        invitation: { token: "<invitation token>", expiresAt: "2026-12-01T09:00:00.000Z" },
      },
    ],
  },
);

export const UpdateUserBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    role: Type.Optional(RoleSchema),
    status: Type.Optional(
      Type.Union([Type.Literal("active"), Type.Literal("deactivated")], {
        description:
          "deactivated ends the user's sessions at once and refuses its sign-ins; active allows them again " +
          "(only for a user that accepted its invitation)",
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: "At least one field; a change that leaves the tenant without an active owner is 409",
    examples: [{ role: "admin" }, { status: "deactivated" }],
  },
);

export const AcceptInvitationBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 256, description: "The invitation's token" }),
    password: Type.String({
      maxLength: 4096,
      description: "The user's new password: at least 15 and at most 1024 characters",
    }),
  },
  {
    additionalProperties: false,
    examples: [{ token: "<invitation token>", password: "a long and memorable passphrase" }],
  },
);

const newPasswordSchema = (description: string) =>
  Type.String({
    maxLength: 4096,
    description: `${description}: at least 15 and at most 1024 characters, not one of the most common passwords`,
  });

export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.String({ maxLength: 4096, description: "The user's current password" }),
    newPassword: newPasswordSchema("The user's new password"),
  },
  {
    additionalProperties: false,
    examples: [
      { currentPassword: "the old long passphrase", newPassword: "a new long and memorable passphrase" },
    ],
  },
);

export const PasswordResetItem = Type.Object(
  {
    token: Type.String({ description: "The reset token: shown only in this answer, used once" }),
    expiresAt: Timestamp,
  },
  { examples: [{ token: "hanse_rt_…", expiresAt: "2026-11-28T10:00:00.000Z" }] },
);

export const InvitationItem = Type.Object(
  {
    token: Type.String({
      description:
        "The new invitation's token: shown only in this answer, used once at POST /api/v1/auth/invitations",
    }),
    expiresAt: Timestamp,
  },
  { examples: [{ token: "hanse_it_…", expiresAt: "2026-12-01T09:00:00.000Z" }] },
);

export const UsePasswordResetBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 256, description: "The password reset's token" }),
    password: newPasswordSchema("The user's new password"),
  },
  {
    additionalProperties: false,
    examples: [{ token: "<reset token>", password: "a new long and memorable passphrase" }],
  },
);
