import { describe, expect, it } from "vitest";
import {
  parseTraceparent,
  parseTracestate,
  restoreTraceContext,
  storeTraceContext,
  traceFromHeaders,
} from "./trace-context.js";

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const parentId = "00f067aa0ba902b7";

describe("traceparent (W3C Trace Context, section 3.2)", () => {
  it("reads version 00 and, by their first four fields, later versions", () => {
    expect(parseTraceparent(`00-${traceId}-${parentId}-01`)).toEqual({ traceId, parentId, flags: "01" });
    expect(parseTraceparent(`01-${traceId}-${parentId}-00-what-comes-later`)).toEqual({
      traceId,
      parentId,
      flags: "00",
    });
  });

  it.each([
    ["version ff", `ff-${traceId}-${parentId}-01`],
    ["upper-case hex", `00-${traceId.toUpperCase()}-${parentId}-01`],
    ["an all-zero trace id", `00-${"0".repeat(32)}-${parentId}-01`],
    ["an all-zero parent id", `00-${traceId}-${"0".repeat(16)}-01`],
    ["version 00 with more fields", `00-${traceId}-${parentId}-01-00`],
    ["a later version without a dash after the flags", `01-${traceId}-${parentId}-01x`],
    ["a short trace id", `00-${traceId.slice(1)}-${parentId}-01`],
    ["no flags", `00-${traceId}-${parentId}`],
  ])("ignores %s", (_name, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it("a request without a valid one starts a new trace and drops its tracestate", () => {
    const context = traceFromHeaders({ traceparent: "00-bad", tracestate: "a=b" }, "c-1");
    expect(context.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(context.tracestate).toBeUndefined();
  });
});

describe("tracestate (section 3.3)", () => {
  it("joins several headers into one list and drops a list that breaks the rules", () => {
    expect(parseTracestate(["rojo=00f067aa0ba902b7", "congo=t61rcWkgMzE"])).toBe(
      "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
    );
    expect(parseTracestate("tenant@vendor=x")).toBe("tenant@vendor=x");
    expect(parseTracestate("Upper=x")).toBeUndefined();
    expect(parseTracestate("novalue")).toBeUndefined();
    expect(parseTracestate(Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(","))).toBeUndefined();
  });
});

describe("a job's stored context", () => {
  it("continues the trace with a new span id and keeps the correlation id", () => {
    const request = traceFromHeaders({ traceparent: `00-${traceId}-${parentId}-01` }, "corr-1");
    const restored = restoreTraceContext(JSON.parse(JSON.stringify(storeTraceContext(request))));
    expect(restored).toMatchObject({ traceId, flags: "01", correlationId: "corr-1", origin: "job" });
    expect(restored.spanId).not.toBe(request.spanId);
  });
});
