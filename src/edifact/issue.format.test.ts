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
});
