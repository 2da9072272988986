import { Ajv, type Options } from "ajv";
import * as addFormatsModule from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";

// ajv-formats is CommonJS; its default export arrives wrapped under ESM interop.
const addFormats = addFormatsModule.default as unknown as (ajv: Ajv) => Ajv;

const base: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

/**
 * Bodies are validated as sent (a number is not a string); query strings, params and headers
 * arrive as text and are coerced to the declared types.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const exact = addFormats(new Ajv({ ...base, coerceTypes: false }));
  const coercing = addFormats(new Ajv({ ...base, coerceTypes: "array" }));
  return ({ schema, httpPart }) => (httpPart === "body" ? exact : coercing).compile(schema as object);
}
