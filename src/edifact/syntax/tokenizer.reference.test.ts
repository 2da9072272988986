import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareWithReference,
  firstDifference,
  tokenTableView,
} from "../testing/tokenizer-reference.fixture.js";
import { SYNTAX_IDENTIFIERS } from "./charset.js";
import { DEFAULT_SEPARATORS_V4, type Separators } from "./separators.js";
import { referenceTokenize } from "./tokenizer.reference.js";
import { MAX_ISSUES, tokenize } from "./tokenizer.js";

/**
 * Issue 23 item 4: the WebAssembly scan (tokenizer.wat, simd-scan.ts) and the issues tokenizer.ts
 * words from it give what the byte-by-byte reference (tokenizer.reference.ts) gives — token
 * starts, coordinates and release flags, segment starts and ends, issues with their places — for
 * random UNA separators, syntax versions 3 and 4, every repertoire (and an unknown one), UTF-8
 * multi-byte text, and inputs of several 64 KiB windows.
 */

const bytesOf = (text: string): number[] => [...Buffer.from(text, "utf8")];
const latin1 = (text: string): number[] => [...Buffer.from(text, "latin1")];

/** Characters a UNA may advise (no letters, digits or space), plus a line feed and a Latin-1 byte. */
const SERVICE_POOL = [...Array.from("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"), "\n", "\u00a7"];

/** UNA service characters: distinct (usable) as a rule, now and then clashing or odd. */
const unaService: fc.Arbitrary<Separators> = fc
  .tuple(
    fc.shuffledSubarray(SERVICE_POOL, { minLength: 5, maxLength: 5 }),
    fc.boolean(),
    fc.boolean(),
    fc.constantFrom(".", ",", ";"),
    fc.nat(19),
  )
  .map(([[component, element, release, repetition, terminator], noRelease, noRepetition, decimal, odd]) => {
    const service = {
      component: component as string,
      element: element as string,
      decimal,
      release: noRelease ? " " : (release as string),
      repetition: noRepetition ? " " : (repetition as string),
      terminator: terminator as string,
    };
    // One in twenty: a clash (the UNA is unusable and nothing after it is read).
    return odd === 0 ? { ...service, element: service.component } : service;
  });

/** What one piece of a generated body is; rendered with the interchange's service characters. */
const WORDS = [
  "LIN",
  "QTY",
  "ABC",
  "4000862141404",
  "x",
  "abc def",
  "A.B,C-D(E)/F=G",
  "\u00e4\u00f6\u00fc",
  "Gr\u00fc\u00dfe \u20ac",
  "\u03a9\u03bc\u03ad\u03b3\u03b1",
  "\u0416\u0443\u043a",
  "\u{1f600} ok",
];
/** Raw bytes: Latin-1, Cyrillic and Greek letters, and what no repertoire or UTF-8 takes. */
const RAW = [
  [0xfc],
  [0xbf, 0xe0, 0xd8],
  [0xe1, 0xe2],
  [0xae],
  [0x01],
  [0x7f],
  [0x85],
  [0xc3],
  [0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe0, 0x80, 0x80],
  [0xf0, 0x9f],
  [0xc3, 0xa9],
];

type Piece =
  | { kind: "word"; index: number }
  | { kind: "raw"; index: number }
  | { kind: "component" | "element" | "repetition" | "terminator" | "lineBreak" | "crlfAfterTerminator" }
  | {
      kind: "released";
      what: "component" | "element" | "repetition" | "terminator" | "release" | "data" | "bad";
    }
  | { kind: "release" }
  | { kind: "run"; of: "component" | "element" | "repetition"; length: number };

const word = fc.nat(WORDS.length - 1).map((index): Piece => ({ kind: "word", index }));
const raw = fc.nat(RAW.length - 1).map((index): Piece => ({ kind: "raw", index }));
const separator = fc
  .constantFrom(
    "component",
    "element",
    "repetition",
    "terminator",
    "lineBreak",
    "crlfAfterTerminator" as const,
  )
  .map((kind): Piece => ({ kind }));
const releasedPiece = fc
  .constantFrom("component", "element", "repetition", "terminator", "release", "data", "bad" as const)
  .map((what): Piece => ({ kind: "released", what }));
const lonelyRelease = fc.constant<Piece>({ kind: "release" });
/** Long segments: over 128 tokens (walked again for the field limits), now and then past them. */
const run = fc
  .tuple(
    fc.constantFrom("component", "element", "repetition" as const),
    fc.constantFrom(130, 200, 1030, 8200),
  )
  .map(([of, length]): Piece => ({ kind: "run", of, length }));

const pieceKinds = { word, raw, separator, released: releasedPiece, release: lonelyRelease, run };

/** Pieces of the given kinds, each as often as its weight says. */
function mix(weights: Partial<Record<keyof typeof pieceKinds, number>>): fc.Arbitrary<Piece> {
  const kinds = Object.keys(weights) as (keyof typeof pieceKinds)[];
  return fc.oneof(...kinds.map((kind) => ({ weight: weights[kind] ?? 0, arbitrary: pieceKinds[kind] })));
}

function render(piece: Piece, s: Separators): number[] {
  const sep = (c: string): number[] => latin1(c);
  const release = s.release === " " ? [] : sep(s.release);
  switch (piece.kind) {
    case "word":
      return bytesOf(WORDS[piece.index] as string);
    case "raw":
      return RAW[piece.index] as number[];
    case "component":
    case "element":
    case "repetition":
    case "terminator":
      return sep(s[piece.kind]);
    case "lineBreak":
      return [0x0a];
    case "crlfAfterTerminator":
      return [...sep(s.terminator), 0x0d, 0x0a];
    case "released": {
      const what = piece.what === "data" ? [0x41] : piece.what === "bad" ? [0x01] : sep(s[piece.what]);
      return [...release, ...what];
    }
    case "release":
      return release;
    case "run":
      return new Array<number>(piece.length).fill(sep(s[piece.of]).at(0) as number);
  }
}

interface Interchange {
  readonly bom: boolean;
  /** null: no UNA (the version's default separators). */
  readonly una: Separators | null;
  readonly version: 3 | 4 | undefined;
  readonly id: string;
  readonly pieces: readonly Piece[];
}

function interchangeBytes(ic: Interchange): Uint8Array {
  const s = ic.una ?? DEFAULT_SEPARATORS_V4;
  const out: number[] = ic.bom ? [0xef, 0xbb, 0xbf] : [];
  if (ic.una) {
    const { component, element, decimal, release, repetition, terminator } = ic.una;
    out.push(
      ...latin1(`UNA${component}${element}${decimal}${release}${repetition}${terminator}`),
      0x0d,
      0x0a,
    );
  }
  const e = latin1(s.element);
  const c = latin1(s.component);
  const version = ic.version === undefined ? [] : [...c, 0x30 + ic.version];
  out.push(
    ...latin1("UNB"),
    ...e,
    ...latin1(ic.id),
    ...version,
    ...e,
    0x41,
    ...e,
    0x42,
    ...latin1(s.terminator),
  );
  for (const piece of ic.pieces) out.push(...render(piece, s));
  return Uint8Array.from(out);
}

const repertoire = fc.constantFrom(...SYNTAX_IDENTIFIERS, "IATB", "UNOX");
const version = fc.constantFrom(3 as const, 4 as const, undefined);

/** The scan and the reference agree exactly below the issue cap (see ReferenceTokens.findings). */
function agrees(bytes: Uint8Array): void {
  const { difference, findings } = compareWithReference(bytes);
  fc.pre(findings < MAX_ISSUES);
  expect(difference).toBeUndefined();
}

/** Interchanges of `length` pieces, with a UNA in `unaFreq` − 1 of `unaFreq` cases. */
function interchanges(
  piece: fc.Arbitrary<Piece>,
  length: { minLength?: number; maxLength: number },
  unaFreq: number,
): fc.Arbitrary<Interchange> {
  return fc.record({
    bom: fc.boolean(),
    una: fc.option(unaService, { freq: unaFreq }),
    version,
    id: repertoire,
    pieces: fc.array(piece, length),
  });
}

const agreesOn = (ic: Interchange): void => {
  agrees(interchangeBytes(ic));
};

describe("issue 23: the tokenizer agrees with its byte-by-byte reference", () => {
  it("on short inputs with random UNA separators, syntax versions 3 and 4 and every repertoire", () => {
    const piece = mix({ word: 6, raw: 3, separator: 8, released: 3, release: 1 });
    fc.assert(fc.property(interchanges(piece, { maxLength: 200 }, 3), agreesOn), { numRuns: 600 });
  });

  it("on long segments (field limits and their one code 16)", () => {
    const piece = mix({ word: 4, separator: 4, run: 1 });
    fc.assert(fc.property(interchanges(piece, { maxLength: 40 }, 2), agreesOn), { numRuns: 150 });
  });

  it("on inputs of several windows, with tokens, release characters and line breaks across their edges", () => {
    // Plain segments up to a little before the end of the first or second window, then random
    // pieces across it: mostly plain data, so that the input stays well below the issue cap.
    const piece = mix({ word: 60, separator: 60, raw: 3, released: 3, release: 1, run: 1 });
    const interchange = interchanges(piece, { minLength: 1000, maxLength: 4000 }, 4);
    const filler = fc.tuple(fc.constantFrom(1, 2), fc.integer({ min: -3000, max: 0 }));
    fc.assert(
      fc.property(interchange, filler, (ic, [windows, shift]) => {
        const head = interchangeBytes({ ...ic, pieces: [] });
        const fill = Math.max(0, windows * 65_536 + shift - head.length);
        const segment: Piece[] = [{ kind: "word", index: 0 }, { kind: "element" }];
        const plain: Piece[] = [];
        for (let size = 0; size < fill; size += 5) plain.push(...segment, { kind: "terminator" });
        const bytes = interchangeBytes({ ...ic, pieces: [...plain, ...ic.pieces] });
        agrees(bytes);
      }),
      { numRuns: 20 },
    );
  }, 120_000);

  it("past the cap, both list the first 1,000 issues and say there are more", () => {
    const input = Buffer.from(`UNB+UNOC:4+A+B+20240101:1200+1'${"FTX+a\u0001'".repeat(40000)}`, "latin1");
    const { findings, ...expected } = referenceTokenize(input);
    expect(findings).toBe(40000);
    expect(expected.issues).toHaveLength(MAX_ISSUES + 1);
    expect(firstDifference(tokenTableView(tokenize(input)), expected)).toBeUndefined();
  });

  it("a space as release character means none; UTF-8 text is checked after the scan, in the places of its tokens", () => {
    const noRelease = Buffer.from("UNA:+. *'UNB+UNOY:4+A+B'FTX+a ?b '", "latin1");
    const t = referenceTokenize(noRelease);
    expect(t.tokens.every((k) => !k.released)).toBe(true);
    expect(compareWithReference(noRelease).difference).toBeUndefined();
    const utf8 = Uint8Array.from([...bytesOf("UNB+UNOY:4+A+B'FTX+Gr\u00fc\u00dfe+x:"), 0xc3, 0x28, 0x27]);
    expect(referenceTokenize(utf8).issues).toEqual([
      { code: 21, offset: utf8.length - 3, segment: 1, element: 2, component: 1, occurrence: 0 },
    ]);
    expect(compareWithReference(utf8).difference).toBeUndefined();
  });
});
