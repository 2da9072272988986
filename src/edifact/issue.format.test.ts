import { describe, expect, it } from "vitest";
import { parseInterchange } from "./index.js";
import { formatIssue } from "./issue.format.js";

describe("formatIssue", () => {
  it("prints control bytes of the input as \\xNN, never raw (a terminal would act on them)", () => {
    const input = Buffer.from(
      "UNB+UNOC:3+A:14+B:14+240315:1200+R1'U\x1b[2JH+1+ORDERS:D:96A:UN'UNZ+1+R1'",
      "latin1",
    );
    const lines = parseInterchange(input).issues.map(formatIssue);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.some((line) => line.includes("\\x1b"))).toBe(true);
    // eslint-disable-next-line no-control-regex
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it("names positions from 1 and the byte offset from 0; a missing segment is named where it was expected", () => {
    const noHeader = parseInterchange(Buffer.from("BGM+220+PO1+9'", "latin1")).issues.map(formatIssue);
    expect(noHeader[0]).toMatch(/^segment 1 \(where UNB was expected\), byte offset 0: \[13 Missing\]/);
    const bad = parseInterchange(
      Buffer.from(
        "UNB+UNOA:3+A:14+B:14+240315:1200+R1'UNH+1+ORDERS:D:96A:UN'BGM+220+Px+9'UNT+3+1'UNZ+1+R1'",
        "latin1",
      ),
    ).issues.map(formatIssue);
    expect(bad).toContain(
      'segment 3 (BGM), message position 2, element 2, component 1, byte offset 67: [21 Invalid character(s)] Invalid character "x" for UNOA',
    );
  });
});
