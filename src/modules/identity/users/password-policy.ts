import { dictionary } from "@zxcvbn-ts/language-common";

/**
 * The policy for a new password (rules/contract §7, NIST SP 800-63B): at least 15 and at most 1024
 * characters (Unicode code points, as JSON Schema counts them), not one of the most common
 * passwords, no composition rules. The list is zxcvbn-ts's common-password dictionary (the npm
 * package @zxcvbn-ts/language-common, MIT), taken into a set once, when this module loads.
 */
export const passwordLength = { min: 15, max: 1024 } as const;

/** The common passwords, in lower case: a password is refused when it equals one in any case. */
const commonPasswords: ReadonlySet<string> = new Set(
  dictionary["passwords-common"].map((password) => password.toLowerCase()),
);

/** How many passwords the list holds. */
export const commonPasswordCount = commonPasswords.size;

/** Why `password` cannot be a new password, or undefined when it can. */
export function newPasswordProblem(password: string): string | undefined {
  // Code points: a surrogate pair (an emoji, a rare CJK character) is one character.
  const length = password.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, "_").length;
  if (length < passwordLength.min) return `must be at least ${String(passwordLength.min)} characters`;
  if (length > passwordLength.max) return `must be at most ${String(passwordLength.max)} characters`;
  if (commonPasswords.has(password.toLowerCase())) {
    return "is one of the most common passwords; choose another";
  }
  return undefined;
}
