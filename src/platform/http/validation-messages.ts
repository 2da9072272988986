import type { ErrorObject } from "ajv";

/** One validation problem as the caller reads it: where (schema-relative) and what is expected. */
export interface ValidationProblem {
  /** The error whose instance path and schema path locate the problem. */
  readonly at: ErrorObject;
  readonly message: string;
}

const ARTICLE: Readonly<Record<string, string>> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
};

const FORMAT: Readonly<Record<string, string>> = {
  "date-time": "a date-time such as 2026-01-31T12:00:00Z (RFC 3339)",
  date: "a date such as 2026-01-31",
  uri: "an absolute URL",
  url: "an absolute URL",
  email: "an email address",
  uuid: "a UUID",
};

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What a single Ajv keyword expects, in words (never the value the caller sent). */
function expectation(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  const limit = Number(p.limit);
  switch (e.keyword) {
    case "type":
      return `must be ${String(p.type)
        .split(",")
        .map((t) => ARTICLE[t] ?? t)
        .join(" or ")}`;
    case "format":
      return `must be ${FORMAT[String(p.format)] ?? `in the ${String(p.format)} format`}`;
    case "minLength":
      return limit === 1 ? "must not be empty" : `must be at least ${plural(limit, "character")} long`;
    case "maxLength":
      return `must be at most ${plural(limit, "character")} long`;
    case "minimum":
      return `must be at least ${limit}`;
    case "maximum":
      return `must be at most ${limit}`;
    case "exclusiveMinimum":
      return `must be greater than ${limit}`;
    case "exclusiveMaximum":
      return `must be less than ${limit}`;
    case "minItems":
      return limit === 1 ? "must not be empty" : `must have at least ${plural(limit, "item")}`;
    case "maxItems":
      return `must have at most ${plural(limit, "item")}`;
    case "uniqueItems":
      return "must not contain the same item twice";
    case "enum":
      return oneOf(p.allowedValues as readonly unknown[]);
    case "const":
      return oneOf([p.allowedValue]);
    case "pattern":
      return `must match the pattern ${String(p.pattern)}`;
    case "required":
      return "is required";
    case "additionalProperties":
      return "unknown field";
    case "minProperties":
      return limit === 1 ? "must not be empty" : `must have at least ${plural(limit, "member")}`;
    default:
      return e.message ?? "is not valid";
  }
}

const shownValue = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

function oneOf(values: readonly unknown[]): string {
  const shown = [...new Set(values.map(shownValue))];
  return shown.length === 1 ? `must be ${shown[0] ?? ""}` : `must be one of ${shown.join(", ")}`;
}

const within = (e: ErrorObject, union: ErrorObject): boolean =>
  e.schemaPath.startsWith(`${union.schemaPath}/`);

/**
 * A union (`anyOf`, what `Type.Union` writes) as one problem: a union of constants is "must be
 * one of A, B"; a union with other members reports the member that got furthest into the value
 * (its deepest errors), or else the constants and types it allows.
 */
function union(union: ErrorObject, branches: readonly ErrorObject[]): ValidationProblem[] {
  const deeper = branches.filter((b) => b.instancePath.length > union.instancePath.length);
  if (deeper.length > 0) return describeErrors(deeper);
  const here = branches.filter((b) => b.keyword !== "anyOf" && b.keyword !== "oneOf");
  const branchOf = (b: ErrorObject): string => b.schemaPath.slice(0, b.schemaPath.lastIndexOf("/"));
  const constants = here.filter((b) => b.keyword === "const" || b.keyword === "enum");
  const values = constants.flatMap((b) => {
    const p = b.params as { allowedValue?: unknown; allowedValues?: unknown[] };
    return b.keyword === "const" ? [p.allowedValue] : (p.allowedValues ?? []);
  });
  // A member that is no constant allows a whole type: name it beside the constants.
  const constantBranches = new Set(constants.map(branchOf));
  const types = here
    .filter((b) => b.keyword === "type" && !constantBranches.has(branchOf(b)))
    .map((b) => ARTICLE[String((b.params as { type?: unknown }).type)] ?? "another value");
  if (types.length === 0) return [{ at: union, message: values.length > 0 ? oneOf(values) : "is not valid" }];
  const allowed = [...new Set([...values.map(shownValue), ...types])];
  return [{ at: union, message: `must be ${allowed.join(" or ")}` }];
}

/**
 * Ajv's errors (with `allErrors`) as problems a person can act on: one per union instead of
 * its trail of `const`/`type`/`anyOf` errors, and each keyword's expectation in words.
 */
export function describeErrors(errors: readonly ErrorObject[]): ValidationProblem[] {
  const unions = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  // The outermost unions: an inner union is one of an outer union's branch errors.
  const outer = unions.filter((u) => !unions.some((o) => o !== u && within(u, o)));
  const out: ValidationProblem[] = [];
  for (const e of errors) {
    const owner = outer.find((u) => u === e || within(e, u));
    if (!owner) out.push({ at: e, message: expectation(e) });
    else if (owner === e)
      out.push(
        ...union(
          e,
          errors.filter((b) => within(b, e)),
        ),
      );
  }
  return out;
}
