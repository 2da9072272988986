import { describe, expect, it } from "vitest";
import { directoryResolver } from "./directories/directory.resolver.js";
import { getDirectory } from "./directories/directory.registry.js";
import { parseInterchange } from "./envelope/interchange.parser.js";
import { inspectInterchange, type Finding } from "./inspection.js";

const orders = (unb = "UNOC:3", name = "PO1") =>
  `UNB+${unb}+5412345000013:14+4012345500004:14+240315:1200+IC1'UNH+1+ORDERS:D:96A:UN'BGM+220+${name}+9'` +
  `DTM+137:20240315:102'NAD+BY+5412345000013::9'LIN+1++4000862141404:EN'QTY+21:12'UNS+S'UNT+8+1'UNZ+1+IC1'`;
const parse = (text: string, encoding: BufferEncoding = "latin1") =>
  parseInterchange(Buffer.from(text, encoding));
const d96a = getDirectory("D96A");

describe("inspectInterchange: the segment tree of hanse edi inspect and the operator's segments views", () => {
  it("each segment has its 1-based position, depth, innermost group and text; the envelope has depth 0", () => {
    const tree = inspectInterchange(parse(orders()), { directory: d96a });
    expect(tree.segments.map((s) => [s.position, s.tag, s.depth, s.group])).toEqual([
      [1, "UNB", 0, null],
      [2, "UNH", 2, null],
      [3, "BGM", 2, null],
      [4, "DTM", 2, null],
      [5, "NAD", 3, "SG2"],
      [6, "LIN", 3, "SG25"],
      [7, "QTY", 3, "SG25"],
      [8, "UNS", 2, null],
      [9, "UNT", 2, null],
      [10, "UNZ", 0, null],
    ]);
    expect(tree.segments.map((s) => s.text).join("")).toBe(orders());
    expect(tree).toMatchObject({ findings: [], notes: [] });
  });

  it("a segment the message structure has no place for is in group '?'", () => {
    const tree = inspectInterchange(parse(orders().replace("UNS+S'", "UNS+S'LIN+2++4000862141404:EN'")), {
      directory: d96a,
    });
    expect(tree.segments.find((s) => s.position === 9)).toMatchObject({ tag: "LIN", group: "?", depth: 3 });
  });

  it("findings are placed on the segment at their position; those without one stay at the top", () => {
    const onBgm: Finding = {
      level: "message",
      code: "12",
      message: "bad",
      messageReference: "1",
      segment: "BGM",
      position: 3,
      element: "1",
    };
    const loose: Finding = { ...onBgm, level: "interchange", position: null, segment: null };
    const tree = inspectInterchange(parse(orders()), { directory: d96a, findings: [onBgm, loose] });
    expect(tree.segments[2]?.findings).toEqual([onBgm]);
    expect(tree.segments.filter((s) => s.findings.length > 0)).toHaveLength(1);
    expect(tree.findings).toEqual([loose]);
  });

  it("without findings given, the parse issues are the findings", () => {
    const tree = inspectInterchange(parse(orders().replace("UNZ+1+IC1", "UNZ+1+IC9")), { directory: d96a });
    expect(tree.segments[9]?.findings).toEqual([
      expect.objectContaining({
        level: "interchange",
        code: "28",
        segment: "UNZ",
        position: 10,
        element: "2",
      }),
    ]);
  });

  it("a message no directory at hand defines gets a note, its segments no group", () => {
    const tree = inspectInterchange(parse(orders().replace("ORDERS:D:96A", "ORDERS:D:01B")), {
      directory: directoryResolver(),
    });
    expect(tree.notes).toEqual(["message 1 (ORDERS D:01B): no directory at hand defines it"]);
    expect(tree.segments[4]).toMatchObject({ tag: "NAD", group: "?" });
  });

  it("maxSegments lists the first segments only, says so in a note and keeps the later findings at the top", () => {
    const late: Finding = {
      level: "interchange",
      code: "28",
      message: "x",
      messageReference: null,
      segment: "UNZ",
      position: 10,
      element: null,
    };
    const tree = inspectInterchange(parse(orders()), { directory: d96a, findings: [late], maxSegments: 4 });
    expect(tree.segments).toHaveLength(4);
    expect(tree.notes).toEqual(["only the first 4 of 10 segments are listed"]);
    expect(tree.findings).toEqual([late]);
  });

  it("text is decoded in the interchange's character set (UNOC Latin-1, UNOW UTF-8)", () => {
    const latin = inspectInterchange(parse(orders("UNOC:3", "Müller")), { directory: d96a });
    expect(latin.segments[2]?.text).toBe("BGM+220+Müller+9'");
    const utf8 = inspectInterchange(parse(orders("UNOW:4", "Müller€"), "utf8"), { directory: d96a });
    expect(utf8.segments[2]?.text).toBe("BGM+220+Müller€+9'");
  });
});
