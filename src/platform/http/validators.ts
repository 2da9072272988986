import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import * as addFormatsModule from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";

// ajv-formats is CommonJS; its default export arrives wrapped under ESM interop.
const addFormats = addFormatsModule.default as unknown as (ajv: Ajv) => Ajv;

const base: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

/** How an integer is written in a query string, a path or a header: decimal digits only. */
const decimalInteger = /^[+-]?[0-9]+$/;

/** Names of the top-level properties declared as integers. */
function integerProperties(schema: object): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.keys(properties).filter((key) => properties[key]?.type === "integer");
}

/**
 * Ajv coerces any text JavaScript reads as a whole number ("1e2", "0x10", " 7") to an integer;
 * a parameter declared as an integer accepts decimal digits only, so `limit=1e2` is a 400
 * rather than silently 100.
 */
function digitsOnly(validate: ValidateFunction, integers: string[]): ValidateFunction {
  const check = ((data: unknown) => {
    const values = (data ?? {}) as Record<string, unknown>;
    for (const key of integers) {
      const raw = values[key];
      const texts = Array.isArray(raw) ? raw : [raw];
      if (texts.some((text) => typeof text === "string" && !decimalInteger.test(text))) {
        const error: ErrorObject = {
          instancePath: `/${key}`,
          schemaPath: `#/properties/${key}/type`,
          keyword: "type",
          params: { type: "integer" },
          message: "must be integer",
        };
        check.errors = [error];
        return false;
      }
    }
    const valid = validate(data);
    check.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return check;
}

/**
 * Bodies are validated as sent (a number is not a string); query strings, params and headers
 * arrive as text and are coerced to the declared types (integers only from decimal digits).
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const exact = addFormats(new Ajv({ ...base, coerceTypes: false }));
  const coercing = addFormats(new Ajv({ ...base, coerceTypes: "array" }));
  return ({ schema, httpPart }) => {
    if (httpPart === "body") return exact.compile(schema as object);
    const validate = coercing.compile(schema as object);
    const integers = integerProperties(schema as object);
    return integers.length > 0 ? digitsOnly(validate, integers) : validate;
  };
}
