import { describe, expect, it } from "vitest";
import { getDirectory } from "../directories/directory.registry.js";
import { latin1 } from "../testing/sample.fixture.js";
import { validateInterchange } from "../validation/interchange.validator.js";
import { parseInterchange } from "./interchange.parser.js";

const TAIL = "UNB+UNOA:3+A+B+991231:2359+X'UNH+1+ORDERS:D:96A:UN'UNT+2+1'UNZ+1+X'";

describe("issue 20 defect 2: a UNA whose service characters are not all distinct is rejected at once", () => {
  // The input of the issue: release character = segment terminator, then n terminators.
  for (const size of [64 * 1024, 1024 * 1024]) {
    it(`release character = segment terminator, ${size / 1024} KiB: one clear issue, nothing read`, () => {
      const parsed = parseInterchange(latin1("UNA:+.' '" + "'".repeat(size) + TAIL));
      expect(parsed.issues.map((i) => [i.code, i.level, i.tag, i.text])).toEqual([
        [
          20,
          "interchange",
          "UNA",
          `UNA advises the same character ("'") as segment terminator and release character; the interchange cannot be read`,
        ],
        [13, "interchange", "UNB", "The interchange was not read: its UNA service string advice is unusable"],
      ]);
      // Linear by construction: not one segment (the quadratic part) was tokenized.
      expect(parsed.interchange.segmentCount).toBe(0);
      expect(parsed.interchange.tokens.tokenCount).toBe(0);
      const report = validateInterchange(parsed, { directory: getDirectory("D96A") });
      expect(report.interchangeAccepted).toBe(false);
    });
  }

  const cases: [string, string][] = [
    ["UNA::.? '", `UNA advises the same character (":") as component separator and data element separator`],
    ["UNA:+.?+'", `UNA advises the same character ("+") as data element separator and repetition separator`],
    ["UNA:+.:*'", `UNA advises the same character (":") as component separator and release character`],
    ["UNA:+.? A", 'UNA advises "A" as segment terminator'],
    ["UNA +.? '", "UNA advises a space as component separator"],
  ];
  for (const [una, text] of cases) {
    it(`${una}: ${text}`, () => {
      const parsed = parseInterchange(latin1(una + TAIL));
      expect(parsed.issues[0]?.text).toBe(`${text}; the interchange cannot be read`);
      expect(parsed.interchange.segmentCount).toBe(0);
    });
  }

  it("a valid UNA with unusual characters is still read", () => {
    const parsed = parseInterchange(latin1("UNA^*.? $UNB*UNOA^3*A*B*991231^2359*X$UNZ*0*X$"));
    expect(parsed.interchange.header?.controlRef).toBe("X");
    expect(parsed.issues.map((i) => i.code)).not.toContain(20);
  });
});
