import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tokComp, tokElem, tokenize, tokRep } from "./tokenizer.js";

/**
 * The tokenizer scans its input in windows of 64 KiB (simd-scan.ts). These tests compare it on
 * inputs of several windows with a reference written the plain way, one byte at a time, as the
 * rules read (UNOC, syntax 4 separators `:+'?*`): token starts, coordinates, segment ends and
 * the issues (code and offset, one finding per constituent as the tokenizer reports them).
 */
const HEAD = "UNB+UNOC:4+A+B+20240101:1200+1'";
const SEPARATORS = new Set([0x3a, 0x2b, 0x27, 0x3f, 0x2a]);
const bad = (b: number) => b < 0x20 || (b >= 0x7f && b < 0xa0);

interface Reference {
  tokens: string[];
  segEnds: number[];
  issues: string[];
}

function reference(bytes: Uint8Array): Reference {
  const n = bytes.length;
  const tokens: string[] = [];
  const segEnds: number[] = [];
  const issues: string[] = [];
  let last = "";
  let [elem, comp, rep, seg, start, released] = [0, 0, 0, 0, 0, false];
  const issue = (code: number, offset: number) => {
    const where = `${code}/${seg}/${elem}/${comp}/${rep}`;
    if (where !== last) issues.push(`${code}@${offset}`);
    last = where;
  };
  const token = () => tokens.push(`${start}:${elem}.${comp}r${rep}`);
  for (let i = 0; i < n; i++) {
    const b = bytes[i] as number;
    if (b === 0x3f) {
      if (i + 1 >= n) issue(22, i);
      else if (!SEPARATORS.has(bytes[i + 1] as number)) {
        issue(22, i);
        if (bad(bytes[i + 1] as number)) issue(21, i + 1);
      }
      released = true;
      i++;
      continue;
    }
    if (bad(b)) {
      issue(21, i);
      continue;
    }
    if (!SEPARATORS.has(b)) continue;
    token();
    start = i + 1;
    if (b === 0x3a) comp++;
    else if (b === 0x2b) [elem, comp, rep] = [elem + 1, 0, 0];
    else if (b === 0x2a) [comp, rep] = [0, rep + 1];
    else {
      segEnds.push(i);
      [elem, comp, rep] = [0, 0, 0];
      seg++;
      while (i + 1 < n && (bytes[i + 1] === 0x0d || bytes[i + 1] === 0x0a)) i++;
      start = i + 1;
    }
    released = false;
  }
  if (start < n || elem + comp + rep > 0 || released) {
    let end = n;
    while (end > start && (bytes[end - 1] === 0x0d || bytes[end - 1] === 0x0a)) end--;
    token();
    segEnds.push(end);
    issue(22, n);
  }
  return { tokens, segEnds, issues };
}

function actual(bytes: Uint8Array): Reference {
  const t = tokenize(bytes);
  const tokens: string[] = [];
  for (let k = 0; k < t.tokenCount; k++)
    tokens.push(`${t.tokStart[k] as number}:${tokElem(t, k)}.${tokComp(t, k)}r${tokRep(t, k)}`);
  return {
    tokens,
    segEnds: [...t.segEnd],
    issues: t.issues.map((i) => `${i.code}@${i.offset}`),
  };
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
        expect(actual(input)).toEqual(reference(input));
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
        expect(actual(input), `${name}, shifted by ${shift}`).toEqual(reference(input));
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
