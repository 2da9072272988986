import { describe, expect, it } from "vitest";
import { holdsNulEscape } from "./json-text.js";

describe("holdsNulEscape", () => {
  it("finds an escaped NUL in a string, not a literal backslash followed by u0000", () => {
    expect(holdsNulEscape(JSON.stringify({ email: "a\u0000@b.test" }))).toBe(true);
    expect(holdsNulEscape(JSON.stringify({ note: "\\u0000 is how JSON writes it" }))).toBe(false);
    expect(holdsNulEscape(JSON.stringify({ note: "\\\u0000" }))).toBe(true);
    expect(holdsNulEscape(JSON.stringify({ ok: "plain" }))).toBe(false);
  });

  it("walks each backslash run once (a quadratic scan would not end within the test's time-out)", () => {
    // 500,000 backslashes and "u0000", twice: each escape's backslash is itself escaped.
    const hostile = `${"\\".repeat(500_000)}u0000`.repeat(2);
    expect(holdsNulEscape(hostile)).toBe(false);
    expect(holdsNulEscape(hostile + String.raw`\\u0000`)).toBe(false);
    expect(holdsNulEscape(hostile + String.raw`\u0000`)).toBe(true);
  });
});
