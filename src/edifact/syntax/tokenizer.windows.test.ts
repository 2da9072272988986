import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareWithReference } from "../testing/tokenizer-reference.fixture.js";
import { MAX_ISSUES, tokenize } from "./tokenizer.js";

/**
 * The tokenizer scans its input in windows of 64 KiB (simd-scan.ts). These tests compare it on
 * inputs of several windows with the reference written the plain way, one byte at a time, as the
 * rules read (tokenizer.reference.ts; here UNOC, syntax 4 separators `:+'?*`): token starts,
 * coordinates, segment ends and the issues (code, offset and place, one finding per constituent
 * as the tokenizer reports them). tokenizer.reference.test.ts varies separators and repertoires.
 */
const HEAD = "UNB+UNOC:4+A+B+20240101:1200+1'";

/** The first difference from the reference ("" when none); these inputs stay below the issue cap. */
function difference(input: Uint8Array): string {
  const { difference, findings } = compareWithReference(input);
  expect(findings).toBeLessThan(MAX_ISSUES);
  return difference ?? "";
}

const latin1 = (text: string) => Buffer.from(text, "latin1");

describe("tokenizer windows", () => {
  it("agrees with the byte-by-byte reference on inputs of several windows", () => {
    const piece = fc.oneof(
      {
        weight: 40,
        arbitrary: fc.constantFrom("LIN+1++4000862000001:EN'", "IMD+F++:::Art?'s 500 ml'", "QTY+21:4:PCE'"),
      },
      { weight: 3, arbitrary: fc.constantFrom("'\r\n", "\r\n", "??", "?'", "?+", "*", ":", "+", "FTX+a") },
      { weight: 1, arbitrary: fc.constantFrom("?a", "?\u0001", "\u0001", "\u0085", "?") },
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 3000, maxLength: 9000 }), (pieces) => {
        const input = latin1(HEAD + pieces.join(""));
        expect(difference(input)).toBe("");
      }),
      { numRuns: 25 },
    );
  });

  it("carries a release character, line breaks and a token across the window boundary", () => {
    const window = 65536;
    const filler = (length: number) => "FTX+" + "a".repeat(length - 5) + "'";
    for (const [name, tail] of [
      ["release at the last byte of a window", "?'b'"],
      ["line breaks across the boundary", "'\r\n\r\nUNS+S'"],
      ["a token across the boundary", "abcdef:ghi'"],
      ["a released release character across the boundary", "??'"],
    ] as const) {
      for (const shift of [0, 1, 2, 3]) {
        const before = HEAD + filler(window - HEAD.length - 1 - shift) + "FTX+";
        const input = latin1(before.slice(0, window - 1) + tail + "UNZ+1+1'");
        expect(difference(input), `${name}, shifted by ${shift}`).toBe("");
      }
    }
  });

  it("lists one invalid character per constituent however many it holds", () => {
    const input = latin1(HEAD + "FTX+" + "a\u0001".repeat(40000) + "+b\u0001'");
    expect(tokenize(input).issues.map((i) => `${i.code}@${i.offset}`)).toEqual(["21@36", "21@80037"]);
  });

  it("lists at most 1,000 character issues and says there are more, as on one window", () => {
    const input = latin1(HEAD + "FTX+a\u0001'".repeat(40000));
    const t = tokenize(input);
    expect(t.issues).toHaveLength(1001);
    expect(t.issues.at(-1)?.code).toBe(18);
  });
});
