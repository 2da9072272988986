import { getDirectory, type BuiltInDirectoryId } from "../directories/directory.registry.js";
import type { Interchange, Message, Segment } from "../envelope/interchange.types.js";
import { buildAperak } from "../messages/aperak.builder.js";
import { buildOrdrsp, LineAction, ResponseType } from "../messages/ordrsp.builder.js";
import { seg, wrapMessage, type OutboundEnvelope } from "../messages/outbound.js";
import { serializeInterchange, type SerializeOptions } from "../messages/serializer.js";
import type { SyntaxIdentifier } from "../syntax/charset.js";
import type { Separators } from "../syntax/separators.js";

/**
 * Issue 23 item 6: a corpus made by the engine's own builders, so that a clone without the
 * customer's corpus (test/support/shared-data.ts) still runs the corpus tests' paths. Valid and
 * broken interchanges of syntax versions 3 and 4 for both directories the engine ships (D.96A,
 * D.25A) — ORDERS written through the serializer, ORDRSP and APERAK through their builders — each
 * broken one with the defect classes (ISO 9735 error codes) the shared corpus expects. Made afresh
 * on every call from a seed: the same seed gives the same bytes.
 */
export interface GeneratedCase {
  /** A file-like name: message, directory, syntax version, what it exercises. */
  readonly name: string;
  readonly directory: BuiltInDirectoryId;
  readonly syntaxVersion: 3 | 4;
  readonly bytes: Uint8Array;
  /** The distinct codes validating against `directory` reports, ascending; empty when valid. */
  readonly codes: readonly number[];
  readonly why: string;
}

/** A small deterministic generator (32-bit LCG): item numbers, quantities and references. */
function seeded(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

const GTINS = ["4000862141404", "4000862141411", "4000862141428", "4012345500004", "5412345000013"];
const BUYER = { id: "5412345000013", qualifier: "14" };
const SUPPLIER = { id: "4012345500004", qualifier: "14" };

function envelope(
  version: 3 | 4,
  ref: string,
  options: { id?: SyntaxIdentifier; separators?: Separators } = {},
): OutboundEnvelope {
  return {
    syntaxIdentifier: options.id ?? "UNOC",
    syntaxVersion: version,
    sender: BUYER,
    recipient: SUPPLIER,
    controlRef: ref,
    messageRef: "1",
    preparedAt: new Date(Date.UTC(2026, 0, 15, 9, 30)),
    ...(options.separators ? { separators: options.separators } : {}),
  };
}

/** The segments of an ORDERS message with `lines` order lines (between UNH and UNT). */
function ordersSegments(next: (n: number) => number, po: string, lines: number, text?: string): Segment[] {
  const segments: Segment[] = [seg("BGM", "220", po, "9"), seg("DTM", ["137", "20260115", "102"])];
  if (text !== undefined) segments.push(seg("FTX", "AAI", "", "", [text]));
  segments.push(seg("NAD", "BY", [BUYER.id, "", "9"]), seg("NAD", "SU", [SUPPLIER.id, "", "9"]));
  for (let i = 1; i <= lines; i++) {
    segments.push(
      seg("LIN", String(i), "", [GTINS[next(GTINS.length)] as string, "EN"]),
      seg("QTY", ["21", String(1 + next(500))]),
    );
  }
  segments.push(seg("UNS", "S"), seg("CNT", ["2", String(lines)]));
  return segments;
}

function ordersMessage(directory: BuiltInDirectoryId, segments: Segment[], ref = "1"): Message {
  const d = getDirectory(directory);
  return {
    ref,
    identifier: { type: "ORDERS", version: d.version, release: d.release, agency: "UN" },
    segments,
  };
}

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("latin1");
const bytesOf = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, "latin1"));

/** Serialises, then edits the text (what the serializer would never write). */
function written(ic: Interchange, edit: (text: string) => string = (t) => t, options?: SerializeOptions) {
  return bytesOf(edit(latin1(serializeInterchange(ic, options))));
}

/** Replaces exactly one occurrence of `from`: an edit that misses is a mistake in this file. */
function once(text: string, from: string | RegExp, to: string): string {
  const matches = typeof from === "string" ? text.split(from).length - 1 : (text.match(from) ?? []).length;
  if (matches !== 1) throw new Error(`generated corpus: ${String(from)} occurs ${matches} times`);
  return text.replace(from, to);
}

export function generatedCorpus(seed = 23): GeneratedCase[] {
  const next = seeded(seed);
  const cases: GeneratedCase[] = [];
  const add = (
    name: string,
    directory: BuiltInDirectoryId,
    syntaxVersion: 3 | 4,
    bytes: Uint8Array,
    codes: number[],
    why: string,
  ): void => {
    cases.push({ name, directory, syntaxVersion, bytes, codes, why });
  };
  const orders = (
    directory: BuiltInDirectoryId,
    version: 3 | 4,
    ref: string,
    options: { lines?: number; text?: string; id?: SyntaxIdentifier; separators?: Separators } = {},
  ): Interchange =>
    wrapMessage(
      envelope(version, ref, options),
      ordersMessage(directory, ordersSegments(next, `PO-${ref}`, options.lines ?? 2, options.text)),
    );

  // Valid interchanges: every message the engine builds, both directories and syntax versions.
  for (const directory of ["D96A", "D25A"] as const) {
    const d = getDirectory(directory);
    for (const version of [3, 4] as const) {
      const tag = `${directory.toLowerCase()}-v${version}`;
      add(
        `orders-${tag}-valid`,
        directory,
        version,
        written(orders(directory, version, `V${version}`)),
        [],
        "valid ORDERS",
      );
      const order = { documentNumber: `PO-V${version}`, messageRef: "1", date: "20260115" };
      const ordrsp = buildOrdrsp({
        directory: d,
        envelope: envelope(version, `R${version}`),
        documentNumber: `RSP-${version}`,
        responseType: ResponseType.changed,
        order,
        buyer: { id: BUYER.id },
        supplier: { id: SUPPLIER.id },
        lines: [
          {
            lineNumber: "1",
            action: LineAction.accepted,
            item: { id: GTINS[0] as string, type: "EN" },
            quantity: { value: "12" },
          },
          {
            lineNumber: "2",
            action: LineAction.changed,
            item: { id: GTINS[1] as string, type: "EN" },
            quantity: { value: "7.5", unit: "KGM" },
          },
        ],
      });
      add(`ordrsp-${tag}-valid`, directory, version, written(ordrsp), [], "valid ORDRSP (builder)");
      const aperak = buildAperak({
        directory: d,
        envelope: envelope(version, `A${version}`),
        documentNumber: `APK-${version}`,
        order,
        buyer: { id: BUYER.id },
        errors: [{ code: "12", text: "Unknown item 4000862141404: line 1 not accepted", lineNumber: "1" }],
      });
      // D.96A's list 1001 lacks 313 (the exchange's directory adds it, processing.rules.ts).
      const d96a = directory === "D96A";
      add(
        `aperak-${tag}-${d96a ? "bgm-313" : "valid"}`,
        directory,
        version,
        written(aperak),
        d96a ? [12] : [],
        d96a ? "APERAK BGM 1001 = 313 is no D.96A code (12)" : "valid APERAK (builder)",
      );
    }
  }

  // Valid, in the forms the shared corpus has: other separators (UNA) with released service
  // characters in data, a BOM and CRLF after each segment, UTF-8 text, a group, many lines.
  const v4una: Separators = {
    component: "^",
    element: "*",
    decimal: ",",
    release: "!",
    repetition: "~",
    terminator: "$",
  };
  add(
    "orders-d96a-v4-una-released",
    "D96A",
    4,
    written(orders("D96A", 4, "U4", { separators: v4una, text: "Deliver *before* noon: ring twice $ 5!" })),
    [],
    "UNA with other separators; service characters released in FTX",
  );
  add(
    "orders-d25a-v3-bom-crlf",
    "D25A",
    3,
    Uint8Array.from([
      0xef,
      0xbb,
      0xbf,
      ...written(orders("D25A", 3, "B3"), undefined, { segmentSuffix: "\r\n" }),
    ]),
    [],
    "UTF-8 BOM and CRLF after every segment",
  );
  add(
    "orders-d96a-v4-unoy",
    "D96A",
    4,
    serializeInterchange(
      orders("D96A", 4, "Y4", {
        id: "UNOY",
        text: "Gr\u00fc\u00dfe aus K\u00f6ln \u20ac \u0416\u0443\u043a",
      }),
    ),
    [],
    "UNOY: UTF-8 multi-byte text",
  );
  const grouped: Interchange = {
    ...orders("D25A", 4, "G4"),
    messages: [],
    groups: [
      {
        ref: "G1",
        groupId: "ORDERS",
        sender: BUYER,
        recipient: SUPPLIER,
        date: "20260115",
        time: "0930",
        agency: "UN",
        messageVersion: { version: "D", release: "25A" },
        messages: [
          ordersMessage("D25A", ordersSegments(next, "PO-G1", 2)),
          ordersMessage("D25A", ordersSegments(next, "PO-G2", 1), "2"),
        ],
      },
    ],
  };
  add("orders-d25a-v4-group", "D25A", 4, written(grouped), [], "a UNG/UNE group of two messages");
  add(
    "orders-d96a-v3-long",
    "D96A",
    3,
    written(orders("D96A", 3, "L3", { lines: 2500 })),
    [],
    "2,500 lines: several 64 KiB windows",
  );

  // Broken: one defect class each, as the shared corpus has them.
  add(
    "orders-d96a-v3-iatb",
    "D96A",
    3,
    written(orders("D96A", 3, "E2"), (t) => once(t, "UNB+UNOC", "UNB+IATB")),
    [2],
    "syntax identifier IATB (2)",
  );
  add(
    "orders-d25a-v4-bad-code",
    "D25A",
    4,
    written(orders("D25A", 4, "E12"), (t) => once(t, "BGM+220+", "BGM+ZZZ+")),
    [12],
    "BGM 1001 = ZZZ is no code (12)",
  );
  add(
    "orders-d96a-v3-no-bgm",
    "D96A",
    3,
    written(orders("D96A", 3, "E13"), (t) => once(t, /BGM\+[^']*'/, "")),
    [13, 29],
    "mandatory BGM missing (13), UNT counts it (29)",
  );
  add(
    "orders-d25a-v3-no-unz",
    "D25A",
    3,
    written(orders("D25A", 3, "Z13"), (t) => once(t, /UNZ\+[^']*'$/, "")),
    [13],
    "no UNZ (13)",
  );
  add(
    "orders-d96a-v4-on-d25a",
    "D25A",
    4,
    written(orders("D96A", 4, "E14")),
    [14],
    "a D.96A message validated against D.25A (14)",
  );
  const late = ordersSegments(next, "PO-E15", 2);
  late.splice(-1, 0, seg("DTM", ["137", "20260115", "102"]));
  add(
    "orders-d25a-v3-out-of-order",
    "D25A",
    3,
    written(wrapMessage(envelope(3, "E15"), ordersMessage("D25A", late))),
    [15],
    "DTM after UNS (15)",
  );
  add(
    "orders-d96a-v4-bgm-elements",
    "D96A",
    4,
    written(orders("D96A", 4, "E16"), (t) => once(t, "+9'", "+9+AA+EXTRA'")),
    [16],
    "BGM with too many data elements (16)",
  );
  add(
    "orders-d25a-v4-unoa-lower",
    "D25A",
    4,
    written(orders("D25A", 4, "E21", { id: "UNOA" }), (t) => once(t, "PO-E21", "po-e21")),
    [21],
    "lower case under UNOA (21)",
  );
  add(
    "orders-d96a-v3-release",
    "D96A",
    3,
    written(orders("D96A", 3, "E22"), (t) => once(t, "PO-E22", "PO?-E22")),
    [22],
    "? releases a non-service character (22)",
  );
  add(
    "orders-d25a-v3-unterminated",
    "D25A",
    3,
    written(orders("D25A", 3, "T22"), (t) => t.slice(0, -1)),
    [22],
    "the last segment has no terminator (22)",
  );
  const twice = orders("D96A", 4, "E26");
  add(
    "orders-d96a-v4-duplicate",
    "D96A",
    4,
    written({ ...twice, messages: [...twice.messages, ...twice.messages] }),
    [26],
    "two messages with one reference (26)",
  );
  add(
    "orders-d25a-v4-unz-ref",
    "D25A",
    4,
    written(orders("D25A", 4, "E28"), (t) => once(t, /UNZ\+1\+E28'$/, "UNZ+1+X28'")),
    [28],
    "UNZ reference differs from UNB's (28)",
  );
  add(
    "orders-d96a-v3-counts",
    "D96A",
    3,
    written(orders("D96A", 3, "E29"), (t) => once(t, /UNZ\+1\+/, "UNZ+3+")),
    [29],
    "UNZ counts three messages (29)",
  );
  add(
    "orders-d25a-v3-outside",
    "D25A",
    3,
    written(orders("D25A", 3, "E33"), (t) => once(t, /UNZ\+/, "FTX+AAI+++STRAY'UNZ+")),
    [33],
    "a segment outside a message (33)",
  );
  add(
    "orders-d96a-v4-two-interchanges",
    "D96A",
    4,
    bytesOf(latin1(written(orders("D96A", 4, "I1"))) + latin1(written(orders("D96A", 4, "I2")))),
    [33],
    "two interchanges in one input (33)",
  );
  add(
    "orders-d25a-v4-letters",
    "D25A",
    4,
    written(orders("D25A", 4, "E37"), (t) => once(t, "CNT+2:2'", "CNT+2:2A'")),
    [37],
    "letters in a numeric element (37)",
  );
  add(
    "orders-d96a-v3-too-long",
    "D96A",
    3,
    written(orders("D96A", 3, "E39"), (t) => once(t, "PO-E39", `PO-${"9".repeat(40)}`)),
    [39],
    "BGM 1004 longer than an..35 (39)",
  );
  add(
    "orders-d96a-v4-short-date",
    "D96A",
    4,
    written(orders("D96A", 4, "E40"), (t) => once(t, "+20260115:0930+", "+260115:0930+")),
    [40],
    "syntax 4 with a 6-digit UNB date (40)",
  );
  return cases;
}
