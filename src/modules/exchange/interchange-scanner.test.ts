import { describe, expect, it } from "vitest";
import { InterchangeScanner, scanInterchange } from "./interchange-scanner.js";
import { validOrders } from "./testing/exchange.fixtures.js";

/** Feeds the input in pieces of `size` bytes, as a streamed upload arrives. */
function scanInPieces(text: string | Buffer, size: number) {
  const bytes = typeof text === "string" ? Buffer.from(text, "latin1") : text;
  const scanner = new InterchangeScanner();
  for (let i = 0; i < bytes.length; i += size) scanner.push(bytes.subarray(i, i + size));
  return scanner.finish();
}

describe("exactly one interchange (synchronous upload check)", () => {
  const cases: [string, string | Buffer, boolean, string?][] = [
    ["a plain UNB … UNZ", validOrders("IC1"), true, "IC1"],
    [
      "with UNA and other separators",
      "UNA|^.? ~UNB^UNOC|3^A|14^B|14^240315|1200^R?~1~UNH^1^ORDERS|D|96A|UN~UNT^2^1~UNZ^1^R?~1~",
      true,
      "R~1",
    ],
    [
      "with a UTF-8 BOM and line breaks",
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(validOrders("B1").replaceAll("'", "'\r\n")),
      ]),
      true,
      "B1",
    ],
    ["UNZ without a final terminator", validOrders("N1").slice(0, -1), true, "N1"],
    ["a released apostrophe inside data", validOrders("Q1").replace("PO-Q1", "PO?'Q1"), true, "Q1"],
    ["empty", "", false],
    ["starting with UNH", "UNH+1+ORDERS:D:96A:UN'UNT+2+1'", false],
    ["two interchanges", validOrders("A") + validOrders("B"), false],
    ["no UNZ", validOrders("A").replace(/UNZ\+1\+A'$/, ""), false],
    ["data after UNZ", `${validOrders("A")}XYZ'`, false],
    ["a BOM alone", Buffer.from([0xef, 0xbb, 0xbf]), false],
  ];
  for (const [name, input, ok, ref] of cases) {
    it(name, () => {
      for (const size of [1, 3, 7, 4096]) {
        const result = scanInPieces(input, size);
        expect(result.ok, `${name} in pieces of ${size}`).toBe(ok);
        if (ref) expect(result.interchangeId).toBe(ref);
        if (!ok) expect(result.reason).toBeTruthy();
      }
    });
  }
  it("scanInterchange is the one-shot form", () => {
    expect(scanInterchange(Buffer.from(validOrders("X")))).toEqual({ ok: true, interchangeId: "X" });
  });
});
