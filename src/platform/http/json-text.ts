import { AppError } from "../errors/app-error.js";

/**
 * True when JSON text holds the escape `\u0000` (a NUL character in a string). PostgreSQL stores
 * no NUL in `text` or `jsonb`, so such a body can only fail later, deep in a statement; it is
 * refused before parsing instead. Linear: each backslash run is walked once.
 */
export function holdsNulEscape(text: string): boolean {
  for (let at = text.indexOf("\\u0000"); at >= 0; at = text.indexOf("\\u0000", at + 1)) {
    // The escape counts only if its backslash is not itself escaped: an even run before it.
    let run = 0;
    for (let i = at - 1; i >= 0 && text.charCodeAt(i) === 0x5c; i--) run++;
    if (run % 2 === 0) return true;
  }
  return false;
}

/** The answer to text holding U+0000, which PostgreSQL cannot store: the client's 400. */
export const nulTextError = (): AppError =>
  new AppError("ERR_VALIDATION", "Text in the request must not contain the character U+0000.", {
    errors: [{ pointer: "", message: "U+0000 is not allowed in text" }],
  });
