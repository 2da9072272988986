import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { reasonPhrases } from "../../protocol/error-codes.js";

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ examples: ["urn:hanse:error:ERR_VALIDATION"] }),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.String({ description: "Stable error code" }),
    detail: Type.String(),
    correlationId: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ pointer: Type.String(), message: Type.String() }))),
  },
  { $id: "Problem", description: "RFC 9457 problem details" },
);

/** Response schemas for the given error statuses, all `application/problem+json`. */
export function problemResponses(...statuses: number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  for (const status of statuses) {
    out[status] = {
      description: reasonPhrases[status] ?? "Error",
      content: { "application/problem+json": { schema: Type.Ref("Problem") } },
    };
  }
  return out;
}

/** Every route may answer these. */
export const commonErrorStatuses = [400, 500, 503];

export const ListMetaSchema = Type.Object({
  hasMore: Type.Boolean(),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export const listOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), meta: ListMetaSchema });

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

export const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false },
);
