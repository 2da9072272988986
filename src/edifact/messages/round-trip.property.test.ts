import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getDirectory } from "../directories/directory.registry.js";
import { parseInterchange } from "../envelope/interchange.parser.js";
import { toInterchange } from "../envelope/interchange.model.js";
import type { Interchange, Message, Segment } from "../envelope/interchange.types.js";
import { defaultSeparators, type Separators } from "../syntax/separators.js";
import { latin1, VALID_ORDERS } from "../testing/sample.fixture.js";
import { validateInterchange } from "../validation/interchange.validator.js";
import { serializeInterchange } from "./serializer.js";

/** Characters of level A other than letters and digits: every UNA candidate lives here. */
const SPECIALS = Array.from("!\"%&'()*+,-./:;<=>?");
const LEVEL_A = Array.from("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,-()/='+:?!\"%&*;<>");

const word = (chars: string[], min: number, max: number) =>
  fc.array(fc.constantFrom(...chars), { minLength: min, maxLength: max }).map((a) => a.join(""));
const alnum = (min: number, max: number) =>
  word(Array.from("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), min, max);

const separatorsArb = (version: 3 | 4): fc.Arbitrary<Separators | undefined> =>
  fc.option(
    fc.shuffledSubarray(SPECIALS, { minLength: 5, maxLength: 5 }).chain((s) =>
      fc.constantFrom(".", ",").map((decimal): Separators => ({
        component: s[0] as string,
        element: s[1] as string,
        release: s[2] as string,
        terminator: s[3] as string,
        repetition: version === 4 ? (s[4] as string) : " ",
        decimal,
      })),
    ),
    { nil: undefined },
  );

/** Trailing empty components/elements are not written, so the generator does not make them. */
function normalise(segment: Segment): Segment {
  const elements = segment.elements.map((c) => {
    const out = [...c];
    while (out.length > 1 && out[out.length - 1] === "") out.pop();
    return out;
  });
  while (elements.length > 0 && elements[elements.length - 1]?.every((c) => c === "")) elements.pop();
  return { tag: segment.tag, elements };
}

const segmentArb: fc.Arbitrary<Segment> = fc
  .record({
    tag: word(Array.from("ABCDEFGHIJKLMNOPQRSTVWXYZ"), 3, 3),
    elements: fc.array(fc.array(word(LEVEL_A, 0, 12), { minLength: 1, maxLength: 4 }), {
      minLength: 0,
      maxLength: 5,
    }),
  })
  .map(normalise);

/** UNH S016/S017/S018: an identification with optional version, release and agency. */
const referenceArb = fc.record(
  { id: alnum(1, 14), version: alnum(1, 3), release: alnum(1, 3), agency: alnum(1, 3) },
  { requiredKeys: ["id"] },
);

/** A message; the syntax 4 parts of UNH (S009 0110/0113, S016–S018) only in syntax 4. */
const messageArb = (version: 3 | 4): fc.Arbitrary<Message> =>
  fc
    .record(
      {
        ref: alnum(1, 14),
        identifier: fc.record(
          {
            type: word(Array.from("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), 6, 6),
            version: fc.constant("D"),
            release: fc.constantFrom("96A", "25A"),
            agency: fc.constant("UN"),
            association: alnum(1, 6),
            codeListVersion: alnum(1, 6),
            subFunction: alnum(1, 6),
          },
          { requiredKeys: ["type", "version", "release", "agency"] },
        ),
        commonAccessRef: alnum(1, 35),
        transferStatus: fc.record(
          { sequence: fc.integer({ min: 1, max: 99 }).map(String), firstAndLast: fc.constantFrom("C", "F") },
          { requiredKeys: ["sequence"] },
        ),
        subset: referenceArb,
        implementationGuideline: referenceArb,
        scenario: referenceArb,
        segments: fc.array(segmentArb, { minLength: 1, maxLength: 6 }),
      },
      { requiredKeys: ["ref", "identifier", "segments"] },
    )
    .map((m) => {
      if (version === 4) return m;
      const { subset: _s, implementationGuideline: _g, scenario: _c, ...rest } = m;
      const { codeListVersion: _l, subFunction: _f, ...identifier } = m.identifier;
      return { ...rest, identifier };
    });

const interchangeArb: fc.Arbitrary<Interchange> = fc
  .constantFrom(3 as const, 4 as const)
  .chain((version) =>
    fc.record({
      syntax: fc.record({
        identifier: fc.constantFrom("UNOA", "UNOB", "UNOC", "UNOY"),
        version: fc.constant(version),
      }),
      separators: separatorsArb(version),
      sender: fc.record({ id: alnum(1, 35), qualifier: alnum(1, 4) }),
      recipient: fc.record({ id: alnum(1, 35) }),
      date: fc
        .date({ min: new Date("2001-01-01"), max: new Date("2098-12-31"), noInvalidDate: true })
        .map((d) => {
          const iso = d.toISOString();
          return version === 4 ? iso.slice(0, 10).replace(/-/g, "") : iso.slice(2, 10).replace(/-/g, "");
        }),
      time: fc.constantFrom("0000", "1234", "2359"),
      controlRef: alnum(1, 14),
      messages: fc.uniqueArray(messageArb(version), { minLength: 1, maxLength: 3, selector: (m) => m.ref }),
    }),
  )
  .map((ic) => (ic.separators === undefined ? (({ separators: _, ...rest }) => rest)(ic) : ic));

/** Text beyond ASCII for the repertoires that hold it: ISO 8859-1 (UNOC) and UTF-8 (UNOY). */
const LATIN1_TEXT = [...LEVEL_A, ...Array.from("abcxyzÄÖÜäöüßéèçñÅø")];
const UTF8_TEXT = [...LATIN1_TEXT, ...Array.from("ŁódźŒœ€東京ğşΩ")];

/** A segment whose elements may repeat (syntax 4); repeated occurrences are never empty. */
const repeatingSegmentArb = (chars: string[]): fc.Arbitrary<Segment> =>
  fc
    .record({
      tag: word(Array.from("ABCDEFGHIJKLMNOPQRSTVWXYZ"), 3, 3),
      elements: fc.array(fc.array(word(chars, 1, 10), { minLength: 1, maxLength: 3 }), {
        minLength: 1,
        maxLength: 4,
      }),
      repeated: fc.array(fc.array(word(chars, 1, 10), { minLength: 1, maxLength: 3 }), {
        minLength: 1,
        maxLength: 3,
      }),
      at: fc.nat(),
    })
    .map(({ tag, elements, repeated, at }) => ({
      tag,
      elements,
      repeats: { [at % elements.length]: repeated },
    }));

const richMessageArb = (chars: string[]): fc.Arbitrary<Message> =>
  fc.record({
    ref: alnum(1, 14),
    identifier: fc.constant({ type: "ORDERS", version: "D", release: "96A", agency: "UN" }),
    segments: fc.array(fc.oneof(segmentArb, repeatingSegmentArb(chars)), { minLength: 1, maxLength: 5 }),
  });

/** Syntax 4 with repetitions, in functional groups or not, in UNOC or UNOY text. */
const richInterchangeArb: fc.Arbitrary<Interchange> = fc
  .constantFrom(["UNOC", LATIN1_TEXT] as const, ["UNOY", UTF8_TEXT] as const)
  .chain(([identifier, chars]) => {
    const messages = fc.uniqueArray(richMessageArb([...chars]), {
      minLength: 1,
      maxLength: 3,
      selector: (m) => m.ref,
    });
    const group = fc.record({
      ref: alnum(1, 14),
      groupId: fc.constant("ORDERS"),
      sender: fc.record({ id: alnum(1, 35), qualifier: alnum(1, 4) }),
      recipient: fc.record({ id: alnum(1, 35) }),
      // Syntax 4: UNG 0017 is CCYYMMDD, as in UNB.
      date: fc.constant("20240315"),
      time: fc.constant("1200"),
      agency: fc.constant("UN"),
      messageVersion: fc.constant({ version: "D", release: "96A" }),
      messages,
    });
    return fc.record({
      syntax: fc.constant({ identifier, version: 4 }),
      sender: fc.record({ id: alnum(1, 35), qualifier: alnum(1, 4) }),
      recipient: fc.record({ id: alnum(1, 35) }),
      date: fc.constant("20240315"),
      time: fc.constant("1200"),
      controlRef: alnum(1, 14),
      body: fc.oneof(
        messages.map((m) => ({ messages: m })),
        fc.uniqueArray(group, { minLength: 1, maxLength: 2, selector: (g) => g.ref }).map((groups) => ({
          messages: [],
          groups,
        })),
      ),
    });
  })
  .map(({ body, ...header }): Interchange => ({ ...header, ...body }));

describe("properties", () => {
  it("syntax 4 repetitions, functional groups and non-ASCII text (UNOC, UNOY) round-trip", () => {
    fc.assert(
      fc.property(richInterchangeArb, (ic) => {
        const parsed = parseInterchange(serializeInterchange(ic));
        expect(parsed.issues).toEqual([]);
        expect(toInterchange(parsed.interchange)).toEqual({ ...ic, separators: defaultSeparators(4) });
      }),
      { numRuns: 200 },
    );
  });

  it("generated interchanges round-trip: parse(serialize(x)) equals x", () => {
    fc.assert(
      fc.property(interchangeArb, (ic) => {
        const parsed = parseInterchange(serializeInterchange(ic));
        expect(parsed.issues).toEqual([]);
        expect(toInterchange(parsed.interchange)).toEqual({
          ...ic,
          separators: ic.separators ?? defaultSeparators(ic.syntax.version),
        });
      }),
      { numRuns: 300 },
    );
  });

  it("random UNA separators still parse into the same segments", () => {
    fc.assert(
      fc.property(separatorsArb(4), (separators) => {
        const base = parseInterchange(latin1(VALID_ORDERS));
        const ic = toInterchange(base.interchange) as Interchange;
        const again = parseInterchange(
          serializeInterchange({
            ...ic,
            syntax: { identifier: "UNOC", version: 4 },
            date: "20240315",
            ...(separators ? { separators } : { separators: undefined }),
          }),
        );
        expect(again.issues).toEqual([]);
        expect(toInterchange(again.interchange)?.messages).toEqual(ic.messages);
      }),
      { numRuns: 200 },
    );
  });

  const directory = getDirectory("D96A");
  const valid = latin1(VALID_ORDERS);
  const run = (bytes: Uint8Array) => validateInterchange(parseInterchange(bytes), { directory });

  it("arbitrary byte mutations never throw", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
        (edits) => {
          const bytes = Uint8Array.from(valid);
          for (const [at, b] of edits) bytes[at] = b;
          expect(() => run(bytes)).not.toThrow();
        },
      ),
      { numRuns: 500 },
    );
  });

  it("truncations always yield issues", () => {
    fc.assert(
      fc.property(fc.nat(valid.length - 1), (cut) => {
        expect(run(valid.subarray(0, cut)).issues.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it("invalid characters inserted anywhere always yield issues", () => {
    fc.assert(
      fc.property(
        fc.nat(valid.length),
        fc.integer({ min: 0, max: 31 }).filter((b) => b !== 10 && b !== 13),
        (at, b) => {
          const bytes = Uint8Array.from([...valid.subarray(0, at), b, ...valid.subarray(at)]);
          expect(run(bytes).issues.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("huge elements yield issues quickly", () => {
    fc.assert(
      fc.property(fc.integer({ min: 36, max: 2_000_000 }), (size) => {
        const huge = VALID_ORDERS.replace("BGM+220+PO1+9", `BGM+220+${"A".repeat(size)}+9`);
        // CPU time, not wall time: other processes of a busy machine do not count.
        const started = process.cpuUsage();
        const report = run(latin1(huge));
        expect(report.issues.map((i) => i.code)).toContain(39);
        const used = process.cpuUsage(started);
        expect((used.user + used.system) / 1000).toBeLessThan(2000);
      }),
      { numRuns: 20 },
    );
  });

  it("random bytes never throw", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        expect(() => run(bytes)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });
});

describe("UNH round trip", () => {
  it("UNH S009 0110/0113, S010 and S016–S018 survive parse → serialize byte for byte (syntax 4)", () => {
    const text =
      "UNB+UNOC:4+SENDER:14+RECIPIENT:14+20240315:1200+REF1'" +
      "UNH+M1+ORDERS:D:96A:UN:EAN008:CL1:SF1+ACCESS+2:F+SUB:1:2:UN+IG:3:4:EN+SC:5:6:XX'" +
      "BGM+220+PO-1+9'UNT+3+M1'UNZ+1+REF1'";
    const parsed = parseInterchange(latin1(text));
    expect(parsed.issues).toEqual([]);
    const ic = toInterchange(parsed.interchange) as Interchange;
    expect(ic.messages[0]).toMatchObject({
      identifier: { association: "EAN008", codeListVersion: "CL1", subFunction: "SF1" },
      commonAccessRef: "ACCESS",
      transferStatus: { sequence: "2", firstAndLast: "F" },
      subset: { id: "SUB", version: "1", release: "2", agency: "UN" },
      implementationGuideline: { id: "IG", version: "3", release: "4", agency: "EN" },
      scenario: { id: "SC", version: "5", release: "6", agency: "XX" },
    });
    expect(Buffer.from(serializeInterchange(ic)).toString("latin1")).toBe(text);
  });

  it("UNH S010 survives in syntax 3; the syntax 4 parts of UNH are refused there", () => {
    const text =
      "UNB+UNOC:3+SENDER:14+RECIPIENT:14+240315:1200+REF1'" +
      "UNH+M1+ORDERS:D:96A:UN++1:C'BGM+220+PO-1+9'UNT+3+M1'UNZ+1+REF1'";
    const ic = toInterchange(parseInterchange(latin1(text)).interchange) as Interchange;
    expect(ic.messages[0]?.transferStatus).toEqual({ sequence: "1", firstAndLast: "C" });
    expect(Buffer.from(serializeInterchange(ic)).toString("latin1")).toBe(text);
    const withScenario = {
      ...ic,
      messages: ic.messages.map((m) => ({ ...m, scenario: { id: "SC" } })),
    };
    expect(() => serializeInterchange(withScenario)).toThrow(/syntax version 4/);
  });

  it("repetitions round-trip in syntax 4 and are refused in syntax 3, which has no repetition separator", () => {
    const text =
      "UNB+UNOC:4+SENDER:14+RECIPIENT:14+20240315:1200+REF1'" +
      "UNH+M1+ORDERS:D:96A:UN'FTX+AAA+++a*b'UNT+3+M1'UNZ+1+REF1'";
    const ic = toInterchange(parseInterchange(latin1(text)).interchange) as Interchange;
    expect(Buffer.from(serializeInterchange(ic)).toString("latin1")).toBe(text);
    const inSyntax3 = { ...ic, date: "240315", syntax: { ...ic.syntax, version: 3 }, separators: undefined };
    expect(() => serializeInterchange(inSyntax3)).toThrow(/syntax version 3/);
  });
});
