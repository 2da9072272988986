import { Type } from "@sinclair/typebox";
import { OrderQuery, Timestamp, Uuid, listOf } from "../../platform/http/openapi-schemas.js";

const Name = (description: string) =>
  Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z][a-z0-9_]*$", description });

// ---- examples ----------------------------------------------------------------------------------

const productWorkflow = {
  kind: "product",
  states: ["draft", "in_review", "published"],
  initialState: "draft",
  transitions: [
    { name: "submit", from: ["draft"], to: "in_review" },
    { name: "publish", from: ["in_review"], to: "published" },
  ],
};
const entityId = "4b1e8f2a-6c3d-4e5f-9a0b-1c2d3e4f5a6b";
const requestId = "c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e0f";
const at = "2026-11-27T09:00:00.000Z";
const adapterExample = {
  id: "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b",
  kind: "product",
  url: "https://pim.example.com/hanse/lifecycle",
  timeoutMs: 5000,
  maxAttempts: 5,
  createdAt: at,
};

// ---- definitions -------------------------------------------------------------------------------

export const TransitionSchema = Type.Object(
  {
    name: Name("Transition name"),
    from: Type.Array(Name("State"), { minItems: 1, maxItems: 64, uniqueItems: true }),
    to: Name("State"),
  },
  { additionalProperties: false },
);

export const CreateDefinitionBody = Type.Object(
  {
    kind: Name("Entity kind, unique in the tenant"),
    states: Type.Array(Name("State"), { minItems: 1, maxItems: 64 }),
    initialState: Name("State of a new entity"),
    transitions: Type.Array(TransitionSchema, { minItems: 1, maxItems: 128 }),
  },
  { additionalProperties: false, examples: [productWorkflow] },
);

export const DefinitionSchema = Type.Object(
  {
    kind: Type.String(),
    states: Type.Array(Type.String()),
    initialState: Type.String(),
    transitions: Type.Array(
      Type.Object({ name: Type.String(), from: Type.Array(Type.String()), to: Type.String() }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { examples: [{ ...productWorkflow, createdAt: at, updatedAt: at }] },
);

export const DefinitionList = listOf(DefinitionSchema);
export const KindParams = Type.Object({ kind: Type.String({ minLength: 1, maxLength: 64 }) });

// ---- entities ----------------------------------------------------------------------------------

export const Attributes = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Free-form attributes (a JSON object), e.g. `{"gtin":"4006381333931"}` for products',
});

export const CreateEntityBody = Type.Object(
  {
    kind: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "An entity kind with a workflow definition",
    }),
    attributes: Attributes,
  },
  { additionalProperties: false, examples: [{ kind: "product", attributes: { gtin: "4006381333931" } }] },
);

export const EntitySchema = Type.Object(
  {
    id: Uuid,
    kind: Type.String(),
    state: Type.String(),
    version: Type.Integer({ minimum: 1, description: "Grows by one with every applied transition" }),
    attributes: Attributes,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    examples: [
      {
        id: entityId,
        kind: "product",
        state: "draft",
        version: 1,
        attributes: { gtin: "4006381333931" },
        createdAt: at,
        updatedAt: at,
      },
    ],
  },
);

export const EntityList = listOf(EntitySchema);

export const EntityListQuery = Type.Object(
  {
    kind: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    ...OrderQuery,
  },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

// ---- transition requests -----------------------------------------------------------------------

export const TransitionRequestBody = Type.Object(
  {
    entity: Type.String({ minLength: 1, maxLength: 64, description: "Entity kind, e.g. `product`" }),
    entityId: Type.String({ format: "uuid", description: "The entity's id" }),
    transition: Type.String({ minLength: 1, maxLength: 64, description: "Transition name, e.g. `submit`" }),
    payload: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: "Any JSON object; part of the request's identity and passed to a lifecycle adapter",
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { entity: "product", entityId, transition: "submit", payload: { comment: "ready for review" } },
    ],
  },
);

export const TransitionRequestAccepted = Type.Object(
  {
    requestId: Uuid,
    status: Type.Literal("pending"),
    statusUrl: Type.String({ description: "/api/v1/workflows/transition-requests/{requestId}" }),
  },
  {
    examples: [
      { requestId, status: "pending", statusUrl: `/api/v1/workflows/transition-requests/${requestId}` },
    ],
  },
);

const RequestStatus = Type.Union([
  Type.Literal("pending"),
  Type.Literal("processing"),
  Type.Literal("succeeded"),
  Type.Literal("failed"),
]);

export const TransitionRequestStatusSchema = Type.Object(
  {
    requestId: Uuid,
    status: RequestStatus,
    entity: Type.String(),
    entityId: Uuid,
    transition: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    completedAt: Type.Union([Timestamp, Type.Null()]),
    result: Type.Union([Type.Object({ fromState: Type.String(), toState: Type.String() }), Type.Null()]),
    error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  },
  {
    examples: [
      {
        requestId,
        status: "succeeded",
        entity: "product",
        entityId,
        transition: "submit",
        createdAt: at,
        updatedAt: "2026-11-27T09:00:00.250Z",
        completedAt: "2026-11-27T09:00:00.250Z",
        result: { fromState: "draft", toState: "in_review" },
        error: null,
      },
    ],
  },
);

export const TransitionRequestList = listOf(TransitionRequestStatusSchema);

export const TransitionRequestListQuery = Type.Object(
  {
    entityId: Type.Optional(
      Type.String({ format: "uuid", description: "Only the requests for this entity" }),
    ),
    status: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 32,
        description: "Only the requests in this status: `pending`, `processing`, `succeeded` or `failed`",
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    ...OrderQuery,
  },
  { additionalProperties: false },
);

export const RequestIdParams = Type.Object({ requestId: Type.String({ maxLength: 64 }) });

export const TransitionHeaders = Type.Object({
  "x-tenant-id": Type.String({
    description: "The credential's tenant",
    examples: ["9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"],
  }),
  "x-idempotency-key": Type.String({
    description: "1–255 characters of any kind, sent as UTF-8",
    examples: ["submit-product-4b1e8f2a-1"],
  }),
});

export const StatusHeaders = Type.Object({
  "x-tenant-id": Type.Optional(Type.String({ description: "When sent, the credential's tenant" })),
});

// ---- lifecycle adapters ------------------------------------------------------------------------

export const CreateAdapterBody = Type.Object(
  {
    kind: Type.String({ minLength: 1, maxLength: 64, description: "Entity kind the adapter guards" }),
    url: Type.String({ minLength: 9, maxLength: 2048, pattern: "^https://", description: "HTTPS URL" }),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 30_000, default: 5000 })),
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 5 })),
  },
  {
    additionalProperties: false,
    examples: [
      { kind: "product", url: "https://pim.example.com/hanse/lifecycle", timeoutMs: 5000, maxAttempts: 5 },
    ],
  },
);

export const AdapterSchema = Type.Object(
  {
    id: Uuid,
    kind: Type.String(),
    url: Type.String(),
    timeoutMs: Type.Integer(),
    maxAttempts: Type.Integer(),
    createdAt: Timestamp,
  },
  { examples: [adapterExample] },
);

export const CreatedAdapter = Type.Composite(
  [
    AdapterSchema,
    Type.Object({
      secret: Type.String({ description: "Standard Webhooks signing secret (`whsec_…`); shown only here" }),
    }),
  ],
  { examples: [{ ...adapterExample, secret: "whsec_<base64 secret>" }] },
);

export const AdapterList = listOf(AdapterSchema);
