import { parseFormat } from "../directories/directory.loader.js";
import type { SegmentDef, SimpleElementDef, Status } from "../directories/directory.types.js";

/** [id, status, representation] of a simple element, or [id, status, components] of a composite. */
type Spec =
  | readonly [string, Status, string]
  | readonly [string, Status, readonly (readonly [string, Status, string])[]];

function simple(id: string, repr: string): SimpleElementDef {
  return { kind: "simple", id, name: id, format: parseFormat(repr) ?? { type: "an", min: 1, max: 35 } };
}

function segment(tag: string, specs: readonly Spec[]): SegmentDef {
  return {
    tag,
    name: tag,
    elements: specs.map(([id, status, body]) => ({
      status,
      repeat: 1,
      def:
        typeof body === "string"
          ? simple(id, body)
          : {
              kind: "composite" as const,
              id,
              name: id,
              components: body.map(([cid, cstatus, repr]) => ({
                element: simple(cid, repr),
                status: cstatus,
              })),
            },
    })),
  };
}

/* Layouts of ISO 9735 syntax versions 1–3 (they agree on these segments) and version 4. */
const V3: Readonly<Record<string, SegmentDef>> = {
  UNB: segment("UNB", [
    [
      "S001",
      "M",
      [
        ["0001", "M", "a4"],
        ["0002", "M", "n1"],
      ],
    ],
    [
      "S002",
      "M",
      [
        ["0004", "M", "an..35"],
        ["0007", "C", "an..4"],
        ["0008", "C", "an..14"],
      ],
    ],
    [
      "S003",
      "M",
      [
        ["0010", "M", "an..35"],
        ["0007", "C", "an..4"],
        ["0014", "C", "an..14"],
      ],
    ],
    [
      "S004",
      "M",
      [
        ["0017", "M", "n6"],
        ["0019", "M", "n4"],
      ],
    ],
    ["0020", "M", "an..14"],
    [
      "S005",
      "C",
      [
        ["0022", "M", "an..14"],
        ["0025", "C", "an2"],
      ],
    ],
    ["0026", "C", "an..14"],
    ["0029", "C", "a1"],
    ["0031", "C", "n1"],
    ["0032", "C", "an..35"],
    ["0035", "C", "n1"],
  ]),
  UNG: segment("UNG", [
    ["0038", "M", "an..6"],
    [
      "S006",
      "M",
      [
        ["0040", "M", "an..35"],
        ["0007", "C", "an..4"],
      ],
    ],
    [
      "S007",
      "M",
      [
        ["0044", "M", "an..35"],
        ["0007", "C", "an..4"],
      ],
    ],
    [
      "S004",
      "M",
      [
        ["0017", "M", "n6"],
        ["0019", "M", "n4"],
      ],
    ],
    ["0048", "M", "an..14"],
    ["0051", "M", "an..2"],
    [
      "S008",
      "M",
      [
        ["0052", "M", "an..3"],
        ["0054", "M", "an..3"],
        ["0057", "C", "an..6"],
      ],
    ],
    ["0058", "C", "an..14"],
  ]),
  UNH: segment("UNH", [
    ["0062", "M", "an..14"],
    [
      "S009",
      "M",
      [
        ["0065", "M", "an..6"],
        ["0052", "M", "an..3"],
        ["0054", "M", "an..3"],
        ["0051", "M", "an..2"],
        ["0057", "C", "an..6"],
      ],
    ],
    ["0068", "C", "an..35"],
    [
      "S010",
      "C",
      [
        ["0070", "M", "n..2"],
        ["0073", "C", "a1"],
      ],
    ],
  ]),
  UNT: segment("UNT", [
    ["0074", "M", "n..6"],
    ["0062", "M", "an..14"],
  ]),
  UNE: segment("UNE", [
    ["0060", "M", "n..6"],
    ["0048", "M", "an..14"],
  ]),
  UNZ: segment("UNZ", [
    ["0036", "M", "n..6"],
    ["0020", "M", "an..14"],
  ]),
  // Section control sits inside messages but is defined by ISO 9735, not the directories.
  UNS: withCodes(segment("UNS", [["0081", "M", "a1"]]), {
    D: "Header/detail separation",
    S: "Detail/summary separation",
  }),
};

function withCodes(def: SegmentDef, values: Record<string, string>): SegmentDef {
  const first = def.elements[0];
  if (!first || first.def.kind !== "simple") return def;
  const codes = { id: first.def.id, values: new Map(Object.entries(values)) };
  return { ...def, elements: [{ ...first, def: { ...first.def, codes } }] };
}

const V4: Readonly<Record<string, SegmentDef>> = {
  ...V3,
  UNB: segment("UNB", [
    [
      "S001",
      "M",
      [
        ["0001", "M", "a4"],
        ["0002", "M", "an1"],
        ["0080", "C", "an..6"],
        ["0133", "C", "an..3"],
      ],
    ],
    [
      "S002",
      "M",
      [
        ["0004", "M", "an..35"],
        ["0007", "C", "an..4"],
        ["0008", "C", "an..35"],
        ["0042", "C", "an..35"],
      ],
    ],
    [
      "S003",
      "M",
      [
        ["0010", "M", "an..35"],
        ["0007", "C", "an..4"],
        ["0014", "C", "an..35"],
        ["0046", "C", "an..35"],
      ],
    ],
    [
      "S004",
      "M",
      [
        ["0017", "M", "n8"],
        ["0019", "M", "n4"],
      ],
    ],
    ["0020", "M", "an..14"],
    [
      "S005",
      "C",
      [
        ["0022", "M", "an..14"],
        ["0025", "C", "an2"],
      ],
    ],
    ["0026", "C", "an..14"],
    ["0029", "C", "a1"],
    ["0031", "C", "n1"],
    ["0032", "C", "an..35"],
    ["0035", "C", "n1"],
  ]),
  UNG: segment("UNG", [
    ["0038", "C", "an..6"],
    [
      "S006",
      "C",
      [
        ["0040", "M", "an..35"],
        ["0007", "C", "an..4"],
      ],
    ],
    [
      "S007",
      "C",
      [
        ["0044", "M", "an..35"],
        ["0007", "C", "an..4"],
      ],
    ],
    [
      "S004",
      "C",
      [
        ["0017", "M", "n8"],
        ["0019", "M", "n4"],
      ],
    ],
    ["0048", "M", "an..14"],
    ["0051", "C", "an..3"],
    [
      "S008",
      "C",
      [
        ["0052", "M", "an..3"],
        ["0054", "M", "an..3"],
        ["0057", "C", "an..6"],
      ],
    ],
    ["0058", "C", "an..14"],
  ]),
  UNH: segment("UNH", [
    ["0062", "M", "an..14"],
    [
      "S009",
      "M",
      [
        ["0065", "M", "an..6"],
        ["0052", "M", "an..3"],
        ["0054", "M", "an..3"],
        ["0051", "M", "an..3"],
        ["0057", "C", "an..6"],
        ["0110", "C", "an..6"],
        ["0113", "C", "an..6"],
      ],
    ],
    ["0068", "C", "an..35"],
    [
      "S010",
      "C",
      [
        ["0070", "M", "n..2"],
        ["0073", "C", "a1"],
      ],
    ],
    [
      "S016",
      "C",
      [
        ["0115", "M", "an..14"],
        ["0116", "C", "an..3"],
        ["0118", "C", "an..3"],
        ["0051", "C", "an..3"],
      ],
    ],
    [
      "S017",
      "C",
      [
        ["0121", "M", "an..14"],
        ["0122", "C", "an..3"],
        ["0124", "C", "an..3"],
        ["0051", "C", "an..3"],
      ],
    ],
    [
      "S018",
      "C",
      [
        ["0127", "M", "an..14"],
        ["0128", "C", "an..3"],
        ["0130", "C", "an..3"],
        ["0051", "C", "an..3"],
      ],
    ],
  ]),
};

/** The service segment layout for a syntax version (1–3 share one layout). */
export function serviceSegment(tag: string, syntaxVersion: number): SegmentDef | undefined {
  return (syntaxVersion >= 4 ? V4 : V3)[tag];
}
