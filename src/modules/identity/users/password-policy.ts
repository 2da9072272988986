/**
 * The policy for a new password (CONTRACT §7, NIST SP 800-63B): at least 15 and at most 1024
 * characters (Unicode code points, as JSON Schema counts them), no composition rules. The next
 * step adds the list of the most common passwords here. Pure: no I/O.
 */
export const passwordLength = { min: 15, max: 1024 } as const;

/** Why `password` cannot be a new password, or undefined when it can. */
export function newPasswordProblem(password: string): string | undefined {
  // Code points: a surrogate pair (an emoji, a rare CJK character) is one character.
  const length = password.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, "_").length;
  if (length < passwordLength.min) return `must be at least ${String(passwordLength.min)} characters`;
  if (length > passwordLength.max) return `must be at most ${String(passwordLength.max)} characters`;
  return undefined;
}
