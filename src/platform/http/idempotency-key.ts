import { characterCount, idempotencyKeyPattern, workflowKeyMaxCharacters } from "@hanse/client/protocol";
import { AppError } from "../errors/app-error.js";

/** Which key syntax an endpoint takes. */
export interface IdempotencyKeyRule {
  /** The header's name as documented, for the message and the pointer. */
  readonly header: string;
  /**
   * `visible-ascii`: 1–255 of `!`…`~` (tenant creation, rules/contract §3). `any`: 1–255 characters of
   * any kind (workflow transitions, rules/interface Limits), counted after UTF-8 decoding.
   */
  readonly characters: "visible-ascii" | "any";
}

/**
 * The key of an idempotent request: missing or empty (Node trims surrounding blanks, so blanks
 * alone are empty too) → 400 ERR_IDEMPOTENCY_KEY_REQUIRED; outside the rule → 400 ERR_VALIDATION
 * with the header's pointer. The key itself never appears in the answer.
 */
export function requireIdempotencyKey(
  value: string | string[] | undefined,
  rule: IdempotencyKeyRule,
): string {
  if (value === undefined || value === "" || Array.isArray(value)) {
    throw new AppError("ERR_IDEMPOTENCY_KEY_REQUIRED", `The ${rule.header} header is required.`);
  }
  const valid =
    rule.characters === "visible-ascii"
      ? idempotencyKeyPattern.test(value)
      : decodedCharacters(value) <= workflowKeyMaxCharacters;
  if (!valid) {
    const expected =
      rule.characters === "visible-ascii" ? "1–255 visible ASCII characters" : "at most 255 characters";
    throw new AppError("ERR_VALIDATION", `The ${rule.header} header must be ${expected}.`, {
      errors: [{ pointer: `/headers/${rule.header.toLowerCase()}`, message: expected }],
    });
  }
  return value;
}

/** Node hands header values over as latin1, one character per byte: count the UTF-8 characters. */
function decodedCharacters(value: string): number {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(value)) return value.length;
  return characterCount(Buffer.from(value, "latin1").toString("utf8"));
}
