import { describe, expect, it } from "vitest";
import { fuzzHttp } from "../../scripts/fuzz/http.js";

describe("issue 20: HTTP fuzzing (npm run fuzz -- http)", () => {
  it("a short run of malformed requests against every operation finds no 5xx, no answer that is not problem+json, no echo, no request without an answer", async () => {
    const report = await fuzzHttp({ seconds: 60, maxRequests: 2500, seed: 20 });
    expect(report.samples).toEqual([]);
    expect(report.counts).toEqual({
      "5xx": 0,
      "not-problem": 0,
      echo: 0,
      "no-answer": 0,
      "repeat-accepted": 0,
    });
    // Issue 38: integer-boundary values and repeated single-valued headers are among them.
    expect(report.integerEdges).toBeGreaterThan(0);
    expect(report.repeatedHeaders).toBeGreaterThan(0);
    expect(report.errorLogs).toBe(0);
    expect(report.operations).toBeGreaterThan(40);
    expect(report.rawRequests).toBeGreaterThan(0);
  }, 120_000);
});
