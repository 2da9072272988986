import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkInput, findingFiles, fuzzEdifact, warmUp } from "../../scripts/fuzz/edifact.js";

/**
 * Issue 20: the EDIFACT fuzzer as part of the suite. Every finding a fuzz run wrote
 * (test/fuzz-findings/edifact/*.edi) is replayed, and a short seeded run (20,000 inputs) must
 * find nothing: no exception, no slow input, no unbounded issue or output, no output that does
 * not re-parse or validate against its own directory. `npm run fuzz -- edifact --seconds N`
 * runs it longer (README).
 */
describe("issue 20: EDIFACT fuzzing", () => {
  const files = findingFiles();
  // A finding of kind "slow" is judged by CPU time: the first input must not pay for the start.
  beforeAll(() => {
    warmUp();
  });
  it.runIf(files.length > 0).each(files.map((f) => [basename(f), f]))(
    "finding %s stays fixed",
    (_name, path) => {
      const finding = checkInput(new Uint8Array(readFileSync(path)));
      expect(finding && { kind: finding.kind, detail: finding.detail }).toBeUndefined();
    },
  );

  it("a seeded run of 20,000 mutated interchanges finds nothing", { timeout: 300_000 }, () => {
    const result = fuzzEdifact({ seed: 20_2026, inputs: 20_000, hugeScale: 0.1 });
    expect(result.inputs).toBe(20_000);
    expect(result.findings.map((f) => `${f.kind}: ${f.detail}`)).toEqual([]);
  });
});
