import { Type, type Static } from "@sinclair/typebox";
import {
  ListMetaSchema,
  PageQuery,
  Timestamp,
  Uuid,
  listOf,
  nullable,
  stringEnum,
} from "../../platform/http/openapi-schemas.js";
import { operatorEventTypes } from "./entitlements.tables.js";

const Name = Type.String({ minLength: 1, maxLength: 200 });
export const AppId = Type.String({
  pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$",
  description: "Unique in the tenant: letters, digits, `.`, `_`, `:`, `-` (at most 64)",
});
const Capability = Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$" });
const Capabilities = Type.Array(Capability, { maxItems: 100, uniqueItems: true });
/** At most 128 characters (checked by `checkActorId`, so that a longer one is 400, not 404). */
export const ActorId = Type.String({
  minLength: 1,
  maxLength: 512,
  pattern: "^[^\\x00-\\x1f\\x7f]+$",
  description: "A user or installation id: 1 to 128 characters, no control characters",
});
// Nullable values and the status are type arrays and enums, not unions: the feed, the snapshot
// and introspection serialize them for every item (see `nullable`).
const Status = stringEnum(["active", "suspended", "revoked"]);
const NullableTimestamp = nullable(Timestamp);
const OperatorEventTypeSchema = stringEnum(operatorEventTypes);

// ---- examples ----------------------------------------------------------------------------------

const at = "2026-11-27T09:00:00.000Z";
const bindingId = "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a";
const appExample = {
  id: "crm",
  name: "CRM",
  capabilities: ["contacts.read", "contacts.write"],
  createdAt: at,
};
const entitlementExample = {
  appId: "crm",
  actorId: "user-42",
  status: "active",
  plan: "pro",
  capabilities: ["contacts.read"],
  validFrom: at,
  validUntil: null,
  sequence: 17,
  updatedAt: at,
};
const { updatedAt: _updatedAt, ...decisionExample } = entitlementExample;
const bindingExample = {
  id: bindingId,
  appId: "crm",
  audience: "crm-backend",
  requiredCapabilities: ["contacts.read"],
  credentialId: "svc_8f2a1c",
  status: "active",
  revokedAt: null,
  createdAt: at,
};
const subscriptionExample = {
  id: "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d",
  bindingId,
  appId: "crm",
  url: "https://crm.example.com/hooks/entitlements",
  eventTypes: null,
  enabled: true,
  disabledReason: null,
  failingSince: null,
  createdAt: at,
};

export const CreateAppBody = Type.Object(
  { id: AppId, name: Name, capabilities: Capabilities },
  {
    additionalProperties: false,
    examples: [{ id: "crm", name: "CRM", capabilities: ["contacts.read", "contacts.write"] }],
  },
);
export const AppSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    capabilities: Type.Array(Type.String()),
    createdAt: Timestamp,
  },
  { examples: [appExample] },
);
export const AppList = listOf(AppSchema);
export const AppParams = Type.Object({ id: AppId });

export const PutEntitlementBody = Type.Object(
  {
    status: Status,
    plan: Type.String({ minLength: 1, maxLength: 100 }),
    capabilities: Capabilities,
    validFrom: Type.Optional(Timestamp),
    validUntil: Type.Optional(NullableTimestamp),
  },
  {
    additionalProperties: false,
    examples: [
      { status: "active", plan: "pro", capabilities: ["contacts.read"], validFrom: at, validUntil: null },
    ],
  },
);
export type PutEntitlementBody = Static<typeof PutEntitlementBody>;

export const EntitlementSchema = Type.Object(
  {
    appId: Type.String(),
    actorId: Type.String(),
    status: Status,
    plan: Type.String(),
    capabilities: Type.Array(Type.String()),
    validFrom: Timestamp,
    validUntil: NullableTimestamp,
    sequence: Type.Integer({ description: "The change of the (tenant, app) stream that set this state" }),
    updatedAt: Timestamp,
  },
  { examples: [entitlementExample] },
);
export const EntitlementList = listOf(EntitlementSchema);
export const EntitlementHistoryEntry = Type.Object({
  sequence: Type.Integer({ description: "The change's sequence in the app's stream (as in the feed)" }),
  eventId: Uuid,
  entitlement: nullable(EntitlementSchema),
  occurredAt: Timestamp,
  changedBy: nullable(
    Type.String({
      format: "uuid",
      description:
        "The principal (user, access token) that made the change, as audit events name it; " +
        "null for changes recorded before principals were",
    }),
  ),
});
export const EntitlementHistory = Type.Object(
  {
    items: Type.Array(EntitlementHistoryEntry, { description: "Newest first" }),
    meta: Type.Object({
      hasMore: Type.Boolean(),
      nextCursor: Type.Union([Type.String(), Type.Null()]),
      prunedThrough: Type.Integer({
        description:
          "Changes of the app's stream up to this sequence are no longer kept (feed retention): " +
          "an actor's earlier changes are missing from its history (0: none pruned)",
      }),
    }),
  },
  {
    examples: [
      {
        items: [
          {
            sequence: 17,
            eventId: "1f2a3b4c-5d6e-4f7a-8b9c-0d1e2f3a4b5c",
            entitlement: entitlementExample,
            occurredAt: at,
            changedBy: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
          },
        ],
        meta: { hasMore: false, nextCursor: null, prunedThrough: 0 },
      },
    ],
  },
);
export const EntitlementParams = Type.Object({ appId: AppId, actorId: ActorId });
export const AppEntitlementsParams = Type.Object({ appId: AppId });

export const CreateBindingBody = Type.Object(
  {
    appId: AppId,
    audience: Type.String({ minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" }),
    requiredCapabilities: Capabilities,
  },
  {
    additionalProperties: false,
    examples: [{ appId: "crm", audience: "crm-backend", requiredCapabilities: ["contacts.read"] }],
  },
);
export const BindingSchema = Type.Object(
  {
    id: Uuid,
    appId: Type.String(),
    audience: Type.String(),
    requiredCapabilities: Type.Array(Type.String()),
    credentialId: Type.String({ description: "The binding's newest credential" }),
    status: Type.Union([Type.Literal("active"), Type.Literal("revoked")], {
      description:
        "revoked: every credential of the binding is refused and its webhook subscriptions stopped",
    }),
    revokedAt: NullableTimestamp,
    createdAt: Timestamp,
  },
  { examples: [bindingExample] },
);
export const BindingList = listOf(BindingSchema);
export const CreatedBinding = Type.Composite(
  [BindingSchema, Type.Object({ secret: Type.String({ description: "Shown only in this response" }) })],
  { examples: [{ ...bindingExample, secret: "<credential secret>" }] },
);
export const RotatedCredential = Type.Object(
  {
    bindingId: Uuid,
    credentialId: Type.String(),
    secret: Type.String({ description: "Shown only in this response" }),
    previousCredentialId: Type.Union([Type.String(), Type.Null()]),
    previousValidUntil: NullableTimestamp,
  },
  {
    examples: [
      {
        bindingId,
        credentialId: "svc_93bd07",
        secret: "<credential secret>",
        previousCredentialId: "svc_8f2a1c",
        previousValidUntil: "2026-11-28T09:00:00.000Z",
      },
    ],
  },
);
export const IdParams = Type.Object({ id: Uuid });

export const CreateSubscriptionBody = Type.Object(
  {
    bindingId: Type.Optional(Uuid),
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    eventTypes: Type.Optional(
      Type.Array(OperatorEventTypeSchema, {
        minItems: 1,
        maxItems: operatorEventTypes.length,
        uniqueItems: true,
        description:
          "Without `bindingId`: a tenant's operator subscription to these event types (rules/contract §8); " +
          "required then, and not allowed with `bindingId`",
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { bindingId, url: "https://crm.example.com/hooks/entitlements" },
      {
        url: "https://ops.example.com/hooks/hanse",
        eventTypes: ["exchange.upload.rejected", "exchange.delivery.overdue"],
      },
    ],
  },
);
export const SubscriptionSchema = Type.Object(
  {
    id: Uuid,
    bindingId: Type.Union([Uuid, Type.Null()], { description: "Null for an operator subscription" }),
    appId: Type.Union([Type.String(), Type.Null()], { description: "Null for an operator subscription" }),
    url: Type.String(),
    eventTypes: Type.Union([Type.Array(OperatorEventTypeSchema), Type.Null()], {
      description: "An operator subscription's event types (rules/contract §8); null for a binding's",
    }),
    enabled: Type.Boolean(),
    disabledReason: Type.Union([Type.String(), Type.Null()], { description: "Why deliveries stopped" }),
    failingSince: NullableTimestamp,
    createdAt: Timestamp,
  },
  { examples: [subscriptionExample] },
);
export const SubscriptionList = listOf(SubscriptionSchema);
export const CreatedSubscription = Type.Composite(
  [
    SubscriptionSchema,
    Type.Object({
      secret: Type.String({ description: "Standard Webhooks secret `whsec_…`, shown only here" }),
    }),
  ],
  { examples: [{ ...subscriptionExample, secret: "whsec_<base64 secret>" }] },
);

export const WebhookAttempt = Type.Object(
  {
    id: Uuid,
    deliveryId: Uuid,
    sequence: Type.Union([Type.Integer(), Type.Null()], {
      description: "The entitlement change's sequence; null for an operator event",
    }),
    attempt: Type.Integer(),
    attemptedAt: Timestamp,
    status: Type.Union([Type.Integer(), Type.Null()], {
      description: "HTTP status; null when no answer came",
    }),
    latencyMs: Type.Integer(),
    errorClass: Type.Union([Type.String(), Type.Null()], {
      description: "address, dns, timeout, connect, tls, protocol or http-<status>; null on success",
    }),
  },
  {
    examples: [
      {
        id: "8c9d0e1f-2a3b-4c4d-9e5f-6a7b8c9d0e1f",
        deliveryId: "0e1f2a3b-4c5d-4e6f-8a7b-8c9d0e1f2a3b",
        sequence: 17,
        attempt: 1,
        attemptedAt: at,
        status: 204,
        latencyMs: 48,
        errorClass: null,
      },
    ],
  },
);
export const WebhookAttemptList = listOf(WebhookAttempt);
/**
 * A sequence sent by a client. The columns are bigint, but sequences travel as JavaScript
 * numbers: above 2^53 − 1 a number is rounded (and from 2^63 on PostgreSQL refuses it), so the
 * schema bounds it and a larger one is a 400, not a 500 (issue 38).
 */
const sequenceInput = (minimum: number) => Type.Integer({ minimum, maximum: Number.MAX_SAFE_INTEGER });

export const RecoverBody = Type.Object(
  { fromSequence: sequenceInput(1) },
  { additionalProperties: false, examples: [{ fromSequence: 12 }] },
);
export const RecoverResult = Type.Object(
  {
    subscriptionId: Uuid,
    fromSequence: Type.Integer(),
    enqueued: Type.Integer({ description: "Deliveries queued (changes still in the feed)" }),
  },
  { examples: [{ subscriptionId: subscriptionExample.id, fromSequence: 12, enqueued: 6 }] },
);
export const RotatedWebhookSecret = Type.Object(
  {
    subscriptionId: Uuid,
    secret: Type.String({ description: "The new `whsec_…` secret, shown only here" }),
    previousSecretValidUntil: Timestamp,
  },
  {
    examples: [
      {
        subscriptionId: subscriptionExample.id,
        secret: "whsec_<base64 secret>",
        previousSecretValidUntil: "2026-11-28T09:00:00.000Z",
      },
    ],
  },
);

export const SigningKeySchema = Type.Object({
  kid: Type.String(),
  state: Type.Union(
    ["next", "scheduled", "signing", "retired", "expired", "withdrawn"].map((s) => Type.Literal(s)),
  ),
  createdAt: Timestamp,
  activatesAt: NullableTimestamp,
  retiresAt: NullableTimestamp,
  expiresAt: NullableTimestamp,
  withdrawnAt: NullableTimestamp,
});
export const SigningKeyList = Type.Object(
  { items: Type.Array(SigningKeySchema) },
  {
    examples: [
      {
        items: [
          {
            kid: "k-2026-11",
            state: "signing",
            createdAt: at,
            activatesAt: at,
            retiresAt: "2027-02-25T09:00:00.000Z",
            expiresAt: "2027-02-26T09:00:00.000Z",
            withdrawnAt: null,
          },
        ],
      },
    ],
  },
);
export const TenantParams = Type.Object({ tenantId: Uuid });
export const TenantKeyParams = Type.Object({
  tenantId: Uuid,
  kid: Type.String({ minLength: 1, maxLength: 100 }),
});
export const RotationResult = Type.Object(
  { kid: Type.String(), activatesAt: Timestamp },
  { examples: [{ kid: "k-2026-12", activatesAt: "2026-11-27T10:00:00.000Z" }] },
);

// ---- the service interface (rules/interface C) ------------------------------------------------------------

export const IntrospectParams = Type.Object({ actorId: ActorId });
export const Introspection = Type.Object(
  {
    tenantId: Uuid,
    appId: Type.String(),
    actorId: Type.String(),
    entitled: Type.Boolean(),
    status: nullable(Status),
    plan: nullable(Type.String()),
    capabilities: Type.Array(Type.String()),
    validFrom: NullableTimestamp,
    validUntil: NullableTimestamp,
    sequence: nullable(Type.Integer()),
    evaluatedAt: Timestamp,
  },
  {
    examples: [
      {
        tenantId: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
        ...decisionExample,
        entitled: true,
        evaluatedAt: "2026-11-27T10:00:00.000Z",
      },
    ],
  },
);

export const SnapshotQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    asOfSequence: Type.Optional(sequenceInput(0)),
  },
  { additionalProperties: false },
);
export const Snapshot = Type.Object(
  {
    asOfSequence: Type.Integer(),
    items: Type.Array(EntitlementSchema),
    meta: ListMetaSchema,
  },
  {
    examples: [{ asOfSequence: 17, items: [entitlementExample], meta: { hasMore: false, nextCursor: null } }],
  },
);

export const ChangesQuery = Type.Object(
  {
    afterSequence: sequenceInput(0),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  },
  { additionalProperties: false },
);
export const Change = Type.Object({
  sequence: Type.Integer(),
  eventId: Uuid,
  type: Type.Literal("entitlement.changed"),
  actorId: Type.String(),
  entitlement: nullable(EntitlementSchema),
  occurredAt: Timestamp,
});
export const Changes = Type.Object(
  {
    items: Type.Array(Change),
    meta: Type.Object({
      hasMore: Type.Boolean(),
      lastSequence: Type.Integer(),
      latestSequence: Type.Integer(),
    }),
  },
  {
    examples: [
      {
        items: [
          {
            sequence: 17,
            eventId: "1f2a3b4c-5d6e-4f7a-8b9c-0d1e2f3a4b5c",
            type: "entitlement.changed",
            actorId: "user-42",
            entitlement: entitlementExample,
            occurredAt: at,
          },
        ],
        meta: { hasMore: false, lastSequence: 17, latestSequence: 17 },
      },
    ],
  },
);

export const Grant = Type.Object(
  {
    grant: Type.String({ description: "JWS compact serialization, header typ entitlement-grant+jwt" }),
    expiresAt: Timestamp,
    keyId: Type.String(),
  },
  {
    examples: [
      { grant: "<header>.<claims>.<signature>", expiresAt: "2026-11-27T10:05:00.000Z", keyId: "k-2026-11" },
    ],
  },
);

export const Jwks = Type.Object(
  {
    keys: Type.Array(
      Type.Object({
        kty: Type.Literal("OKP"),
        crv: Type.Literal("Ed25519"),
        x: Type.String(),
        kid: Type.String(),
        alg: Type.Literal("EdDSA"),
        use: Type.Literal("sig"),
      }),
    ),
  },
  {
    examples: [
      {
        keys: [
          {
            kty: "OKP",
            crv: "Ed25519",
            x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
            kid: "k-2026-11",
            alg: "EdDSA",
            use: "sig",
          },
        ],
      },
    ],
  },
);

export { PageQuery };
