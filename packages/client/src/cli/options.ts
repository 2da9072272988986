import { InvalidArgumentError } from "commander";

/** A commander option parser for a whole number in [min, max]; `what` names the option in the error. */
export const parseWhole = (what: string, min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!/^[0-9]{1,15}$/.test(value) || n < min || n > max) {
    throw new InvalidArgumentError(`${what}: a whole number from ${min} to ${max}`);
  }
  return n;
};

/**
 * `--collection-deadline`: seconds from 60 to 2592000 (30 days), or `none` (never overdue; kept as
 * the word: commander stores a parser's null as an empty string). `collectionDeadlineBody` turns
 * it into the request's field.
 */
export const parseCollectionDeadline = (value: string): number | "none" =>
  value === "none" ? "none" : parseWhole("--collection-deadline (or none)", 60, 2_592_000)(value);

/** The request's `collectionDeadlineSeconds` of a parsed `--collection-deadline`, if given. */
export const collectionDeadlineBody = (
  value: number | "none" | undefined,
): { collectionDeadlineSeconds?: number | null } =>
  value === undefined ? {} : { collectionDeadlineSeconds: value === "none" ? null : value };

/** A commander option parser for a JSON object (`--payload '{"a":1}'`). */
export const parseJsonObject = (value: string): Record<string, unknown> => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError("a JSON object");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new InvalidArgumentError("a JSON object");
  }
  return parsed as Record<string, unknown>;
};

/** A commander option parser for a list's `--order`: `asc` (oldest first) or `desc` (newest first). */
export const parseOrder = (value: string): "asc" | "desc" => {
  if (value !== "asc" && value !== "desc") throw new InvalidArgumentError("asc or desc");
  return value;
};
