import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { latin1 } from "../testing/sample.fixture.js";
import { tokComp, tokElem, tokenize, tokenText, tokReleased, tokRep, type TokenTable } from "./tokenizer.js";

/** Segments as arrays of [element, component, value] for readable expectations. */
function segments(t: TokenTable): string[][] {
  const out: string[][] = [];
  for (let s = 0; s < t.segmentCount; s++) {
    const parts: string[] = [];
    for (let k = t.segToken[s] as number; k < (t.segToken[s + 1] as number); k++) {
      parts.push(
        `${tokElem(t, k)}.${tokComp(t, k)}${tokRep(t, k) ? `r${tokRep(t, k)}` : ""}=${tokenText(t, k)}`,
      );
    }
    out.push(parts);
  }
  return out;
}

describe("tokenizer edge cases", () => {
  const cases: { name: string; input: string; expected: string[][]; codes?: number[] }[] = [
    { name: "empty elements", input: "BGM+220++9'", expected: [["0.0=BGM", "1.0=220", "2.0=", "3.0=9"]] },
    { name: "empty components", input: "PAI+::42'", expected: [["0.0=PAI", "1.0=", "1.1=", "1.2=42"]] },
    { name: "trailing element separator", input: "BGM+220+'", expected: [["0.0=BGM", "1.0=220", "2.0="]] },
    { name: "trailing component separator", input: "DTM+137:'", expected: [["0.0=DTM", "1.0=137", "1.1="]] },
    {
      name: "segment without data elements",
      input: "SRC'UNS+S'",
      expected: [["0.0=SRC"], ["0.0=UNS", "1.0=S"]],
    },
    { name: "released component separator", input: "FTX+a?:b'", expected: [["0.0=FTX", "1.0=a:b"]] },
    { name: "released element separator", input: "FTX+a?+b'", expected: [["0.0=FTX", "1.0=a+b"]] },
    { name: "released terminator", input: "FTX+a?'b'", expected: [["0.0=FTX", "1.0=a'b"]] },
    { name: "released release character", input: "FTX+a??'", expected: [["0.0=FTX", "1.0=a?"]] },
    { name: "three releases then terminator", input: "FTX+a???''", expected: [["0.0=FTX", "1.0=a?'"]] },
    {
      name: "release before a component separator after a released release",
      input: "FTX+a???:b'",
      expected: [["0.0=FTX", "1.0=a?:b"]],
    },
    {
      name: "release character at the end of the input",
      input: "FTX+a?",
      expected: [["0.0=FTX", "1.0=a"]],
      codes: [22, 22],
    },
    {
      name: "no terminator on the last segment",
      input: "UNZ+1+1",
      expected: [["0.0=UNZ", "1.0=1", "2.0=1"]],
      codes: [22],
    },
    {
      name: "CR/LF between segments",
      input: "UNS+S'\r\nCNT+2:1'\n",
      expected: [
        ["0.0=UNS", "1.0=S"],
        ["0.0=CNT", "1.0=2", "1.1=1"],
      ],
    },
    {
      name: "BOM before UNB",
      input: "\u00ef\u00bb\u00bfUNB+UNOB:1+A+B+071101:1701+1'",
      expected: [["0.0=UNB", "1.0=UNOB", "1.1=1", "2.0=A", "3.0=B", "4.0=071101", "4.1=1701", "5.0=1"]],
    },
    {
      name: "UNA with unusual separators",
      input: "UNA^*.? $\nUNB*UNOA^1*A*B*000210^1434*1$UNH*1*X^D^97B^UN$",
      expected: [
        ["0.0=UNB", "1.0=UNOA", "1.1=1", "2.0=A", "3.0=B", "4.0=000210", "4.1=1434", "5.0=1"],
        ["0.0=UNH", "1.0=1", "2.0=X", "2.1=D", "2.2=97B", "2.3=UN"],
      ],
    },
    {
      name: "UNA with another release character",
      input: "UNA:+.\\ 'FTX+a\\'b\\\\'",
      expected: [["0.0=FTX", "1.0=a'b\\"]],
    },
    {
      name: "syntax 4 repetition separator (default *)",
      input: "UNB+UNOC:4+A+B+20240101:1200+1'FTX+AAA+++x*y+z:w'",
      expected: [
        ["0.0=UNB", "1.0=UNOC", "1.1=4", "2.0=A", "3.0=B", "4.0=20240101", "4.1=1200", "5.0=1"],
        ["0.0=FTX", "1.0=AAA", "2.0=", "3.0=", "4.0=x", "4.0r1=y", "5.0=z", "5.1=w"],
      ],
    },
    {
      name: "* is data under syntax 3",
      input: "UNB+UNOC:3+A+B+240101:1200+1'FTX+AAA+++x*y'",
      expected: [
        ["0.0=UNB", "1.0=UNOC", "1.1=3", "2.0=A", "3.0=B", "4.0=240101", "4.1=1200", "5.0=1"],
        ["0.0=FTX", "1.0=AAA", "2.0=", "3.0=", "4.0=x*y"],
      ],
    },
    {
      name: "release before a non-service character is flagged",
      input: "UNB+UNOC:3+A+B+240101:1200+1'FTX+?x'",
      expected: [
        ["0.0=UNB", "1.0=UNOC", "1.1=3", "2.0=A", "3.0=B", "4.0=240101", "4.1=1200", "5.0=1"],
        ["0.0=FTX", "1.0=x"],
      ],
      codes: [22],
    },
    {
      name: "lower case under UNOA is an invalid character",
      input: "UNB+UNOA:3+A+B+240101:1200+1'FTX+abc'",
      expected: [
        ["0.0=UNB", "1.0=UNOA", "1.1=3", "2.0=A", "3.0=B", "4.0=240101", "4.1=1200", "5.0=1"],
        ["0.0=FTX", "1.0=abc"],
      ],
      codes: [21],
    },
    { name: "empty input", input: "", expected: [] },
  ];

  it.each(cases)("$name", ({ input, expected, codes }) => {
    const t = tokenize(latin1(input));
    expect(segments(t)).toEqual(expected);
    expect(t.issues.map((i) => i.code)).toEqual(codes ?? []);
  });

  it("issue 23: a line feed that a UNA makes the release character is still layout after a terminator", () => {
    const input = latin1("UNA:+.\n 'UNB+UNOA:3+A+B'\r\n\u00fcTX+A'");
    const t = tokenize(input);
    expect(t.issues.map((i) => [i.code, i.offset])).toEqual([[21, input.indexOf(0xfc)]]);
    expect(segments(t)[1]).toEqual(["0.0=\u00fcTX", "1.0=A"]);
  });

  it("decodes each repertoire", () => {
    const utf8 = new TextEncoder().encode("UNB+UNOY:4+A+B+20240101:1200+1'FTX+Grüße €'");
    expect(tokenText(tokenize(utf8), 9)).toBe("Grüße €");
    const cyrillic = Uint8Array.from([
      ...latin1("UNB+UNOE:3+A+B+240101:1200+1'FTX+"),
      0xbf,
      0xe0,
      0xd8,
      0x27,
    ]);
    expect(tokenText(tokenize(cyrillic), 9)).toBe("При");
    const greek = Uint8Array.from([...latin1("UNB+UNOF:3+A+B+240101:1200+1'FTX+"), 0xe1, 0xe2, 0x27]);
    expect(tokenText(tokenize(greek), 9)).toBe("αβ");
    const latin2 = Uint8Array.from([...latin1("UNB+UNOD:3+A+B+240101:1200+1'FTX+"), 0xb9, 0x27]);
    expect(tokenText(tokenize(latin2), 9)).toBe("š");
    const latin1Text = Uint8Array.from([...latin1("UNB+UNOC:3+A+B+240101:1200+1'FTX+M"), 0xfc, 0x27]);
    expect(tokenText(tokenize(latin1Text), 9)).toBe("Mü");
  });

  it("flags malformed UTF-8 under UNOW", () => {
    const bad = Uint8Array.from([...latin1("UNB+UNOW:4+A+B+20240101:1200+1'FTX+"), 0xc3, 0x28, 0x27]);
    expect(tokenize(bad).issues.map((i) => i.code)).toEqual([21]);
  });

  it("records byte offsets and positions on every token", () => {
    const t = tokenize(latin1("UNS+S'\r\nCNT+2:1'"));
    expect([...t.tokStart.subarray(0, t.tokenCount)]).toEqual([0, 4, 8, 12, 14]);
    expect([...t.segStart.subarray(0, t.segmentCount)]).toEqual([0, 8]);
  });
});

describe("token table arrays", () => {
  it("hold exactly the tokens and segments found, whatever the input size (no unwritten slots)", () => {
    const segment = "LIN+1++4000862000001:EN'";
    for (const repeat of [1, 40, 5000]) {
      // 5000 segments is past the size that is sampled for the separator density.
      const input = Buffer.from(`UNB+UNOC:3+A+B+1+R'${segment.repeat(repeat)}UNZ+1+R'`, "latin1");
      const t = tokenize(input);
      expect(t.segmentCount).toBe(repeat + 2);
      expect(t.tokenCount).toBe(7 + 5 * repeat + 3);
      expect([t.tokStart.length, t.tokInfo.length]).toEqual([t.tokenCount, t.tokenCount]);
      expect([t.segStart.length, t.segEnd.length, t.segToken.length]).toEqual([
        t.segmentCount,
        t.segmentCount,
        t.segmentCount + 1,
      ]);
      expect(t.segToken[0]).toBe(0);
      expect(t.segToken[t.segmentCount]).toBe(t.tokenCount);
      expect(t.segStart[1]).toBe(19);
    }
  });

  it("grow when the input is denser than the estimate (every byte a separator)", () => {
    const input = Buffer.from(`UNB+UNOC:3+A+B+1+R'FTX${"+".repeat(8000)}'UNZ+1+R'`, "latin1");
    const t = tokenize(input);
    expect(t.segmentCount).toBe(3);
    expect((t.segToken[2] as number) - (t.segToken[1] as number)).toBe(8001);
    expect(t.tokStart.length).toBe(t.tokenCount);
  });
});

/**
 * The coordinates of every token by the rules alone, one character at a time (syntax 4
 * separators, repetition `*`): each field stops at its limit, where the tokenizer reports 16.
 */
function referenceCoordinates(input: string): string[] {
  const out: string[] = [];
  let [elem, comp, rep] = [0, 0, 0];
  for (let i = 0; i < input.length; i++) {
    const ch = input[i];
    if (ch === "?") {
      i++;
      continue;
    }
    if (ch !== ":" && ch !== "+" && ch !== "*" && ch !== "'") continue;
    out.push(`${elem}.${comp}r${rep}`);
    if (ch === ":") comp = Math.min(comp + 1, 1023);
    else if (ch === "+") [elem, comp, rep] = elem === 8191 ? [elem, comp, rep] : [elem + 1, 0, 0];
    else if (ch === "*") [comp, rep] = rep === 127 ? [comp, rep] : [0, rep + 1];
    else [elem, comp, rep] = [0, 0, 0];
  }
  return out;
}

function coordinates(t: TokenTable): string[] {
  const out: string[] = [];
  for (let k = 0; k < t.tokenCount; k++) out.push(`${tokElem(t, k)}.${tokComp(t, k)}r${tokRep(t, k)}`);
  return out;
}

describe("constituent counts (the hot loop counts unchecked; long segments are walked again)", () => {
  const v4 = (body: string) => `UNB+UNOC:4+A+B+20240101:1200+1'${body}UNZ+1+1'`;
  const codes = (input: string) => tokenize(latin1(input)).issues.map((i) => i.code);

  it("gives the reference coordinates to segments of any length, with and without overflow", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(":", "+", "*", "a", "?+", "'"), { maxLength: 3000 }),
        fc.array(fc.constantFrom(":", "+", "*", "a"), { minLength: 100, maxLength: 1400 }),
        (before, long) => {
          const input = v4(`FTX+${before.join("")}'FTX+${long.join("")}'`);
          expect(coordinates(tokenize(latin1(input)))).toEqual(referenceCoordinates(input));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("reports 16 once for more than 1,023 components of one element", () => {
    expect(codes(v4(`FTX+${":".repeat(1023)}'`))).toEqual([]);
    expect(codes(v4(`FTX+${":".repeat(1024)}'FTX+${":".repeat(2000)}'`))).toEqual([16, 16]);
  });

  it("reports 16 for more than 127 repetitions of one element", () => {
    expect(codes(v4(`FTX+${"*".repeat(127)}'`))).toEqual([]);
    expect(codes(v4(`FTX+${"*".repeat(128)}'`))).toEqual([16]);
  });

  it("reports 16 for more than 8,191 elements, also in an unterminated last segment", () => {
    expect(codes(v4(`FTX${"+".repeat(8191)}'`))).toEqual([]);
    expect(codes(v4(`FTX${"+".repeat(8192)}'`))).toEqual([16]);
    expect(codes(`UNB+UNOC:4+A+B+20240101:1200+1'FTX${"+".repeat(8192)}`)).toEqual([16, 22]);
  });

  it("issue 23: marks no token past element 8,191 as released (the scan's count carries into that flag)", () => {
    const t = tokenize(latin1(v4(`FTX${"+".repeat(8200)}a?:b'`)));
    const flags = Array.from({ length: t.tokenCount }, (_, k) => tokReleased(t, k));
    expect(flags.filter(Boolean)).toHaveLength(1);
    expect(tokenText(t, 8 + 8200)).toBe("a:b");
    expect(tokReleased(t, 8 + 8200)).toBe(true);
  });

  it("keeps the release flag of tokens in long segments", () => {
    const t = tokenize(latin1(v4(`FTX${"+a?:b".repeat(300)}'`)));
    expect(tokenText(t, 9)).toBe("a:b");
    expect(tokenText(t, 308)).toBe("a:b");
    expect(t.tokenCount).toBe(8 + 301 + 3);
  });
});
