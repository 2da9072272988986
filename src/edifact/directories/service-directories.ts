import { segment, withCodes, type ElementSpec } from "../envelope/service-segments.js";
import type { Directory, MessageDef, SegmentDef, StructureNode } from "./directory.types.js";

/**
 * CONTRL, the syntax and service report message, is defined by ISO 9735 itself, not by the
 * UNTDID directories: CONTRL 2:2 for syntax versions 1–3, CONTRL 4:1 for syntax version 4
 * (UNH S009 `CONTRL:2:2:UN`, `CONTRL:4:1:UN`). Each is a directory of one message here, so a
 * CONTRL received from a partner is validated like any other message: its structure, its
 * segments UCI, UCF, UCM, UCS, UCD and their elements.
 */

/**
 * 0083 (action, coded): syntax 3 takes the values the UNSL of D.96A lists; syntax 4 kept 4, 7
 * and 8. 0085 (syntax error, coded) carries no list here: its values differ between the
 * versions and partners report codes the engine never sends, so only its format is checked.
 */
const ACTIONS_V3: Record<string, string> = {
  "1": "Acknowledged (this level and all lower levels)",
  "2": "Acknowledged - errors detected and reported",
  "3": "One or more rejected - next lower level",
  "4": "This level and all lower levels rejected",
  "5": "UNB/UNZ accepted",
  "6": "UNB/UNZ rejected",
  "7": "This level acknowledged, next lower level acknowledged if not explicitly rejected",
  "8": "Interchange received",
};
const ACTIONS_V4: Record<string, string> = {
  "4": ACTIONS_V3["4"] as string,
  "7": ACTIONS_V3["7"] as string,
  "8": ACTIONS_V3["8"] as string,
};

/** Position of 0083 in UCI, UCM and UCF (0-based): after the reference and the two parties. */
const ACTION_INDEX = 3;

function contrlSegments(version: 3 | 4): SegmentDef[] {
  const v4 = version === 4;
  const only4 = <T extends ElementSpec>(...specs: T[]): T[] => (v4 ? specs : []);
  const partyId = v4 ? "an..35" : "an..14";
  // S011: data element position, component position and (syntax 4) occurrence.
  const position = ["0098 M n..3", "0104 C n..3", ...only4("0136 C n..6")];
  const errorPoint: ElementSpec[] = [
    "0085 C an..3",
    `0013 C ${v4 ? "an..3" : "a3"}`,
    ["S011 C", ...position],
  ];
  const security = only4("0534 C an..14", "0138 C n..6");
  const actions = v4 ? ACTIONS_V4 : ACTIONS_V3;
  const withActions = (def: SegmentDef): SegmentDef => withCodes(def, actions, ACTION_INDEX);
  return [
    withActions(
      segment("UCI", [
        "0020 M an..14",
        ["S002 M", "0004 M an..35", "0007 C an..4", `0008 C ${partyId}`, ...only4("0042 C an..35")],
        ["S003 M", "0010 M an..35", "0007 C an..4", `0014 C ${partyId}`, ...only4("0046 C an..35")],
        "0083 M an..3",
        ...errorPoint,
        ...security,
      ]),
    ),
    withActions(
      segment("UCF", [
        "0048 M an..14",
        [`S006 ${v4 ? "C" : "M"}`, "0040 M an..35", "0007 C an..4"],
        [`S007 ${v4 ? "C" : "M"}`, "0044 M an..35", "0007 C an..4"],
        "0083 M an..3",
        ...errorPoint,
        ...security,
      ]),
    ),
    // UCM: in syntax 4 a package (0800, S020) is reported here too, so the message parts are C.
    withCodes(
      segment("UCM", [
        `0062 ${v4 ? "C" : "M"} an..14`,
        [
          `S009 ${v4 ? "C" : "M"}`,
          "0065 M an..6",
          "0052 M an..3",
          "0054 M an..3",
          `0051 M ${v4 ? "an..3" : "an..2"}`,
          "0057 C an..6",
          ...only4("0110 C an..6", "0113 C an..6"),
        ],
        "0083 M an..3",
        ...errorPoint,
        ...only4<ElementSpec>("0800 C an..35", ["S020 C", "0813 M an..3", "0802 M an..35"]),
        ...security,
      ]),
      actions,
      2,
    ),
    segment("UCS", ["0096 M n..6", "0085 C an..3"]),
    segment("UCD", ["0085 M an..3", ["S011 M", ...position]]),
  ];
}

const seg = (tag: string, status: "M" | "C", max: number): StructureNode => ({
  kind: "segment",
  tag,
  status,
  max,
});
const group = (name: string, max: number, children: StructureNode[]): StructureNode => ({
  kind: "group",
  name,
  status: "C",
  max,
  children,
});

/** The same structure in both versions: UCI, then UCM per message, then UCF per group. */
const CONTRL: MessageDef = {
  type: "CONTRL",
  structure: [
    seg("UNH", "M", 1),
    seg("UCI", "M", 1),
    group("SG1", 999999, [seg("UCM", "M", 1), group("SG2", 999, [seg("UCS", "M", 1), seg("UCD", "C", 99)])]),
    group("SG3", 999999, [
      seg("UCF", "M", 1),
      group("SG4", 999999, [
        seg("UCM", "M", 1),
        group("SG5", 999, [seg("UCS", "M", 1), seg("UCD", "C", 99)]),
      ]),
    ]),
    seg("UNT", "M", 1),
  ],
};

function contrlDirectory(version: 3 | 4): Directory {
  const [v, r] = version === 4 ? ["4", "1"] : ["2", "2"];
  return {
    id: `CONTRL ${v}:${r}`,
    version: v,
    release: r,
    source: `ISO 9735 syntax version ${version === 4 ? "4" : "1-3"}: CONTRL ${v}:${r}`,
    messages: new Map([["CONTRL", CONTRL]]),
    segments: new Map(contrlSegments(version).map((d) => [d.tag, d])),
  };
}

/** CONTRL 2:2 (syntax 1–3) and CONTRL 4:1 (syntax 4). */
export const SERVICE_DIRECTORIES: readonly Directory[] = [contrlDirectory(3), contrlDirectory(4)];
