import { Type } from "@sinclair/typebox";
import { partnerScopes } from "@hanse/client/protocol";
import {
  OrderQuery,
  Timestamp,
  Uuid,
  listOf,
  nullable,
  stringEnum,
} from "../../../platform/http/openapi-schemas.js";
import { deliveryStatuses, uploadStatuses } from "../exchange.tables.js";
import {
  at,
  ConnectionStatus,
  DeliveryStatus,
  UploadStatus,
  connectionId,
  deliveryAttemptId,
  mailboxExample,
  partnerId,
  uploadId,
} from "../exchange.schemas.js";

/*
 * The administration's schemas: partners, connections, profile revisions, API keys, the audit
 * trail, and the operator's views of uploads and deliveries.
 */

// ---- examples ----------------------------------------------------------------------------------

const profileExample = {
  directory: "D96A",
  syntaxVersion: 3,
  syntaxIdentifier: "UNOC",
  partnerIdentification: { id: "4012345000009", qualifier: "14" },
  ownIdentification: { id: "4098765000002", qualifier: "14" },
  responses: { contrl: "on-error", aperak: "on-error", ordrsp: "auto" },
  orderValidation: "none",
  duplicateWindowDays: 30,
};
const revisionExample = { revision: 1, ...profileExample, active: true, createdAt: at };
const apiKeyExample = {
  id: "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e",
  apiKeyId: "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e",
  name: "ACME upload",
  partnerId,
  scopes: ["b2b_exchange_partner_inbox:create", "b2b_exchange_partner_mailbox:list"],
  connectionIds: [connectionId],
  createdAt: at,
  revokedAt: null,
};
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
    duplicateWindowDays: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 3650,
        default: 30,
        description:
          "Days an interchange (UNB sender identification, recipient identification and control reference) of a processed upload counts as a duplicate when uploaded again on the connection; 0 turns the check off",
      }),
    ),
  },
  { additionalProperties: false, examples: [profileExample] },
);

export const ProfileRevision = Type.Object(
  {
    revision: Type.Integer({ minimum: 1 }),
    directory: Type.String(),
    syntaxVersion: Type.Integer(),
    syntaxIdentifier: Type.String(),
    partnerIdentification: Type.Object({ id: Type.String(), qualifier: Type.Optional(Type.String()) }),
    ownIdentification: Type.Object({ id: Type.String(), qualifier: Type.Optional(Type.String()) }),
    responses: Type.Object({ contrl: Type.String(), aperak: Type.String(), ordrsp: Type.String() }),
    orderValidation: Type.String(),
    duplicateWindowDays: Type.Integer({ minimum: 0, maximum: 3650 }),
    active: Type.Boolean(),
    createdAt: Timestamp,
  },
  { examples: [revisionExample] },
);
export const ProfileRevisionList = listOf(ProfileRevision);

export const CreatePartnerBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false, examples: [{ name: "ACME Retail" }] },
);
export const UpdatePartnerBody = CreatePartnerBody;
export const PartnerItem = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { examples: [{ id: partnerId, name: "ACME Retail", createdAt: at, updatedAt: at }] },
);
export const PartnerList = listOf(PartnerItem);

/** A connection's name (rules/contract §8): 1–200 characters, not only blanks. */
const ConnectionName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: "\\S",
  description: "What people call the connection; defaults to the partner's name",
  examples: ["ACME Retail · EDI prod"],
});
/** A connection's collection deadline (rules/contract §8): 60–2592000 seconds, or null for none. */
export const collectionDeadline = { min: 60, max: 2_592_000, default: 86_400 } as const;
const CollectionDeadline = Type.Union(
  [Type.Integer({ minimum: collectionDeadline.min, maximum: collectionDeadline.max }), Type.Null()],
  {
    description:
      "Seconds a delivery may wait in the mailbox without an acknowledgement before it is overdue " +
      `(${collectionDeadline.min}–${collectionDeadline.max}; null: never overdue; default ${collectionDeadline.default})`,
    examples: [86400],
  },
);
export const CreateConnectionBody = Type.Object(
  {
    partnerId: Uuid,
    name: Type.Optional(ConnectionName),
    collectionDeadlineSeconds: Type.Optional(CollectionDeadline),
    profile: ProfileBody,
    status: Type.Optional(Type.Union([Type.Literal("active"), Type.Literal("suspended")])),
  },
  { additionalProperties: false, examples: [{ partnerId, profile: profileExample, status: "active" }] },
);
export const UpdateConnectionBody = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal("active"), Type.Literal("suspended")])),
    name: Type.Optional(ConnectionName),
    collectionDeadlineSeconds: Type.Optional(CollectionDeadline),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [
      { status: "suspended" },
      { name: "ACME Retail · EDI test" },
      { collectionDeadlineSeconds: 3600 },
    ],
  },
);
export const ConnectionItem = Type.Object(
  {
    id: Uuid,
    tenantId: Uuid,
    partnerId: Uuid,
    name: Type.String(),
    apiVersion: Type.Literal("api.v1"),
    status: ConnectionStatus,
    collectionDeadlineSeconds: CollectionDeadline,
    activeProfileRevision: ProfileRevision,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    examples: [
      {
        id: connectionId,
        tenantId: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
        partnerId,
        name: "ACME Retail · EDI prod",
        apiVersion: "api.v1",
        status: "active",
        collectionDeadlineSeconds: 86400,
        activeProfileRevision: revisionExample,
        createdAt: at,
        updatedAt: at,
      },
    ],
  },
);
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
  {
    additionalProperties: false,
    examples: [
      { partnerId, scopes: apiKeyExample.scopes, connectionIds: [connectionId], name: "ACME upload" },
    ],
  },
);
export const ApiKeyItem = Type.Object(
  {
    id: Uuid,
    apiKeyId: Uuid,
    name: Type.String(),
    partnerId: Uuid,
    scopes: Type.Array(Type.String()),
    connectionIds: Type.Union([Type.Array(Uuid), Type.Null()]),
    createdAt: Timestamp,
    revokedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { examples: [apiKeyExample] },
);
export const CreatedApiKey = Type.Composite(
  [
    ApiKeyItem,
    Type.Object({
      token: Type.String({ description: "`<apiKeyId>:<secret>`; shown only in this response" }),
    }),
  ],
  { examples: [{ ...apiKeyExample, token: `${apiKeyExample.apiKeyId}:<secret>` }] },
);
export const ApiKeyList = listOf(ApiKeyItem);

export const AuditEventItem = Type.Object(
  {
    id: Uuid,
    type: Type.String(),
    occurredAt: Timestamp,
    principalId: Type.Union([Uuid, Type.Null()]),
    principalKind: Type.Union([
      stringEnum(["user", "access_token", "partner_api_key", "service_credential"]),
      Type.Null(),
    ]),
    targetType: Type.Union([Type.String(), Type.Null()], {
      description: "What was changed: `user`, `partner`, …",
    }),
    targetId: Type.Union([Type.String(), Type.Null()]),
    sourceAddress: Type.Union([Type.String(), Type.Null()], {
      description: "The client's IP address (X-Forwarded-For only from HANSE_TRUST_PROXY's proxies)",
    }),
    correlationId: Type.Union([Type.String(), Type.Null()], {
      description: "The X-Correlation-Id of the request that made the change",
    }),
    changes: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: "`*.updated` records: the names of the fields changed, never their values",
    }),
    method: Type.Union([Type.String(), Type.Null()], {
      description:
        "`session.*` records: how the session was opened (password, sso, invitation, password-reset)",
    }),
    connectionId: Type.Union([Uuid, Type.Null()]),
    uploadId: Type.Union([Uuid, Type.Null()]),
    deliveryAttemptId: Type.Union([Uuid, Type.Null()]),
    byteCount: Type.Union([Type.Integer(), Type.Null()]),
    outcome: Type.Union([Type.String(), Type.Null()]),
    data: Type.Record(
      Type.String(),
      Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
      {
        description: "Further ids, counts and states of the act; never a secret",
      },
    ),
  },
  {
    examples: [
      {
        id: "d3e4f5a6-b7c8-4d9e-8f0a-1b2c3d4e5f6a",
        type: "delivery.acknowledged",
        occurredAt: at,
        principalId: apiKeyExample.id,
        principalKind: "partner_api_key",
        targetType: "delivery",
        targetId: deliveryAttemptId,
        sourceAddress: "203.0.113.7",
        correlationId: "0193a5b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b",
        changes: null,
        method: null,
        connectionId,
        uploadId,
        deliveryAttemptId,
        byteCount: 212,
        outcome: null,
        data: {},
      },
    ],
  },
);
export const AuditEventList = listOf(AuditEventItem);
const auditTime = (description: string) =>
  Type.Optional(Type.String({ format: "date-time", description, examples: [at] }));
export const AuditQuery = Type.Object(
  {
    type: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: "^[a-z0-9_]+(\\.[a-z0-9_]+)*\\.?$",
        description: "One type (`user.updated`), or every type under a prefix ending in `.` (`user.`)",
        examples: ["user."],
      }),
    ),
    principalId: Type.Optional(
      Type.String({ format: "uuid", description: "Only the acts of this principal" }),
    ),
    targetId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "Only the acts on this object (its id)" }),
    ),
    occurredFrom: auditTime("Only records that occurred at or after this time (RFC 3339)"),
    occurredBefore: auditTime("Only records that occurred before this time (RFC 3339)"),
    order: Type.Optional(
      Type.Unsafe<"asc" | "desc">({
        type: "string",
        enum: ["asc", "desc"],
        description: "Oldest first (`asc`, the default) or newest first (`desc`)",
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false },
);

export const AuditExportQuery = Type.Object(
  {
    occurredFrom: auditTime(
      "The stretch of the chain from the first record that occurred at or after this time (RFC 3339)",
    ),
    occurredBefore: auditTime("… to the last record that occurred before this time (RFC 3339)"),
  },
  { additionalProperties: false },
);
const Sha256Hex = Type.String({ pattern: "^[0-9a-f]{64}$", description: "SHA-256, lowercase hex" });
export const ExportedAuditRecord = Type.Composite([
  AuditEventItem,
  Type.Object({
    seal: Type.Union(
      [
        Type.Object({
          sequence: Type.Integer({ minimum: 1, description: "The record's place in the tenant's chain" }),
          previous: Sha256Hex,
          hash: Type.String({
            pattern: "^[0-9a-f]{64}$",
            description:
              'hex(SHA-256(previous + "\\n" + the record without `seal`, as JSON with sorted keys and no whitespace))',
          }),
        }),
        Type.Null(),
      ],
      { description: "null: not sealed yet (sealed within HANSE_AUDIT_SEAL_SECONDS)" },
    ),
  }),
]);
const ChainProblem = Type.Object({
  kind: stringEnum(["changed", "removed", "reordered"]),
  sequence: Type.Integer({ description: "The place in the chain where it was found" }),
  eventId: Type.Union([Uuid, Type.Null()], {
    description: "The record found there (null: records missing at the chain's end)",
  }),
});
export const AuditVerification = Type.Object(
  {
    verified: Type.Boolean({
      description: "false when any sealed record was changed, removed or reordered",
    }),
    checkedThrough: Timestamp,
    count: Type.Integer({ minimum: 0, description: "Records checked" }),
    head: Type.Union([Type.Object({ sequence: Type.Integer(), hash: Sha256Hex }), Type.Null()], {
      description: "The last seal: keep it, to find out later that the chain was not cut short after it",
    }),
    unsealed: Type.Integer({ minimum: 0, description: "Records written but not sealed yet" }),
    problem: Type.Union([ChainProblem, Type.Null()], {
      description: "The first record that does not verify",
    }),
  },
  {
    examples: [
      {
        verified: true,
        checkedThrough: at,
        count: 1204,
        head: { sequence: 1204, hash: "9f2c5e0b7a1d4c3e8f6a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e" },
        unsealed: 0,
        problem: null,
      },
    ],
  },
);

/** Paging of a filtered list: its cursor is valid only with the filters and order that gave it. */
const filteredPaging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024,
      description: "The previous page's `meta.nextCursor`, with the same filters and order",
    }),
  ),
  ...OrderQuery,
};
/** The filters the operator's lists of uploads and deliveries share, with paging. */
const listFilters = (statuses: readonly string[]) => ({
  connectionId: Type.Optional(
    Type.String({ format: "uuid", description: "Only this connection's", examples: [connectionId] }),
  ),
  status: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: `Only these statuses: one of ${statuses.join(", ")}, or several separated by commas`,
      examples: [statuses.slice(-2).join(",")],
    }),
  ),
  from: Type.Optional(
    Type.String({
      format: "date-time",
      description: "Only those created at or after this time (RFC 3339)",
      examples: ["2026-11-27T00:00:00Z"],
    }),
  ),
  to: Type.Optional(
    Type.String({
      format: "date-time",
      description: "Only those created before this time (RFC 3339; exclusive)",
      examples: ["2026-11-28T00:00:00Z"],
    }),
  ),
  ...filteredPaging,
});
/** `partnerId`: only the uploads (deliveries) of one partner's connections. */
const partnerFilter = (what: string) =>
  Type.Optional(
    Type.String({
      format: "uuid",
      description: `Only the ${what} of this partner's connections`,
      examples: [partnerId],
    }),
  );
/** The query of the operator's lists of connections and API keys: one partner's, with paging. */
const partnerListQuery = (what: string) =>
  Type.Object(
    {
      partnerId: Type.Optional(
        Type.String({ format: "uuid", description: `Only this partner's ${what}`, examples: [partnerId] }),
      ),
      ...filteredPaging,
    },
    { additionalProperties: false },
  );
export const ConnectionQuery = partnerListQuery("connections");
export const ApiKeyQuery = partnerListQuery("API keys");
export const UploadQuery = Type.Object(
  {
    ...listFilters(uploadStatuses),
    interchangeReference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 35,
        pattern: "^\\S+$",
        description: "Only the uploads whose interchange has this control reference (UNB 0020)",
        examples: ["4711"],
      }),
    ),
    documentNumber: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 70,
        pattern: "\\S",
        description:
          "Only the uploads with a message of this document number (BGM 1004, e.g. the order number); uploads processed before 2026-11-28 have none",
        examples: ["PO4713"],
      }),
    ),
    partnerId: partnerFilter("uploads"),
  },
  { additionalProperties: false },
);
export const DeliveryQuery = Type.Object(
  {
    ...listFilters(deliveryStatuses),
    uploadId: Type.Optional(
      Type.String({ format: "uuid", description: "Only what this upload produced", examples: [uploadId] }),
    ),
    messageType: Type.Optional({
      ...stringEnum(["CONTRL", "APERAK", "ORDRSP"] as const),
      description: "Only messages of this type",
    }),
    partnerId: partnerFilter("deliveries"),
    overdue: Type.Optional({
      ...stringEnum(["true"] as const),
      description:
        "`true`: only the overdue deliveries (still ready or claimed after their connection's collection deadline)",
    }),
  },
  { additionalProperties: false },
);

/** One thing processing found wrong with an upload (issue 24 item 2). */
export const FindingSchema = Type.Object(
  {
    level: stringEnum(["interchange", "message", "application"] as const),
    code: Type.String({
      description:
        "ISO 9735 syntax error code (0085) of an interchange or message finding; the APERAK error code (ERC) of an application finding",
    }),
    message: Type.String({ description: "What is wrong, in plain words" }),
    messageReference: nullable(Type.String({ description: "UNH 0062 of the message concerned" })),
    segment: nullable(Type.String({ description: "Tag of the segment concerned" })),
    position: nullable(
      Type.Integer({ description: "1-based position of that segment in the interchange (UNA not counted)" }),
    ),
    element: nullable(
      Type.String({
        description: 'Element position ("2", or "2:1" for a component); null for a whole segment',
      }),
    ),
  },
  { additionalProperties: false },
);
const findingExample = {
  level: "message",
  code: "13",
  message: "Mandatory segment BGM is missing",
  messageReference: "1",
  segment: "BGM",
  position: 3,
  element: null,
};

const OutboundCounts = Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
  description: 'Outbound messages the upload produced, per message type: `{"CONTRL":1,"ORDRSP":2}`',
});
/** Who an upload or a delivery belongs to, by name (rules/contract §8); the ids stay beside them. */
const ownerNames = {
  partnerId: Uuid,
  partnerName: Type.String({ description: "The partner's name" }),
  connectionName: Type.String({ description: "The connection's name" }),
};
const ownerNamesExample = { partnerId, partnerName: "ACME Retail", connectionName: "ACME Retail · EDI prod" };
const uploadFields = {
  id: Uuid,
  uploadId: Uuid,
  connectionId: Uuid,
  ...ownerNames,
  interchangeId: Type.Union([Type.String(), Type.Null()]),
  status: UploadStatus,
  byteCount: Type.Integer(),
  profileRevision: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  completedAt: Type.Union([Timestamp, Type.Null()]),
  outboundCounts: OutboundCounts,
  findingCount: Type.Integer({ minimum: 0, description: "How many findings processing recorded" }),
  duplicateOf: nullable(
    Type.String({
      format: "uuid",
      description:
        "The earlier processed upload of the connection whose interchange this one repeats (the upload was rejected as a duplicate), else null",
    }),
  ),
};
const uploadExample = {
  id: uploadId,
  uploadId,
  connectionId,
  ...ownerNamesExample,
  interchangeId: "42",
  status: "processed",
  byteCount: 1843,
  profileRevision: 1,
  error: null,
  createdAt: at,
  updatedAt: "2026-11-27T09:00:01.000Z",
  completedAt: "2026-11-27T09:00:01.000Z",
  outboundCounts: { ORDRSP: 1 },
  findingCount: 0,
  duplicateOf: null,
};
export const UploadItem = Type.Object(uploadFields, { examples: [uploadExample] });

export const OutboundItem = Type.Object(
  {
    deliveryAttemptId: Uuid,
    messageType: Type.String(),
    status: DeliveryStatus,
    interchangeId: Type.String(),
    messageReference: Type.String(),
    answersMessageReference: nullable(
      Type.String({
        description:
          "UNH 0062 of the inbound message this one answers; null for a CONTRL (it answers the interchange)",
      }),
    ),
    createdAt: Timestamp,
    acknowledgedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { additionalProperties: false },
);

/** An upload with why it was rejected (findings) and what it produced (outbound, in mailbox order). */
export const UploadDetail = Type.Object(
  { ...uploadFields, findings: Type.Array(FindingSchema), outbound: Type.Array(OutboundItem) },
  {
    examples: [
      {
        ...uploadExample,
        status: "rejected",
        outboundCounts: { CONTRL: 1 },
        findingCount: 1,
        findings: [findingExample],
        outbound: [
          {
            deliveryAttemptId,
            messageType: "CONTRL",
            status: "ready",
            interchangeId: "1001",
            messageReference: "1",
            answersMessageReference: null,
            createdAt: "2026-11-27T09:00:01.000Z",
            acknowledgedAt: null,
          },
        ],
      },
    ],
  },
);

/** The segment tree of an upload or a delivery (`hanse edi inspect` as JSON). */
export const SegmentsView = Type.Object(
  {
    segments: Type.Array(
      Type.Object(
        {
          position: Type.Integer({ description: "1-based position in the interchange (UNA not counted)" }),
          tag: Type.String(),
          depth: Type.Integer({
            description:
              "0 interchange envelope, 1 group envelope, 2 message level, one more per segment group",
          }),
          group: nullable(
            Type.String({
              description:
                'Innermost segment group ("SG2"); "?" where the message structure has no place for the segment',
            }),
          ),
          text: Type.String({ description: "The segment as written, terminator included" }),
          findings: Type.Array(FindingSchema),
        },
        { additionalProperties: false },
      ),
    ),
    findings: Type.Array(FindingSchema, { description: "Findings tied to no segment" }),
    notes: Type.Array(Type.String()),
  },
  {
    examples: [
      {
        segments: [
          {
            position: 1,
            tag: "UNB",
            depth: 0,
            group: null,
            text: "UNB+UNOC:3+SENDER:14+RECEIVER:14+261127:0900+42'",
            findings: [],
          },
          { position: 2, tag: "UNH", depth: 2, group: null, text: "UNH+1+ORDERS:D:96A:UN'", findings: [] },
          {
            position: 3,
            tag: "DTM",
            depth: 2,
            group: null,
            text: "DTM+137:20261127:102'",
            findings: [findingExample],
          },
        ],
        findings: [],
        notes: [],
      },
    ],
  },
);
export const UploadList = listOf(UploadItem);

export const DeliveryItem = Type.Object(
  {
    id: Uuid,
    deliveryAttemptId: Uuid,
    connectionId: Uuid,
    ...ownerNames,
    uploadId: Uuid,
    interchangeId: Type.String(),
    inboundInterchangeId: Type.Union([Type.String(), Type.Null()]),
    messageReference: Type.String(),
    messageType: Type.String(),
    payloadSize: Type.Integer(),
    payloadSha256: Type.String(),
    status: DeliveryStatus,
    attempts: Type.Integer(),
    dueAt: Timestamp,
    leaseExpiresAt: Type.Union([Timestamp, Type.Null()]),
    receiptId: Type.Union([Uuid, Type.Null()]),
    acknowledgedAt: Type.Union([Timestamp, Type.Null()]),
    createdAt: Timestamp,
    resentFrom: Type.Union([Uuid, Type.Null()], {
      description: "The delivery this one re-sends (`POST …/{id}/resend`), else null",
    }),
    overdue: Type.Boolean({
      description:
        "Still ready or claimed after the connection's collection deadline (`collectionDeadlineSeconds` after `createdAt`)",
    }),
    overdueSince: Type.Union([Timestamp, Type.Null()], {
      description:
        "When the collection deadline passed without an acknowledgement (set once, by the overdue sweep, which runs every minute); null until then",
    }),
  },
  {
    examples: [
      {
        id: deliveryAttemptId,
        deliveryAttemptId,
        connectionId,
        ...ownerNamesExample,
        uploadId,
        interchangeId: "1001",
        inboundInterchangeId: "42",
        messageReference: "1",
        messageType: "CONTRL",
        payloadSize: 212,
        payloadSha256: mailboxExample.payloadSha256,
        status: "ready",
        attempts: 0,
        dueAt: at,
        leaseExpiresAt: null,
        receiptId: null,
        acknowledgedAt: null,
        createdAt: at,
        resentFrom: null,
        overdue: false,
        overdueSince: null,
      },
    ],
  },
);
export const DeliveryList = listOf(DeliveryItem);
export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false });
export const RevisionParams = Type.Object(
  { id: Uuid, revision: Type.Integer({ minimum: 1, maximum: 1_000_000 }) },
  { additionalProperties: false },
);
