import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { errorCodes, problemType, reasonPhrases, type ErrorCode } from "@hanse/client/protocol";

export const ProblemSchema = Type.Object(
  {
    type: Type.String({
      description: "`urn:hanse:error:<code>`",
      examples: ["urn:hanse:error:ERR_VALIDATION"],
    }),
    title: Type.String({ description: "The status's reason phrase" }),
    status: Type.Integer({ description: "The HTTP status" }),
    code: Type.String({ description: "Stable error code; its HTTP status never changes" }),
    detail: Type.String({
      description: "What went wrong, for people; never a secret or the request's payload",
    }),
    correlationId: Type.String({ description: "As in the X-Correlation-ID response header" }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          pointer: Type.String({ description: "JSON pointer into the request (`/query/limit`, `/name`)" }),
          message: Type.String(),
        }),
        { description: "Field errors of a validation failure (at most 20)" },
      ),
    ),
  },
  { $id: "Problem", description: "RFC 9457 problem details (application/problem+json)" },
);

/** The first (generic) code of each status in the error table, for examples. */
const genericCodes = new Map<number, ErrorCode>();
for (const [code, status] of Object.entries(errorCodes)) {
  if (!genericCodes.has(status)) genericCodes.set(status, code as ErrorCode);
}

/** A problem body as the server writes it, for the document's examples. */
export function problemExample(status: number, code: ErrorCode = genericCodes.get(status) ?? "ERR_INTERNAL") {
  const validation = code === "ERR_VALIDATION" || code === "ERR_B2B_EXCHANGE_INVALID_REQUEST";
  return {
    type: problemType(code),
    title: reasonPhrases[status] ?? "Error",
    status,
    code,
    detail: status >= 500 && status !== 503 ? "Internal error" : `${reasonPhrases[status] ?? "Error"}.`,
    correlationId: "3f1c9d2e-5b7a-4c1e-9f0a-2b6d8e4c7a15",
    ...(validation ? { errors: [{ pointer: "/name", message: "required field is missing" }] } : {}),
  };
}

/** Response schemas for the given error statuses, all `application/problem+json` with an example. */
export function problemResponses(...statuses: number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  for (const status of statuses) {
    out[status] = {
      description: reasonPhrases[status] ?? "Error",
      content: {
        "application/problem+json": { schema: Type.Ref("Problem"), example: problemExample(status) },
      },
    };
  }
  return out;
}

/** Every route may answer these. */
export const commonErrorStatuses = [400, 500, 503];

/** The headers of a 202 that accepted asynchronous work under an idempotency key. */
export const acceptedHeaders = (location: string) => ({
  Location: { type: "string", description: location },
  "Retry-After": { type: "integer", description: "Seconds before polling the status" },
  "Idempotent-Replayed": { type: "string", enum: ["true"], description: "On a replayed answer" },
});

export const ListMetaSchema = Type.Object({
  hasMore: Type.Boolean(),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

/** A page of items; its example is a one-item last page of the item's example, when it has one. */
export const listOf = <T extends TSchema>(item: T) => {
  const [itemExample] = (item.examples as unknown[] | undefined) ?? [];
  return Type.Object(
    { items: Type.Array(item), meta: ListMetaSchema },
    itemExample === undefined
      ? {}
      : { examples: [{ items: [itemExample], meta: { hasMore: false, nextCursor: null } }] },
  );
};

export const Timestamp = Type.String({ format: "date-time", description: "RFC 3339 UTC with milliseconds" });
export const Uuid = Type.String({ format: "uuid" });

/**
 * `schema` or null as one JSON Schema type array (OpenAPI 3.1), for a schema with one `type`.
 * fast-json-stringify writes it directly, where it checks an `anyOf` (`Type.Union([x,
 * Type.Null()])`) with ajv for every value it serializes: a 1,000-change feed page took 5.1 ms
 * to serialize with unions and 2.2 ms like this (docs/decisions.md).
 */
export const nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({
    ...schema,
    type: [schema.type as string, "null"],
    ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}),
  });

/** One of `values` as a string `enum` (serialized directly, unlike a union of literals). */
export const stringEnum = <const V extends readonly string[]>(values: V) =>
  Type.Unsafe<V[number]>({ type: "string", enum: [...values] });

/**
 * Paging alone, for the logs that are newest first by nature (an actor's entitlement changes, a
 * webhook subscription's attempts) and the partner's mailbox, which keeps its order.
 */
export const PagingQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false },
);

/** `order` of an admin list (rules/contract §8): creation order, oldest first unless `desc`. */
export const OrderQuery = {
  order: Type.Optional({
    ...stringEnum(["asc", "desc"] as const),
    default: "asc",
    description: "`asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order",
  }),
};

export const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    ...OrderQuery,
  },
  { additionalProperties: false },
);
