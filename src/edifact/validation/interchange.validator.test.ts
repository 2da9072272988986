import { describe, expect, it } from "vitest";
import { getDirectory } from "../directories/directory.registry.js";
import { parseInterchange } from "../envelope/interchange.parser.js";
import { latin1 } from "../testing/sample.fixture.js";
import { MAX_REPORTED_ISSUES } from "../issue.types.js";
import { validateInterchange, type ValidateOptions } from "./interchange.validator.js";

const UNB = "UNB+UNOC:3+SENDER:14+RECEIVER:14+240315:1200+IC1'";
const wrap = (body: string, count?: number): string => {
  const segments = body.split("'").filter((s) => s !== "").length + 2;
  return `${UNB}UNH+1+ORDERS:D:96A:UN'${body}UNT+${count ?? segments}+1'UNZ+1+IC1'`;
};
const HEAD = "BGM+220+PO1+9'DTM+137:20240315:102'";
const TAIL = "UNS+S'";

function issues(text: string, options: Partial<ValidateOptions> = {}): (string | number | undefined)[][] {
  const report = validateInterchange(parseInterchange(latin1(text)), {
    directory: getDirectory("D96A"),
    ...options,
  });
  return report.issues.map((i) => [
    i.code,
    i.scope,
    i.tag,
    i.position ?? i.element,
    i.position !== undefined ? i.element : undefined,
  ]);
}

describe("structure validation", () => {
  it("accepts a valid message", () => {
    expect(issues(wrap(HEAD + "LIN+1'" + TAIL))).toEqual([]);
  });

  it("reports a missing mandatory segment (13) at the segment found where it was expected", () => {
    expect(issues(wrap("DTM+137:20240315:102'" + TAIL))).toEqual([[13, "segment", "DTM", 2, undefined]]);
  });

  it("reports an unexpected segment (15)", () => {
    expect(issues(wrap(HEAD + TAIL + "BGM+220+PO2+9'"))).toEqual([[15, "segment", "BGM", 5, undefined]]);
  });

  it("reports too many segment repetitions (35)", () => {
    expect(issues(wrap(HEAD + "PAI+::42'PAI+::42'" + TAIL))).toEqual([[35, "segment", "PAI", 5, undefined]]);
  });

  it("reports too many group repetitions (36)", () => {
    const rffs = Array.from({ length: 11 }, (_, i) => `RFF+ON:${i}'`).join("");
    expect(issues(wrap(HEAD + rffs + TAIL))).toEqual([[36, "segment", "RFF", 14, undefined]]);
  });

  it("walks nested groups and returns to outer ones", () => {
    expect(
      issues(wrap(HEAD + "NAD+BY+1::9'RFF+VA:1'CTA+OC'COM+1:TE'NAD+SU+2::9'LIN+1'PRI+AAA:1'LIN+2'" + TAIL)),
    ).toEqual([]);
  });
});

describe("element validation", () => {
  const cases: [string, string, (string | number | undefined)[]][] = [
    ["invalid code (12)", "BGM+999+PO1+9'", [12, "element", "BGM", 2, 1]],
    ["missing mandatory element (13)", "BGM+220+PO1+9'DTM+:20240315:102'", [13, "element", "DTM", 3, 1]],
    ["too many data elements (16)", "BGM+220+PO1+9+AB+X'", [16, "element", "BGM", 2, 5]],
    ["too many components (16)", "BGM+220:::9:X+PO1+9'", [16, "element", "BGM", 2, 1]],
    ["component in a simple element (16)", "BGM+220+PO1:X+9'", [16, "element", "BGM", 2, 2]],
    [
      "non-numeric in n (37)",
      "BGM+220+PO1+9'DTM+137:20240315:102'LIN+1'QTY+21:1A'",
      [37, "element", "QTY", 5, 1],
    ],
    [
      "digit missing before decimal mark (38)",
      "BGM+220+PO1+9'DTM+137:20240315:102'LIN+1'QTY+21:.5'",
      [38, "element", "QTY", 5, 1],
    ],
    ["too long (39)", `BGM+220+${"X".repeat(36)}+9'`, [39, "element", "BGM", 2, 2]],
  ];
  it.each(cases)("%s", (_name, body, expected) => {
    const full = body.includes("DTM") ? body : body + "DTM+137:20240315:102'";
    expect(issues(wrap(full + TAIL))).toEqual([expected]);
  });

  it("accepts both decimal marks in syntax 4 only", () => {
    const v4 = (q: string): string =>
      `UNB+UNOC:4+S+R+20240315:1200+IC1'UNH+1+ORDERS:D:96A:UN'${HEAD}LIN+1'QTY+21:${q}'${TAIL}UNT+7+1'UNZ+1+IC1'`;
    expect(issues(v4("1,5"))).toEqual([]);
    expect(issues(v4("1.5"))).toEqual([]);
    expect(issues(wrap(HEAD + "LIN+1'QTY+21:1,5'" + TAIL))).toEqual([[19, "element", "QTY", 5, 1]]);
  });

  it("checks code values of association-coded messages only in strict mode", () => {
    const eancom = wrap(HEAD.replace("BGM+220", "BGM+50E") + TAIL).replace(
      "ORDERS:D:96A:UN",
      "ORDERS:D:96A:UN:EAN008",
    );
    expect(issues(eancom)).toEqual([]);
    expect(issues(eancom, { codeLists: "strict" })).toEqual([[12, "element", "BGM", 2, 1]]);
  });
});

describe("directory D25A", () => {
  it("PCI carries marks and labels (C210), as in every release since D.96A", () => {
    const text =
      "UNB+UNOC:4+A:14+B:14+20240315:1200+IC1'UNH+1+ORDERS:D:25A:UN'BGM+220+PO1+9'" +
      "DTM+137:20240315:102'NAD+BY+5412345000013::9'LIN+1++4000862141404:SRV'QTY+21:48'" +
      "PAC+1++PK'PCI++MARKS:LINE 2'UNS+S'CNT+2:1'UNT+11+1'UNZ+1+IC1'";
    expect(issues(text, { directory: getDirectory("D25A") })).toEqual([]);
  });

  it("fixed-length elements are fixed (7106 n3 in DGS): a shorter value is too short (40)", () => {
    const order = (flashpoint: string) =>
      "UNB+UNOC:4+A:14+B:14+20240315:1200+IC1'UNH+1+ORDERS:D:25A:UN'BGM+220+PO1+9'" +
      `DTM+137:20240315:102'NAD+BY+5412345000013::9'DGS+ADR+++${flashpoint}:CEL'` +
      "LIN+1++4000862141404:SRV'QTY+21:48'UNS+S'CNT+2:1'UNT+10+1'UNZ+1+IC1'";
    expect(issues(order("012"), { directory: getDirectory("D25A") })).toEqual([]);
    expect(issues(order("12"), { directory: getDirectory("D25A") })).toEqual([[40, "element", "DGS", 5, 4]]);
  });
});

describe("envelope validation", () => {
  it("reports UNT count (29) and reference (28) mismatches at message level", () => {
    const text = wrap(HEAD + TAIL, 9).replace("UNT+9+1", "UNT+9+2");
    expect(issues(text)).toEqual([
      [29, "envelope", "UNT", 1, undefined],
      [28, "envelope", "UNT", 2, undefined],
    ]);
  });

  it("reports a message type the exchange does not take (14)", () => {
    expect(issues(wrap(HEAD + TAIL).replace("ORDERS:D:96A", "INVOIC:D:96A"))).toEqual([
      [14, "envelope", "UNH", 2, undefined],
    ]);
  });

  it("rejects zero interchanges and more than one", () => {
    expect(issues("")).toEqual([[13, "envelope", "UNB", undefined, undefined]]);
    const two = wrap(HEAD + TAIL) + wrap(HEAD + TAIL);
    expect(issues(two)).toEqual([[33, "envelope", "UNB", undefined, undefined]]);
  });

  it("reports data after UNZ (33) at interchange level: nothing is silently dropped", () => {
    const text = wrap(HEAD + TAIL) + "GARBAGE+X'UNH+2+ORDERS:D:96A:UN'";
    expect(issues(text)).toEqual([[33, "envelope", "GARBAGE", undefined, undefined]]);
    const report = validateInterchange(parseInterchange(latin1(text)), { directory: getDirectory("D96A") });
    expect(report.interchangeAccepted).toBe(false);
  });

  it("reports an interchange or a group without messages (32, lower level empty)", () => {
    expect(issues(`${UNB}UNZ+0+IC1'`)).toEqual([[32, "envelope", "UNZ", undefined, undefined]]);
    const emptyGroup = `${UNB}UNG+ORDERS+S:14+R:14+240315:1200+G1+UN+D:96A'UNE+0+G1'UNZ+1+IC1'`;
    const parsed = parseInterchange(latin1(emptyGroup));
    expect(parsed.issues.map((i) => [i.code, i.level, i.tag, i.groupIndex])).toEqual([
      [32, "group", "UNE", 0],
    ]);
  });

  it("sorts issues to thousands of messages in one pass: 5,000 bare UNH give 5,000 message verdicts", () => {
    const text = `${UNB}${"UNH+1+ORDERS:D:96A:UN'".repeat(5000)}`;
    const report = validateInterchange(parseInterchange(latin1(text)), { directory: getDirectory("D96A") });
    expect(report.messages).toHaveLength(5000);
    expect(report.messages.every((m) => !m.accepted && m.issues.length > 0)).toBe(true);
  });

  it("lists at most MAX_REPORTED_ISSUES issues; more reject the interchange with one 18", () => {
    // A hostile message of 200,000 empty segments: one issue each, without a bound.
    const text = wrap(HEAD + "'".repeat(200_000) + TAIL);
    const report = validateInterchange(parseInterchange(latin1(text)), { directory: getDirectory("D96A") });
    expect(report.issues.length).toBe(MAX_REPORTED_ISSUES + 1);
    expect(report.issues.filter((i) => i.code === 18 && i.level === "interchange")).toHaveLength(1);
    expect(report.interchangeAccepted).toBe(false);
    expect(report.messages.map((m) => m.accepted)).toEqual([false]);
  });

  describe("service string advice, groups and limits", () => {
    const message = (ref: string) =>
      `UNH+${ref}+ORDERS:D:96A:UN'BGM+220+PO1+9'DTM+137:20240315:102'UNS+S'UNT+5+${ref}'`;
    const group = (ref: string, body: string, trailer = `UNE+1+${ref}'`) =>
      `UNG+ORDERS+S:14+R:14+240315:1200+${ref}+UN+D:96A'${body}${trailer}`;
    const parsed = (text: string) =>
      parseInterchange(latin1(text)).issues.map((i) => [i.code, i.level, i.tag, i.element]);

    it("UNA shorter than 9 characters is 1 (UNA not supported)", () => {
      expect(parsed("UNA:+.")).toContainEqual([1, "interchange", "UNA", undefined]);
    });

    it("UNA advising a letter as a separator is 20 (character invalid as service character)", () => {
      expect(parsed(`UNA:A.? '${UNB}${message("1")}UNZ+1+IC1'`)[0]).toEqual([
        20,
        "interchange",
        "UNA",
        undefined,
      ]);
    });

    it("groups and messages outside groups in one interchange are 30", () => {
      const text = `${UNB}${message("1")}${group("G1", message("2"))}UNZ+2+IC1'`;
      expect(parsed(text)).toContainEqual([30, "interchange", undefined, undefined]);
    });

    it("UNE count (29) and reference (28) mismatches, and a missing UNE (13), are group level", () => {
      expect(parsed(`${UNB}${group("G1", message("1"), "UNE+2+G9'")}UNZ+1+IC1'`)).toEqual([
        [29, "group", "UNE", 1],
        [28, "group", "UNE", 2],
      ]);
      expect(parsed(`${UNB}${group("G1", message("1"), "")}UNZ+1+IC1'`)).toEqual([
        [13, "group", "UNE", undefined],
      ]);
    });

    it("more than 1,000 character issues end with one 18 that names no segment", () => {
      const text = `UNB+UNOA:3+S:14+R:14+240315:1200+IC1'UNH+1+ORDERS:D:96A:UN'FTX+AAA+++${"x:".repeat(1200)}x'UNT+3+1'UNZ+1+IC1'`;
      const issues = parsed(text);
      expect(issues.filter(([code]) => code === 21)).toHaveLength(1000);
      expect(issues.at(-1)).toEqual([18, "interchange", undefined, undefined]);
    });
  });

  it("reads the acknowledgement request and the test indicator", () => {
    const parsed = parseInterchange(latin1(wrap(HEAD + TAIL).replace("+IC1'", "+IC1++++1++1'")));
    expect(parsed.issues).toEqual([]);
    expect(parsed.interchange.header).toMatchObject({ ackRequested: true, test: true, controlRef: "IC1" });
  });

  it("marks interchange, group and message verdicts", () => {
    const report = validateInterchange(parseInterchange(latin1(wrap("DTM+137:20240315:102'" + TAIL))), {
      directory: getDirectory("D96A"),
    });
    expect(report.interchangeAccepted).toBe(true);
    expect(report.messages.map((m) => m.accepted)).toEqual([false]);
  });
});

describe("character issues belong to the message, group or interchange holding them", () => {
  // UNOA has no lower-case letters: each "x" below is an invalid character (21) found while tokenizing.
  const message = (ref: string, bgm: string) =>
    `UNH+${ref}+ORDERS:D:96A:UN'BGM+220+${bgm}+9'DTM+137:20240315:102'UNS+S'UNT+5+${ref}'`;
  const levels = (text: string) =>
    parseInterchange(latin1(text)).issues.map((i) => [
      i.code,
      i.level,
      i.tag,
      i.messageIndex,
      i.groupIndex,
      i.position,
    ]);

  it("in a message's data: the message, with the segment's position", () => {
    const text = `UNB+UNOA:3+S:14+R:14+240315:1200+IC1'${message("1", "PO1")}${message("2", "POx")}UNZ+2+IC1'`;
    expect(levels(text)).toEqual([[21, "message", "BGM", 1, undefined, 2]]);
  });

  it("in a group's header: the group", () => {
    const group = (ref: string, sender: string) =>
      `UNG+ORDERS+${sender}:14+R:14+240315:1200+${ref}+UN+D:96A'${message(ref, "PO1")}UNE+1+${ref}'`;
    const text = `UNB+UNOA:3+S:14+R:14+240315:1200+IC1'${group("1", "S")}${group("2", "x")}UNZ+2+IC1'`;
    expect(levels(text)).toEqual([[21, "group", "UNG", undefined, 1, undefined]]);
  });

  it("malformed UTF-8 (UNOY) is placed at its element and component, like any invalid character", () => {
    const text = Buffer.concat([
      Buffer.from("UNB+UNOY:4+S:14+R:14+20240315:1200+IC1'UNH+1+ORDERS:D:96A:UN'BGM+220+P"),
      Buffer.from([0xc3, 0x28]),
      Buffer.from("+9'UNT+3+1'UNZ+1+IC1'"),
    ]);
    const found = parseInterchange(text).issues.map((i) => [
      i.code,
      i.level,
      i.scope,
      i.tag,
      i.element,
      i.component,
    ]);
    expect(found).toEqual([[21, "message", "element", "BGM", 2, 1]]);
  });

  it("in the interchange header: the interchange", () => {
    const text = `UNB+UNOA:3+x:14+R:14+240315:1200+IC1'${message("1", "PO1")}UNZ+1+IC1'`;
    expect(levels(text)).toEqual([[21, "interchange", "UNB", undefined, undefined, undefined]]);
  });
});
