import { describe, expect, it } from "vitest";
import { getDirectory } from "../directories/directory.registry.js";
import { parseInterchange } from "../envelope/interchange.parser.js";
import { toInterchange } from "../envelope/interchange.model.js";
import { expectGolden } from "../testing/golden.fixture.js";
import {
  latin1,
  outbound,
  PARTLY_BROKEN_ORDERS,
  REJECTED_ORDERS,
  UNT_MISMATCH_ORDERS,
  VALID_ORDERS,
} from "../testing/sample.fixture.js";
import { validateInterchange } from "../validation/interchange.validator.js";
import { buildContrl } from "./contrl.builder.js";
import { serializeInterchange } from "./serializer.js";

function contrlFor(input: string, version: 3 | 4): Uint8Array {
  const parsed = parseInterchange(latin1(input));
  const report = validateInterchange(parsed, { directory: getDirectory("D96A") });
  return serializeInterchange(buildContrl(parsed.interchange, report, outbound(version)));
}

const text = (b: Uint8Array): string => Buffer.from(b).toString("latin1");

describe("CONTRL builder", () => {
  const cases = [
    ["positive", VALID_ORDERS],
    ["partially-rejected", PARTLY_BROKEN_ORDERS],
    ["rejected", REJECTED_ORDERS],
  ] as const;
  for (const [name, input] of cases) {
    for (const version of [3, 4] as const) {
      it(`${name} CONTRL, syntax ${version}, byte for byte`, () => {
        expectGolden(import.meta.dirname, `contrl-${name}-v${version}.edi`, contrlFor(input, version));
      });
    }
  }

  it("a receipt-only CONTRL (UCI action 8) names the interchange and reports nothing else", () => {
    for (const input of [VALID_ORDERS, PARTLY_BROKEN_ORDERS]) {
      const parsed = parseInterchange(latin1(input));
      const report = validateInterchange(parsed, { directory: getDirectory("D96A") });
      const receipt = text(
        serializeInterchange(buildContrl(parsed.interchange, report, outbound(3), { receiptOnly: true })),
      );
      const segments = receipt
        .split("'")
        .filter(Boolean)
        .map((s) => s.slice(0, 3));
      expect(segments).toEqual(["UNB", "UNH", "UCI", "UNT", "UNZ"]);
      expect(receipt).toMatch(/UCI\+[^']*\+8'/);
    }
  });

  it("answers 5,000 broken messages with 5,000 UCM", () => {
    const messages = Array.from(
      { length: 5000 },
      (_, i) => `UNH+${String(i)}+ORDERS:D:96A:UN'BGM+220+PO+9'UNT+3+${String(i)}'`,
    );
    const input = `UNB+UNOC:3+A:14+B:14+240315:1200+IC1'${messages.join("")}UNZ+5000+IC1'`;
    const contrl = text(contrlFor(input, 3));
    expect(contrl.match(/'UCM\+/g)).toHaveLength(5000);
  });

  it("uses CONTRL 2:2 for syntax 3 and 4:1 for syntax 4", () => {
    expect(text(contrlFor(VALID_ORDERS, 3))).toContain("UNH+1+CONTRL:2:2:UN'");
    expect(text(contrlFor(VALID_ORDERS, 4))).toContain("UNH+1+CONTRL:4:1:UN'");
  });

  it("swaps sender and recipient and refers to the received interchange", () => {
    const out = text(contrlFor(VALID_ORDERS, 3));
    expect(out.startsWith("UNB+UNOC:3+4012345500004:14+5412345000013:14+250601:0830+OUT1'")).toBe(true);
    expect(out).toContain("UCI+IC1+5412345000013:14+4012345500004:14+7'");
  });

  it("acknowledges a clean interchange with UCI 7 alone", () => {
    expect(text(contrlFor(VALID_ORDERS, 4))).toMatch(/UCI\+IC1\+[^']*\+7'UNT\+3\+1'/);
  });

  it("rejects the interchange with UCI 4 on a UNZ count mismatch", () => {
    expect(text(contrlFor(REJECTED_ORDERS, 3))).toContain("+4+29+UNZ+1'");
  });

  it("reports a UNT count mismatch in UCM with code 29 and no UCS", () => {
    const out = text(contrlFor(UNT_MISMATCH_ORDERS, 3));
    expect(out).toContain("UCM+1+ORDERS:D:96A:UN+4+29+UNT+1'");
    expect(out).not.toContain("UCS");
  });

  it("reports a missing mandatory segment as UCS 13 at the segment found where it was expected", () => {
    const out = text(contrlFor(PARTLY_BROKEN_ORDERS, 3));
    // Message 2 has DTM where BGM is expected: position 2.
    expect(out).toContain("UCM+2+ORDERS:D:96A:UN+4'UCS+2+13'");
    expect(out).not.toContain("UCM+1+");
  });

  it("points element errors at segment, element and component", () => {
    const out = text(contrlFor(PARTLY_BROKEN_ORDERS, 4));
    expect(out).toContain("UCS+3'UCD+12+1'");
    expect(out).toContain("UCS+4'UCD+16+8'");
    expect(out).toContain("UCS+5'UCD+37+1:2'");
  });

  it("writes a CONTRL that parses back to the same model", () => {
    const bytes = contrlFor(PARTLY_BROKEN_ORDERS, 4);
    const parsed = parseInterchange(bytes);
    expect(parsed.issues).toEqual([]);
    expect(toInterchange(parsed.interchange)?.messages[0]?.identifier.type).toBe("CONTRL");
  });
});
