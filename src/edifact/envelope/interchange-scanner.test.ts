import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ordersInterchange as validOrders } from "../testing/sample.fixture.js";
import { InterchangeScanner, scanInterchange, type InterchangeScanResult } from "./interchange-scanner.js";

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

describe("the rules hold wherever the chunks are cut", () => {
  const moreThanOne = "The body holds more than one interchange (UNB).";
  const afterUnz = "Data follows UNZ: the body holds more than one interchange.";
  const noUnz = "The interchange does not end with UNZ.";
  const withData = (ref: string, data: string) => validOrders(ref).replace(`PO-${ref}`, data);
  const lfUna =
    "UNA:+.? \nUNB+UNOC:3+S:14+R:14+240315:1200+LF1\nUNH+1+ORDERS:D:96A:UN\nUNT+2+1\nUNZ+1+LF1\n\n";
  const cases: [string, string, InterchangeScanResult][] = [
    [
      "an odd run of release characters releases the terminator: ?'UNB in data is no segment",
      withData("Q1", "PO???'UNB+X"),
      { ok: true, interchangeId: "Q1" },
    ],
    [
      "an even run of release characters does not: ??'UNB starts a second UNB",
      withData("Q2", "PO??'UNB+X"),
      { ok: false, reason: moreThanOne },
    ],
    ["?'UNZ in data is no segment", withData("Q3", "PO?'UNZ+1+Q3"), { ok: true, interchangeId: "Q3" }],
    [
      "a released terminator does not end UNZ",
      `${validOrders("A").slice(0, -1)}?'XYZ'`,
      { ok: true, interchangeId: "A" },
    ],
    ["line breaks after UNZ are skipped", `${validOrders("A")}\r\n\r\n`, { ok: true, interchangeId: "A" }],
    ["an empty segment after UNZ is data after UNZ", `${validOrders("A")}'`, { ok: false, reason: afterUnz }],
    [
      "a release character after UNZ is data after UNZ",
      `${validOrders("A")}\r\n?'`,
      { ok: false, reason: afterUnz },
    ],
    [
      "a second interchange fails on the data after UNZ first",
      validOrders("A") + validOrders("B"),
      { ok: false, reason: afterUnz },
    ],
    [
      "a second UNB before UNZ",
      validOrders("A").replace("UNH+", "UNB+UNOC:3+X:14+Y:14+240315:1200+B'UNH+"),
      { ok: false, reason: moreThanOne },
    ],
    [
      "a release character ends a tag: U?'NB is no UNB",
      withData("Q4", "PO'U?'NB+X"),
      { ok: true, interchangeId: "Q4" },
    ],
    [
      "a release character ends a tag: a last segment ?'UNZ is no UNZ",
      `${validOrders("A").replace(/UNZ\+1\+A'$/, "")}?'UNZ+1+A'`,
      { ok: false, reason: noUnz },
    ],
    [
      "a segment with a shorter tag keeps the last tag",
      `${validOrders("A").replace(/UNZ\+1\+A'$/, "")}UN+1'`,
      { ok: false, reason: noUnz },
    ],
    ["a line feed can be the terminator", lfUna, { ok: true, interchangeId: "LF1" }],
    [
      "a space as UNA's release character means none: a space before a terminator releases nothing",
      "UNA:+. *'UNB+UNOC:4+S+R+1+SP1'UNH+1+ORDERS:D:96A:UN'FTX+AAI+++TEXT 'UNT+3+1 'UNZ+1+SP1'",
      { ok: true, interchangeId: "SP1" },
    ],
    [
      "a release character that is the terminator never ends a segment",
      "UNA:+.' 'UNB+UNOC:3+S+R+1+X'UNZ+1+X'",
      { ok: false, reason: noUnz },
    ],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => {
      const bytes = Buffer.from(input, "latin1");
      expect(scanInterchange(bytes)).toEqual(expected);
      expect(scanInPieces(bytes, 1), "in pieces of 1").toEqual(expected);
      // Two chunks, cut at every position (inside tags, between a release character and its byte).
      for (let cut = 0; cut <= bytes.length; cut++) {
        const scanner = new InterchangeScanner();
        scanner.push(bytes.subarray(0, cut));
        scanner.push(bytes.subarray(cut));
        expect(scanner.finish(), `cut at ${cut}`).toEqual(expected);
      }
    });
  }

  it("a small interchange in three chunks cut at every pair of positions", () => {
    const bytes = Buffer.from(
      "\ufeffUNA:+.? 'UNB+UNOC:3+S+R+1+R??1'\r\nUNH+1'FTX+?'UNB?:??'UNT+2+1'UNZ+1+R??1'\r\n",
      "utf8",
    );
    const expected = { ok: true, interchangeId: "R?1" };
    expect(scanInterchange(bytes)).toEqual(expected);
    for (let a = 0; a <= bytes.length; a++) {
      for (let b = a; b <= bytes.length; b++) {
        const scanner = new InterchangeScanner();
        for (const piece of [bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)])
          scanner.push(piece);
        expect(scanner.finish(), `cut at ${a} and ${b}`).toEqual(expected);
      }
    }
  });

  it("chunks that are plain Uint8Arrays scan like Buffers", () => {
    const bytes = Buffer.from(withData("U1", "PO?'UNB+X"), "latin1");
    const scanner = new InterchangeScanner();
    for (let i = 0; i < bytes.length; i += 5) scanner.push(new Uint8Array(bytes.subarray(i, i + 5)));
    expect(scanner.finish()).toEqual({ ok: true, interchangeId: "U1" });
  });
});

describe("the verdict does not depend on how the upload is cut (property)", () => {
  // Fragments that meet every path of the scanner: tags the fast path searches for, release
  // characters before terminators and inside tags, line breaks, separators, plain segments.
  const fragments = [
    "UNB+UNOC:3+S+R+1+R1'",
    "UNZ+1+R1'",
    "UNH+1+ORDERS:D:96A:UN'",
    "FTX+AAI+++TEXT'",
    "'",
    "?",
    "??",
    "?'",
    "\r\n",
    "\n",
    "UN",
    "U",
    "B",
    "Z",
    "+",
    ":",
    "U?'NB",
    "UNZ",
    "UNB",
    "X",
  ];
  const prefixes = ["", "UNA:+.? '", "UNA:+.? \n", "UNA:+. *'", "\ufeff"];
  const inputs = fc
    .tuple(
      fc.constantFrom(...prefixes),
      fc.array(fc.constantFrom(...fragments), { maxLength: 40 }),
      fc.boolean(),
    )
    .map(([prefix, parts, typical]) =>
      Buffer.from(prefix + (typical ? "UNB+UNOC:3+S+R+1+R1'" : "") + parts.join(""), "utf8"),
    );

  it("one piece, random pieces and single bytes give the same verdict", () => {
    fc.assert(
      fc.property(inputs, fc.array(fc.nat(), { maxLength: 6 }), (bytes, rawCuts) => {
        const whole = scanInterchange(bytes);
        const cuts = [...new Set(rawCuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const pieces = new InterchangeScanner();
        let from = 0;
        for (const cut of [...cuts, bytes.length]) {
          pieces.push(bytes.subarray(from, cut));
          from = cut;
        }
        expect(pieces.finish()).toEqual(whole);
        expect(scanInPieces(bytes, 1)).toEqual(whole);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("the check stays linear on hostile input", () => {
  it("text dense in UNB that starts no segment, between segments that start oddly, is searched once per piece", () => {
    // Each segment starts with a separator (read byte by byte), then holds tags that start no
    // segment: searching again after every such segment made one 1 MiB piece cost minutes.
    const segment = `+${"UNB".repeat(6)}'`;
    const body = Buffer.from(
      `UNB+UNOC:3+S+R+1+R1'${segment.repeat((1 << 20) / segment.length)}UNZ+1+R1'`,
      "latin1",
    );
    expect(scanInterchange(body)).toEqual({ ok: true, interchangeId: "R1" });
    expect(scanInPieces(body, 65536)).toEqual({ ok: true, interchangeId: "R1" });
  });
});
