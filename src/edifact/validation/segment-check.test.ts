// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- tests read fixtures; the library itself does no I/O
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getDirectory } from "../directories/directory.registry.js";
import { elementContext, parseInterchange } from "../envelope/interchange.parser.js";
import { generatedCorpus } from "../testing/generated-corpus.js";
import { directoryProgram } from "./directory.program.js";
import { validateInterchange, type ValidateOptions } from "./interchange.validator.js";
import { FastWalk, withoutFastWalk } from "./segment-check.js";
import { quickContext } from "./segment.precheck.js";
import { StructureWalker } from "./structure.validator.js";
import { absent, corpusDir, hasCorpus } from "../../../test/support/shared-data.js";

const D96A = getDirectory("D96A");

/**
 * A D.96A ORDERS interchange of `lines` order lines with every value shape the fast path
 * takes (codes, numbers with the decimal mark, released plain text) and some it leaves.
 */
function orders(lines: number, opts: { una?: string; association?: boolean; version?: 3 | 4 } = {}): string {
  const version = opts.version ?? 3;
  const una = opts.una ?? "";
  const dec = una.length === 9 ? (una[5] as string) : ".";
  const rep = version === 4 ? "*" : "";
  const parts = [
    `${una}UNB+UNOC:${version}+5412345000013:14+4012345500004:14+${version === 4 ? "20240315" : "240315"}:1200+IC1'`,
    `UNH+1+ORDERS:D:96A:UN${opts.association ? ":EAN008" : ""}'BGM+220+PO-1+9'DTM+137:20240315:102'`,
    `FTX+AAI+++Deliver before noon?: ring twice'RFF+CT:C-77'NAD+BY+5412345000013::9'`,
    `NAD+SU+4012345500004::9'CUX+2:EUR:9'`,
  ];
  for (let n = 1; n <= lines; n++)
    parts.push(
      `LIN+${n}++${4000862000000 + n}:EN'PIA+1+ART-${n}:SA'IMD+F++:::Article ${n} 500 ml?'s bottle'` +
        `QTY+21:${(n % 97) + 1}:PCE'${n % 7 === 0 ? `ALI+DE${rep}'` : ""}DTM+2:20240320:102'` +
        `PRI+AAA:${n % 100}${dec}${n % 10}5:CT'`,
    );
  const segments = 8 + 6 * lines + Math.floor(lines / 7) + 3;
  parts.push(`UNS+S'CNT+2:${lines}'UNT+${segments}+1'UNZ+1+IC1'`);
  return parts.join("");
}

const bytes = (text: string): Buffer => Buffer.from(text, "latin1");

function reports(input: Buffer, options: ValidateOptions) {
  const fast = validateInterchange(parseInterchange(input), options);
  const typescript = withoutFastWalk(() => validateInterchange(parseInterchange(input), options));
  return { fast, typescript };
}

/** One edit of the text: what a broken partner or a hostile sender produces. */
const mutation = fc.oneof(
  fc.record({
    kind: fc.constant("byte" as const),
    at: fc.nat(),
    to: fc.constantFrom(...Array.from("AZ09.,-?+:'* \u00e9\u0001")),
  }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant("repeat" as const), at: fc.nat(), times: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant("swap" as const), at: fc.nat(), with: fc.nat() }),
  fc.record({ kind: fc.constant("long" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 400 }) }),
);

function apply(text: string, m: MutationValue): string {
  const segments = text.split("'");
  const pick = (n: number): number => n % Math.max(1, segments.length - 1);
  switch (m.kind) {
    case "byte": {
      const at = m.at % text.length;
      return text.slice(0, at) + m.to + text.slice(at + 1);
    }
    case "cut": {
      const at = m.at % text.length;
      return text.slice(0, at) + text.slice(at + m.length);
    }
    case "repeat": {
      const i = pick(m.at);
      segments.splice(i, 0, ...Array.from({ length: m.times }, () => segments[i] as string));
      return segments.join("'");
    }
    case "swap": {
      const i = pick(m.at);
      const j = pick(m.with);
      [segments[i], segments[j]] = [segments[j] as string, segments[i] as string];
      return segments.join("'");
    }
    case "long": {
      const at = m.at % text.length;
      return text.slice(0, at) + "X".repeat(m.length) + text.slice(at);
    }
  }
}
type MutationValue = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

describe("the WebAssembly fast path of validation", () => {
  it("takes every segment of a valid message, so the TypeScript path sees none of them", () => {
    const parsed = parseInterchange(bytes(orders(40))).interchange;
    const message = parsed.messages[0];
    if (!message) throw new Error("no message");
    const def = D96A.messages.get("ORDERS");
    if (!def) throw new Error("no ORDERS");
    const quick = quickContext({ ...elementContext(parsed.tokens, 3), checkCodes: true });
    const fast = FastWalk.for(parsed.tokens, message.lastSegment, quick, directoryProgram(D96A), def);
    expect(fast).toBeDefined();
    const walker = new StructureWalker(def);
    expect(fast?.run(walker, message.firstSegment)).toBe(message.lastSegment + 1);
    expect(walker.tableState).toBeGreaterThan(0);
  });

  it("stops at the first unusual segment without taking it (a code it does not know)", () => {
    const text = orders(3).replace("QTY+21:2:PCE", "QTY+ZZZ:2:PCE");
    const parsed = parseInterchange(bytes(text)).interchange;
    const message = parsed.messages[0];
    const def = D96A.messages.get("ORDERS");
    if (!message || !def) throw new Error("no message");
    const quick = quickContext({ ...elementContext(parsed.tokens, 3), checkCodes: true });
    const fast = FastWalk.for(parsed.tokens, message.lastSegment, quick, directoryProgram(D96A), def);
    const stop = fast?.run(new StructureWalker(def), message.firstSegment) ?? -1;
    const t = parsed.tokens;
    expect(text.slice(t.segStart[stop], t.segEnd[stop])).toBe("QTY+ZZZ:2:PCE");
    const report = validateInterchange(parseInterchange(bytes(text)), { directory: D96A });
    expect(report.issues.map((i) => [i.code, i.tag])).toEqual([[12, "QTY"]]);
  });

  it("gives the same report as the TypeScript path on mutated interchanges", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(undefined, "UNA:+,? '", "UNA:+.? '"),
        fc.boolean(),
        fc.constantFrom("association" as const, "strict" as const),
        fc.constantFrom(3 as const, 4 as const),
        (lines, edits, una, association, codeLists, version) => {
          let text = orders(lines, { una, association, version });
          for (const edit of edits) text = apply(text, edit);
          const { fast, typescript } = reports(bytes(text), { directory: D96A, codeLists });
          expect(fast).toEqual(typescript);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("gives the same report across windows, with a segment longer than a window", () => {
    // ~5,000 lines: about 400 KiB, six windows of the fast path; one FTX of 70,000 bytes.
    const base = orders(5000);
    const long = base.replace("FTX+AAI+++Deliver", `FTX+AAI+++${"Y".repeat(70_000)}`);
    for (const text of [base, long]) {
      const { fast, typescript } = reports(bytes(text), { directory: D96A });
      expect(fast).toEqual(typescript);
    }
    expect(
      validateInterchange(parseInterchange(bytes(long)), { directory: D96A }).issues.map((i) => i.code),
    ).toEqual([39]);
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 6 }), (edits) => {
        let text = base;
        for (const edit of edits) text = apply(text, edit);
        const { fast, typescript } = reports(bytes(text), { directory: D96A });
        expect(fast).toEqual(typescript);
      }),
      { numRuns: 25 },
    );
  });

  it("gives the same report as the TypeScript path on every file of the generated corpus (issue 23)", () => {
    for (const c of generatedCorpus()) {
      for (const codeLists of ["association", "strict"] as const) {
        const { fast, typescript } = reports(Buffer.from(c.bytes), {
          directory: getDirectory(c.directory),
          codeLists,
        });
        expect(fast, c.name).toEqual(typescript);
      }
    }
  });

  const corpus = hasCorpus ? readdirSync(corpusDir).filter((f) => f.endsWith(".edi")) : [];
  it.skipIf(corpus.length === 0)(
    `gives the same report as the TypeScript path on every corpus file${corpus.length === 0 ? ` (${absent(corpusDir)})` : ""}`,
    () => {
      for (const file of corpus) {
        const input = readFileSync(join(corpusDir, file));
        for (const codeLists of ["association", "strict"] as const) {
          const { fast, typescript } = reports(input, { directory: D96A, codeLists });
          expect(fast, file).toEqual(typescript);
        }
      }
    },
  );
});
