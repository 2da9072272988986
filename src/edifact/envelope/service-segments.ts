import { parseFormat } from "../directories/directory.loader.js";
import type {
  ComponentRef,
  SegmentDef,
  SegmentElementRef,
  SimpleElementDef,
  Status,
} from "../directories/directory.types.js";

/**
 * An element as ISO 9735 lists it: `"0020 M an..14"` (id, status, representation) for a simple
 * element, `["S005 C", "0022 M an..14", "0025 C an2"]` for a composite and its components.
 */
export type ElementSpec = string | readonly [string, ...string[]];

function words(spec: string, count: 2 | 3): [string, Status, string] {
  const [id, status, repr = "", ...rest] = spec.split(" ");
  if (!id || (status !== "M" && status !== "C") || (count === 3 && !repr) || rest.length > 0) {
    throw new Error(`service segment element "${spec}" is not "id status representation"`);
  }
  return [id, status, repr];
}

function simple(id: string, repr: string): SimpleElementDef {
  return { kind: "simple", id, name: id, format: parseFormat(repr) ?? { type: "an", min: 1, max: 35 } };
}

function component(spec: string): ComponentRef {
  const [id, status, repr] = words(spec, 3);
  return { element: simple(id, repr), status };
}

function element(spec: ElementSpec): SegmentElementRef {
  if (typeof spec === "string") {
    const [id, status, repr] = words(spec, 3);
    return { status, repeat: 1, def: simple(id, repr) };
  }
  const [head, ...components] = spec;
  const [id, status] = words(head, 2);
  return {
    status,
    repeat: 1,
    def: { kind: "composite", id, name: id, components: components.map(component) },
  };
}

/** A segment layout from element specs (see ElementSpec). */
export const segment = (tag: string, specs: readonly ElementSpec[]): SegmentDef => ({
  tag,
  name: tag,
  elements: specs.map(element),
});

/** The segment with a code list on its simple element at `index` (0-based). */
export function withCodes(def: SegmentDef, values: Record<string, string>, index = 0): SegmentDef {
  const target = def.elements[index];
  if (!target || target.def.kind !== "simple") return def;
  const codes = { id: target.def.id, values: new Map(Object.entries(values)) };
  const elements = def.elements.map((e, i) =>
    i === index ? { ...target, def: { ...target.def, codes } } : e,
  );
  return { ...def, elements };
}

/**
 * UNB, UNG and UNH, the segments whose layout changed in syntax version 4: 0002 alphanumeric,
 * party identifications up to 35 characters, 8-digit dates, a 3-character controlling agency
 * (0051), more components (UNB S001/S002/S003, UNH S009), the UNH elements S016–S018, and every
 * mandatory UNG element but 0048 made conditional.
 */
function envelopeSegments(version: 3 | 4): Record<"UNB" | "UNG" | "UNH", SegmentDef> {
  const v4 = version === 4;
  const only4 = <T>(...specs: T[]): T[] => (v4 ? specs : []);
  const partyId = v4 ? "an..35" : "an..14";
  const date = v4 ? "n8" : "n6";
  const agency = v4 ? "an..3" : "an..2";
  const ung = v4 ? "C" : "M";
  return {
    UNB: segment("UNB", [
      ["S001 M", "0001 M a4", `0002 M ${v4 ? "an1" : "n1"}`, ...only4("0080 C an..6", "0133 C an..3")],
      ["S002 M", "0004 M an..35", "0007 C an..4", `0008 C ${partyId}`, ...only4("0042 C an..35")],
      ["S003 M", "0010 M an..35", "0007 C an..4", `0014 C ${partyId}`, ...only4("0046 C an..35")],
      ["S004 M", `0017 M ${date}`, "0019 M n4"],
      "0020 M an..14",
      ["S005 C", "0022 M an..14", "0025 C an2"],
      "0026 C an..14",
      "0029 C a1",
      "0031 C n1",
      "0032 C an..35",
      "0035 C n1",
    ]),
    UNG: segment("UNG", [
      `0038 ${ung} an..6`,
      [`S006 ${ung}`, "0040 M an..35", "0007 C an..4"],
      [`S007 ${ung}`, "0044 M an..35", "0007 C an..4"],
      [`S004 ${ung}`, `0017 M ${date}`, "0019 M n4"],
      "0048 M an..14",
      `0051 ${ung} ${agency}`,
      [`S008 ${ung}`, "0052 M an..3", "0054 M an..3", "0057 C an..6"],
      "0058 C an..14",
    ]),
    UNH: segment("UNH", [
      "0062 M an..14",
      [
        "S009 M",
        "0065 M an..6",
        "0052 M an..3",
        "0054 M an..3",
        `0051 M ${agency}`,
        "0057 C an..6",
        ...only4("0110 C an..6", "0113 C an..6"),
      ],
      "0068 C an..35",
      ["S010 C", "0070 M n..2", "0073 C a1"],
      // Message subset, implementation guideline and scenario identification.
      ...only4<ElementSpec>(
        ["S016 C", "0115 M an..14", "0116 C an..3", "0118 C an..3", "0051 C an..3"],
        ["S017 C", "0121 M an..14", "0122 C an..3", "0124 C an..3", "0051 C an..3"],
        ["S018 C", "0127 M an..14", "0128 C an..3", "0130 C an..3", "0051 C an..3"],
      ),
    ]),
  };
}

/* Layouts of ISO 9735 syntax versions 1–3 (they agree on these segments) and version 4. */
const V3: Readonly<Record<string, SegmentDef>> = {
  ...envelopeSegments(3),
  UNT: segment("UNT", ["0074 M n..6", "0062 M an..14"]),
  UNE: segment("UNE", ["0060 M n..6", "0048 M an..14"]),
  UNZ: segment("UNZ", ["0036 M n..6", "0020 M an..14"]),
  // Section control sits inside messages but is defined by ISO 9735, not the directories.
  UNS: withCodes(segment("UNS", ["0081 M a1"]), {
    D: "Header/detail separation",
    S: "Detail/summary separation",
  }),
};

const V4: Readonly<Record<string, SegmentDef>> = { ...V3, ...envelopeSegments(4) };

/** The service segment layout for a syntax version (1–3 share one layout). */
export function serviceSegment(tag: string, syntaxVersion: number): SegmentDef | undefined {
  return (syntaxVersion >= 4 ? V4 : V3)[tag];
}
