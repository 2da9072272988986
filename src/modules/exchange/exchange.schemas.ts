import { Type } from "@sinclair/typebox";
import { partnerScopes } from "../../protocol/scopes.js";
import { Timestamp, Uuid, listOf } from "../../platform/http/openapi-schemas.js";

const Identification = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 35, pattern: "^[^'+:?*\\r\\n]+$" }),
    qualifier: Type.Optional(Type.String({ minLength: 1, maxLength: 4, pattern: "^[A-Za-z0-9]+$" })),
  },
  { additionalProperties: false },
);

export const ProfileBody = Type.Object(
  {
    directory: Type.Union([Type.Literal("D96A"), Type.Literal("D25A")]),
    syntaxVersion: Type.Union([Type.Literal(3), Type.Literal(4)]),
    syntaxIdentifier: Type.Union(
      ["UNOA", "UNOB", "UNOC", "UNOD", "UNOE", "UNOF", "UNOW", "UNOY"].map((s) => Type.Literal(s)),
    ),
    partnerIdentification: Identification,
    ownIdentification: Identification,
    responses: Type.Optional(
      Type.Object(
        {
          contrl: Type.Optional(
            Type.Union([Type.Literal("always"), Type.Literal("on-request"), Type.Literal("on-error")], {
              default: "on-error",
            }),
          ),
          aperak: Type.Optional(
            Type.Union([Type.Literal("always"), Type.Literal("on-error"), Type.Literal("never")], {
              default: "on-error",
            }),
          ),
          ordrsp: Type.Optional(
            Type.Union([Type.Literal("auto"), Type.Literal("never")], { default: "auto" }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    orderValidation: Type.Optional(
      Type.Union([Type.Literal("none"), Type.Literal("catalog")], { default: "none" }),
    ),
  },
  { additionalProperties: false },
);

export const ProfileRevision = Type.Object({
  revision: Type.Integer({ minimum: 1 }),
  directory: Type.String(),
  syntaxVersion: Type.Integer(),
  syntaxIdentifier: Type.String(),
  partnerIdentification: Type.Object({ id: Type.String(), qualifier: Type.Optional(Type.String()) }),
  ownIdentification: Type.Object({ id: Type.String(), qualifier: Type.Optional(Type.String()) }),
  responses: Type.Object({ contrl: Type.String(), aperak: Type.String(), ordrsp: Type.String() }),
  orderValidation: Type.String(),
  active: Type.Boolean(),
  createdAt: Timestamp,
});
export const ProfileRevisionList = listOf(ProfileRevision);

export const CreatePartnerBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);
export const UpdatePartnerBody = CreatePartnerBody;
export const PartnerItem = Type.Object({
  id: Uuid,
  name: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const PartnerList = listOf(PartnerItem);

export const CreateConnectionBody = Type.Object(
  {
    partnerId: Uuid,
    profile: ProfileBody,
    status: Type.Optional(Type.Union([Type.Literal("active"), Type.Literal("suspended")])),
  },
  { additionalProperties: false },
);
export const UpdateConnectionBody = Type.Object(
  { status: Type.Union([Type.Literal("active"), Type.Literal("suspended")]) },
  { additionalProperties: false },
);
export const ConnectionItem = Type.Object({
  id: Uuid,
  tenantId: Uuid,
  partnerId: Uuid,
  apiVersion: Type.Literal("api.v1"),
  status: Type.String(),
  activeProfileRevision: ProfileRevision,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const ConnectionList = listOf(ConnectionItem);

export const CreateApiKeyBody = Type.Object(
  {
    partnerId: Uuid,
    scopes: Type.Array(Type.Union(partnerScopes.map((s) => Type.Literal(s))), {
      minItems: 1,
      maxItems: 5,
      uniqueItems: true,
    }),
    connectionIds: Type.Optional(Type.Array(Uuid, { maxItems: 100, uniqueItems: true })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export const ApiKeyItem = Type.Object({
  id: Uuid,
  apiKeyId: Uuid,
  name: Type.String(),
  partnerId: Uuid,
  scopes: Type.Array(Type.String()),
  connectionIds: Type.Union([Type.Array(Uuid), Type.Null()]),
  createdAt: Timestamp,
  revokedAt: Type.Union([Timestamp, Type.Null()]),
});
export const CreatedApiKey = Type.Composite([
  ApiKeyItem,
  Type.Object({ token: Type.String({ description: "`<apiKeyId>:<secret>`; shown only in this response" }) }),
]);
export const ApiKeyList = listOf(ApiKeyItem);

export const AuditEventItem = Type.Object({
  id: Uuid,
  type: Type.String(),
  occurredAt: Timestamp,
  principalId: Type.Union([Uuid, Type.Null()]),
  connectionId: Type.Union([Uuid, Type.Null()]),
  uploadId: Type.Union([Uuid, Type.Null()]),
  deliveryAttemptId: Type.Union([Uuid, Type.Null()]),
  byteCount: Type.Union([Type.Integer(), Type.Null()]),
  outcome: Type.Union([Type.String(), Type.Null()]),
});
export const AuditEventList = listOf(AuditEventItem);
export const AuditQuery = Type.Object(
  {
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false },
);

export const UploadItem = Type.Object({
  id: Uuid,
  uploadId: Uuid,
  connectionId: Uuid,
  interchangeId: Type.Union([Type.String(), Type.Null()]),
  status: Type.String(),
  byteCount: Type.Integer(),
  profileRevision: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  completedAt: Type.Union([Timestamp, Type.Null()]),
});
export const UploadList = listOf(UploadItem);

export const DeliveryItem = Type.Object({
  id: Uuid,
  deliveryAttemptId: Uuid,
  connectionId: Uuid,
  uploadId: Uuid,
  interchangeId: Type.String(),
  inboundInterchangeId: Type.Union([Type.String(), Type.Null()]),
  messageReference: Type.String(),
  messageType: Type.String(),
  payloadSize: Type.Integer(),
  payloadSha256: Type.String(),
  status: Type.String(),
  attempts: Type.Integer(),
  dueAt: Timestamp,
  leaseExpiresAt: Type.Union([Timestamp, Type.Null()]),
  receiptId: Type.Union([Uuid, Type.Null()]),
  acknowledgedAt: Type.Union([Timestamp, Type.Null()]),
  createdAt: Timestamp,
});
export const DeliveryList = listOf(DeliveryItem);
export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false });
export const RevisionParams = Type.Object(
  { id: Uuid, revision: Type.Integer({ minimum: 1, maximum: 1_000_000 }) },
  { additionalProperties: false },
);

// Partner routes. Path parameters are plain strings: a malformed id is 404, like a foreign one.
export const ConnectionParams = Type.Object({ connectionID: Type.String({ maxLength: 200 }) });
export const DeliveryParams = Type.Object({
  connectionID: Type.String({ maxLength: 200 }),
  deliveryAttemptID: Type.String({ maxLength: 200 }),
});

export const UploadResponse = Type.Object({
  uploadId: Uuid,
  interchangeId: Type.Optional(Type.String()),
  status: Type.String(),
  replay: Type.Boolean(),
});

export const MailboxItem = Type.Object({
  deliveryAttemptId: Uuid,
  interchangeId: Type.String(),
  messageType: Type.String(),
  payloadSize: Type.Integer(),
  payloadSha256: Type.String(),
  status: Type.String(),
  createdAt: Timestamp,
  uploadId: Uuid,
  inboundInterchangeId: Type.Union([Type.String(), Type.Null()]),
  messageReference: Type.String(),
});
export const MailboxList = listOf(MailboxItem);
export const MailboxQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
});

export const ClaimResponse = Type.Object({
  deliveryAttemptId: Uuid,
  claimToken: Type.String(),
  expiresAt: Timestamp,
  attempt: Type.Integer(),
});

export const AcknowledgeResponse = Type.Object({
  deliveryAttemptId: Uuid,
  receiptId: Uuid,
  acknowledgedAt: Timestamp,
  replay: Type.Boolean(),
});
