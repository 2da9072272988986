import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  checkInput,
  findingFiles,
  fuzzEdifact,
  makeInput,
  maxInputBytes,
  Prng,
  warmUp,
} from "../../scripts/fuzz/edifact.js";

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

  it("issue 38 defect 7: repetitions count bytes, so no input outgrows the largest upload (a 4 MiB segment is not repeated 20,000 times)", () => {
    const text = (value: string) => new TextEncoder().encode(value);
    const parts = [
      text("UNB+UNOC:3+A:14+B:14+261127:0900+1'FTX+"),
      new Uint8Array(4 << 20).fill(0x41),
      text("'UNZ+0+1'"),
    ];
    const seed = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (seed.set(p, at), at + p.length), 0);
    const rng = new Prng(38);
    let largest = 0;
    for (let i = 0; i < 300; i++) largest = Math.max(largest, makeInput(rng, [seed]).length);
    expect(maxInputBytes).toBe(17 * 1024 * 1024);
    expect(largest).toBeGreaterThan(seed.length);
    expect(largest).toBeLessThanOrEqual(maxInputBytes);
  });
});
