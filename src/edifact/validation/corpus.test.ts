// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- tests read fixtures; the library itself does no I/O
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  BUILT_IN_DIRECTORIES,
  getDirectory,
  type BuiltInDirectoryId,
} from "../directories/directory.registry.js";
import { parseInterchange } from "../envelope/interchange.parser.js";
import { generatedCorpus } from "../testing/generated-corpus.js";
import { validateInterchange, type ValidationReport } from "./interchange.validator.js";
import { absent, corpusDir, hasCorpus } from "../../../test/support/shared-data.js";

/**
 * Expected ISO 9735 error codes per corpus file, validated against D.96A (the directory of
 * the exchange's ORDERS). Empty = valid. The reason column says what produces each code.
 */
const EXPECTED: Record<string, { codes: number[]; why: string }> = {
  "aperak-d96a-bots-1.edi": { codes: [], why: "valid APERAK" },
  "contrl-d3-jacobemcken-1.edi": {
    codes: [2, 14, 22, 28],
    why: "IATB syntax (2), CONTRL is not a directory message (14), last segment unterminated (22), UNT ref 1 vs UNH 1001 (28)",
  },
  "contrl-v41-edifabric-1.edi": { codes: [13, 14], why: "UNB S001 lacks 0002 (13); CONTRL messages (14)" },
  "invoic-d97b-staedi-1.edi": {
    codes: [14, 21],
    why: "INVOIC is not an exchange message (14); $ is not UNOA (21)",
  },
  "orders-d01b-edireader-1.edi": { codes: [14], why: "release 01B is not D.96A (14); Cyrillic UNOE decodes" },
  "orders-d01b-phpedifact-1.edi": { codes: [14], why: "release 01B (14)" },
  "orders-d01b-phpedifact-2.edi": {
    codes: [14, 22],
    why: "release 01B (14); ?* releases a non-service character (22)",
  },
  "orders-d96a-bots-1.edi": { codes: [], why: "12 valid EANCOM messages" },
  "orders-d96a-bots-2.edi": { codes: [], why: "4 valid EANCOM messages (EANCOM codes accepted)" },
  "orders-d96a-bots-3.edi": { codes: [33], why: "two interchanges in one input (33)" },
  "orders-d96a-bots-4.edi": { codes: [33], why: "24 interchanges in one input (33)" },
  "orders-d96a-edifabric-1.edi": { codes: [], why: "clean ORDERS, syntax version 1" },
  "orders-d96a-edifabric-10.edi": { codes: [12], why: "second message: FTX 3055 = AA is no code (12)" },
  "orders-d96a-edifabric-11.edi": { codes: [14], why: "INVOIC group (14)" },
  "orders-d96a-edifabric-2.edi": { codes: [12], why: "FTX 3055 = AA (12)" },
  "orders-d96a-edifabric-3.edi": { codes: [16], why: "BGM with 5 data elements (16)" },
  "orders-d96a-edifabric-4.edi": {
    codes: [13, 15, 16, 39],
    why: "BGM 5 elements (16), PAI before DTM: DTM missing (13) then unexpected (15), PAI extra component/element (39, 16)",
  },
  "orders-d96a-edifabric-5.edi": {
    codes: [13, 33],
    why: "no UNB (tag NB): 13, segments outside a message (33)",
  },
  "orders-d96a-edifabric-6.edi": {
    codes: [29, 33],
    why: "UNH tag NH: data outside a message (33), UNZ counts 2 (29)",
  },
  "orders-d96a-edifabric-7.edi": { codes: [26], why: "duplicate message reference (26)" },
  "orders-d96a-edifabric-8.edi": { codes: [28, 33], why: "UNZ ref 132 vs 131 (28), second interchange (33)" },
  "orders-d96a-edifabric-9.edi": { codes: [26], why: "duplicate group and message references (26)" },
  "orders-d96a-edifactrs-1.edi": { codes: [13], why: "no UNB (13), mandatory UNS missing (13)" },
  "orders-d96a-edifactrs-2.edi": {
    codes: [13, 29, 33],
    why: "no UNB, BGM before UNH (33), BGM/UNS missing (13), UNT 5 vs 4 (29)",
  },
  "orders-d96a-pydifact-1.edi": {
    codes: [13, 40],
    why: "syntax 4 with a 6-digit UNB date (40), no UNZ (13)",
  },
  "orders-d96a-pydifact-2.edi": { codes: [13], why: "no UNZ (13)" },
  "orders-d96a-synthetic-v4-1.edi": {
    codes: [],
    why: "valid syntax 4: repetition separator, ?*, both decimal marks",
  },
  "orders-d96b-staedi-1.edi": {
    codes: [14, 16, 29, 39],
    why: "UNG S008 with a 4th component (16) and 0057 of 7 chars (39), release 96B (14), UNT 21 vs 18 (29)",
  },
  "ordrsp-d96a-edifabric-1.edi": { codes: [], why: "valid EANCOM ORDRSP" },
  "syntax-charset-phpedifact-1.edi": { codes: [14, 21], why: "DESADV (14), UTF-8 bytes 0x8B in UNOC (21)" },
  "syntax-linebreak-phpedifact-1.edi": {
    codes: [14, 21, 29, 40],
    why: "UNB time 999 (40), IFTMBC (14), LF inside FTX under UNOB (21), UNT 10 vs 7 (29)",
  },
  "syntax-release-phpedifact-1.edi": { codes: [2, 14, 29], why: "IATB (2), PAORES (14), UNT 14 vs 23 (29)" },
  "syntax-release-smooks-1.edi": {
    codes: [13, 33],
    why: "segments only: no UNB (13), outside a message (33)",
  },
  "syntax-una-edireader-1.edi": {
    codes: [14, 21, 37],
    why: "lower case in UNB under UNOA (21), 0031/0035 not numeric (37), INVOIC (14)",
  },
  "syntax-una-staedi-1.edi": {
    codes: [14, 22],
    why: "?4 releases a non-service character (22), INVOIC (14)",
  },
  "syntax-una-staedi-2.edi": { codes: [2, 14], why: "IATA syntax (2), PNRGOV (14)" },
};

/** The distinct codes of parsing and validating `bytes` against `directory`, with their offsets. */
function validated(bytes: Uint8Array, directory: BuiltInDirectoryId) {
  const report = validateInterchange(parseInterchange(bytes), { directory: getDirectory(directory) });
  const codes = [...new Set(report.issues.map((i) => i.code))].sort((a, b) => a - b);
  return { codes, report };
}

function expectOffsetsWithin(report: ValidationReport, bytes: Uint8Array): void {
  for (const issue of report.issues) {
    expect(issue.offset).toBeGreaterThanOrEqual(0);
    expect(issue.offset).toBeLessThanOrEqual(bytes.length);
  }
}

describe.skipIf(!hasCorpus)(`corpus (${hasCorpus ? corpusDir : absent(corpusDir)})`, () => {
  const files = hasCorpus ? readdirSync(corpusDir).filter((f) => f.endsWith(".edi")) : [];

  it("has an expectation for every corpus file", () => {
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(files)("%s parses and validates to its expected codes", (file) => {
    const bytes = readFileSync(join(corpusDir, file));
    const { codes, report } = validated(bytes, "D96A");
    expect(codes, EXPECTED[file]?.why).toEqual(EXPECTED[file]?.codes);
    expectOffsetsWithin(report, bytes);
  });

  it("validates the valid files against D.25A only for the release mismatch", () => {
    const parsed = parseInterchange(readFileSync(join(corpusDir, "orders-d96a-edifabric-1.edi")));
    const report = validateInterchange(parsed, { directory: getDirectory("D25A") });
    expect(report.issues.map((i) => [i.code, i.tag, i.element, i.component])).toEqual([[14, "UNH", 2, 3]]);
  });
});

describe("issue 23: the generated corpus (the engine's own builders; runs without the customer's corpus)", () => {
  const corpus = generatedCorpus();

  it("has every defect class the shared corpus expects, both syntax versions and both directories", () => {
    const expected = new Set(Object.values(EXPECTED).flatMap((e) => e.codes));
    const generated = new Set(corpus.flatMap((c) => c.codes));
    expect([...expected].filter((code) => !generated.has(code))).toEqual([]);
    for (const directory of BUILT_IN_DIRECTORIES)
      for (const version of [3, 4])
        for (const valid of [true, false]) {
          const found = corpus.some(
            (c) =>
              c.directory === directory && c.syntaxVersion === version && (c.codes.length === 0) === valid,
          );
          expect(found, `${directory} syntax ${version} ${valid ? "valid" : "broken"}`).toBe(true);
        }
  });

  it("is the same for the same seed", () => {
    expect(generatedCorpus().map((c) => Buffer.from(c.bytes).toString("latin1"))).toEqual(
      corpus.map((c) => Buffer.from(c.bytes).toString("latin1")),
    );
  });

  it.each(corpus.map((c) => [c.name, c] as const))(
    "%s parses and validates to its expected codes",
    (_, c) => {
      const { codes, report } = validated(c.bytes, c.directory);
      expect(codes, c.why).toEqual(c.codes);
      expectOffsetsWithin(report, c.bytes);
    },
  );

  it("validates a valid D.96A ORDERS against D.25A only for the release mismatch", () => {
    const valid = corpus.find((c) => c.name === "orders-d96a-v3-valid");
    if (!valid) throw new Error("no valid D.96A ORDERS generated");
    const { report } = validated(valid.bytes, "D25A");
    expect(report.issues.map((i) => [i.code, i.tag, i.element, i.component])).toEqual([[14, "UNH", 2, 3]]);
  });
});
