import { describe, expect, it } from "vitest";
import { getDirectory } from "./directories/directory.registry.js";
import { parseInterchange } from "./envelope/interchange.parser.js";
import { MAX_ISSUE_TAG, MAX_ISSUE_TEXT, MAX_REPORTED_ISSUES, MAX_SHOWN_VALUE } from "./issue.types.js";
import type { EdifactIssue } from "./issue.types.js";
import { buildContrl } from "./messages/contrl.builder.js";
import { serializeInterchange } from "./messages/serializer.js";
import { latin1, outbound } from "./testing/sample.fixture.js";
import { validateInterchange } from "./validation/interchange.validator.js";

/** Characters an issue holds of the input (tag and text), what its memory grows with. */
const issueChars = (issues: readonly EdifactIssue[]): number =>
  issues.reduce((sum, i) => sum + i.text.length + (i.tag?.length ?? 0), 0);

function check(text: string) {
  const parsed = parseInterchange(latin1(text));
  const report = validateInterchange(parsed, { directory: getDirectory("D96A") });
  return { parsed, report };
}

function expectBounded(issues: readonly EdifactIssue[]): void {
  for (const issue of issues) {
    expect(issue.tag?.length ?? 0).toBeLessThanOrEqual(MAX_ISSUE_TAG + 1);
    expect(issue.text.length).toBeLessThanOrEqual(MAX_ISSUE_TEXT + 1);
  }
}

describe("issue 20 defect 1: issues never copy input beyond a small bound", () => {
  const hostile = (bytes: number): string =>
    "UNB+UNOA:3+A+B+991231:2359+X'" + "?x$".repeat(Math.ceil(bytes / 3)) + "'UNZ+0+X'";

  it("a segment of 800 KiB of released garbage gives issues with cut tags and short texts", () => {
    const { parsed, report } = check(hostile(800 * 1024));
    expect(report.issues.length).toBeGreaterThan(1000);
    expectBounded(report.issues);
    const first = report.issues.find((i) => i.code === 33);
    expect(first?.tag).toBe("x$x$x$x$…");
    expect(first?.text).toBe("Segment x$x$x$x$… outside a message");
    // Total: well under a kilobyte per issue, against ~550 MB (800 KiB per issue) before.
    expect(issueChars(report.issues)).toBeLessThan(100 * report.issues.length);
    const contrl = serializeInterchange(buildContrl(parsed.interchange, report, outbound(3)));
    expect(contrl.length).toBeLessThan(1000);
  });

  it("a value shown in an issue is cut to MAX_SHOWN_VALUE characters", () => {
    const long = "9".repeat(100_000);
    const { report } = check(
      "UNB+UNOC:3+A+B+991231:2359+X'UNH+1+ORDERS:D:96A:UN'BGM+220+PO1+9'" +
        `LIN+1'QTY+21:${"A".repeat(100_000)}'UNS+S'UNT+6+${long}'UNZ+1+X'`,
    );
    expectBounded(report.issues);
    const qty = report.issues.find((i) => i.tag === "QTY");
    expect(qty?.text).toBe(`QTY: "${"A".repeat(MAX_SHOWN_VALUE)}…" is not numeric (6060 is n..15)`);
    const unt = report.issues.find((i) => i.code === 28);
    expect(unt?.text).toBe(
      `UNT reference "${"9".repeat(MAX_SHOWN_VALUE)}…" does not match UNH reference "1"`,
    );
  });

  it("the issue cap bounds memory: 10,000 issues of long garbage stay within a few MB", () => {
    // 12,000 long non-numeric quantities (one issue each), then segments with long unknown tags.
    const garbage = `${"Z".repeat(200)}+${"x".repeat(300)}'`;
    const message = `UNH+1+ORDERS:D:96A:UN'BGM+220+PO1+9'${`LIN+1'QTY+21:${"A".repeat(300)}'`.repeat(12_000)}${garbage.repeat(200)}UNS+S'UNT+9+1'`;
    const { parsed, report } = check(`UNB+UNOC:3+A+B+991231:2359+X'${message}UNZ+1+X'`);
    expect(report.issues.length).toBe(MAX_REPORTED_ISSUES + 1);
    expect(report.issues.at(-1)?.code).toBe(18);
    expectBounded(report.issues);
    expect(JSON.stringify(report.issues).length).toBeLessThan(4_000_000);
    const contrl = serializeInterchange(buildContrl(parsed.interchange, report, outbound(3)));
    expect(contrl.length).toBeLessThan(200_000);
  });

  it("CONTRL repeats received references cut to their CONTRL lengths", () => {
    const ref = "R".repeat(50_000);
    const party = "P".repeat(50_000);
    const { parsed, report } = check(
      `UNB+UNOC:3+${party}+B+991231:2359+${ref}'UNH+${ref}+ORDERS:D:96A:UN'UNT+2+${ref}'UNZ+1+${ref}'`,
    );
    expectBounded(report.issues);
    const contrl = Buffer.from(
      serializeInterchange(buildContrl(parsed.interchange, report, outbound(3))),
    ).toString("latin1");
    expect(contrl.length).toBeLessThan(1000);
    expect(contrl).toContain(`UCI+${"R".repeat(14)}+${"P".repeat(35)}+B+4+`);
    expect(parseInterchange(latin1(contrl)).issues).toEqual([]);
  });
});
