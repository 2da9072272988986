import { describe, expect, it } from "vitest";
import { getDirectory } from "../directories/directory.registry.js";
import { parseInterchange } from "../envelope/interchange.parser.js";
import { toInterchange } from "../envelope/interchange.model.js";
import { expectGolden } from "../testing/golden.fixture.js";
import { outbound } from "../testing/sample.fixture.js";
import { validateInterchange } from "../validation/interchange.validator.js";
import { buildAperak } from "./aperak.builder.js";
import { LineAction, ResponseType, buildOrdrsp } from "./ordrsp.builder.js";
import { serializeInterchange } from "./serializer.js";

const order = { documentNumber: "PO-4711", messageRef: "1", date: "20240315" };
const buyer = { id: "5412345000013" };
const supplier = { id: "4012345500004" };

function aperak(id: "D96A" | "D25A", version: 3 | 4): Uint8Array {
  return serializeInterchange(
    buildAperak({
      directory: getDirectory(id),
      envelope: outbound(version),
      documentNumber: "AP-1",
      order,
      buyer,
      supplier,
      errors: [
        { code: "GTIN", text: "GTIN 4000862141411 is not in the catalogue of the supplier", lineNumber: "2" },
        { code: "ORDER", text: "Order PO-4711: one of two lines was not accepted" },
      ],
    }),
  );
}

function ordrsp(id: "D96A" | "D25A", version: 3 | 4, unit?: string): Uint8Array {
  return serializeInterchange(
    buildOrdrsp({
      directory: getDirectory(id),
      envelope: outbound(version),
      documentNumber: "OR-1",
      responseType: ResponseType.changed,
      order,
      buyer,
      supplier,
      lines: [
        {
          lineNumber: "1",
          action: LineAction.accepted,
          item: { id: "4000862141404", type: "EN" },
          quantity: { value: "48", ...(unit ? { unit } : {}) },
        },
        {
          lineNumber: "2",
          action: LineAction.notAccepted,
          item: { id: "4000862141411", type: "EN" },
          quantity: { value: "12" },
        },
        {
          lineNumber: "3",
          action: LineAction.changed,
          item: { id: "4000862141428", type: "EN" },
          quantity: { value: "6.5", qualifier: "113" },
        },
      ],
    }),
  );
}

function issuesOf(
  bytes: Uint8Array,
  id: "D96A" | "D25A",
): [number, string | undefined, number | undefined][] {
  return validateInterchange(parseInterchange(bytes), { directory: getDirectory(id) }).issues.map((i) => [
    i.code,
    i.tag,
    i.element,
  ]);
}

describe("APERAK and ORDRSP builders", () => {
  it("APERAK D96A byte for byte", () => {
    expectGolden(import.meta.dirname, "aperak-d96a.edi", aperak("D96A", 3));
  });
  it("APERAK D25A byte for byte", () => {
    expectGolden(import.meta.dirname, "aperak-d25a.edi", aperak("D25A", 4));
  });
  it("ORDRSP D96A byte for byte", () => {
    expectGolden(import.meta.dirname, "ordrsp-d96a.edi", ordrsp("D96A", 3, "PCE"));
  });
  it("ORDRSP D25A byte for byte", () => {
    expectGolden(import.meta.dirname, "ordrsp-d25a.edi", ordrsp("D25A", 4, "H87"));
  });

  it("ORDRSP validates against its directory without issues", () => {
    expect(issuesOf(ordrsp("D96A", 3, "PCE"), "D96A")).toEqual([]);
    expect(issuesOf(ordrsp("D25A", 4, "H87"), "D25A")).toEqual([]);
  });

  it("APERAK D25A validates; D.96A's UNCL 1001 predates the code 313 the contract requires", () => {
    expect(issuesOf(aperak("D25A", 4), "D25A")).toEqual([]);
    expect(issuesOf(aperak("D96A", 3), "D96A")).toEqual([[12, "BGM", 1]]);
  });

  it("APERAK refers to the order and carries one ERC + FTX per error", () => {
    const text = Buffer.from(aperak("D96A", 3)).toString("latin1");
    expect(text).toContain("BGM+313+AP-1+9'");
    expect(text).toContain("RFF+ON:PO-4711'");
    expect(text).toContain(
      "ERC+GTIN'FTX+AAO+++GTIN 4000862141411 is not in the catalogue of the supplier'RFF+LI:2'",
    );
    expect(text).toContain("ERC+ORDER'FTX+AAO+++Order PO-4711?: one of two lines was not accepted'");
  });

  it("ORDRSP segments are made on iteration and can be iterated again with the same result", () => {
    const ic = buildOrdrsp({
      directory: getDirectory("D96A"),
      envelope: outbound(3),
      documentNumber: "OR-1",
      responseType: ResponseType.accepted,
      order,
      lines: [
        {
          lineNumber: "1",
          action: LineAction.accepted,
          item: { id: "4000862141404", type: "EN" },
          quantity: { value: "48" },
        },
      ],
    });
    const message = ic.messages[0];
    expect(Array.isArray(message?.segments)).toBe(false);
    const tags = [...(message?.segments ?? [])].map((s) => s.tag);
    expect(tags).toEqual(["BGM", "DTM", "RFF", "DTM", "LIN", "QTY", "UNS", "CNT"]);
    expect([...(message?.segments ?? [])].map((s) => s.tag)).toEqual(tags);
    const first = Buffer.from(serializeInterchange(ic)).toString("latin1");
    expect(Buffer.from(serializeInterchange(ic)).toString("latin1")).toBe(first);
    expect(first).toContain("UNT+10+");
  });

  it("ORDRSP carries BGM 231, the response type, RFF+ON, parties, LIN actions and quantities", () => {
    const ic = toInterchange(parseInterchange(ordrsp("D25A", 4)).interchange);
    const segments = [...(ic?.messages[0]?.segments ?? [])];
    expect(segments[0]).toEqual({ tag: "BGM", elements: [["231"], ["OR-1"], ["4"]] });
    expect(segments.filter((s) => s.tag === "LIN").map((s) => s.elements[1]?.[0])).toEqual(["5", "7", "3"]);
    expect(segments.filter((s) => s.tag === "QTY").map((s) => s.elements[0])).toEqual([
      ["21", "48"],
      ["21", "12"],
      ["113", "6.5"],
    ]);
    expect(ic?.messages[0]?.identifier).toEqual({
      type: "ORDRSP",
      version: "D",
      release: "25A",
      agency: "UN",
    });
  });
});
