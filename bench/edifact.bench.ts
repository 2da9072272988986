/**
 * EDIFACT engine benchmark: `npm run bench -- edifact`, or
 * `npx tsx -e 'import("./bench/edifact.bench.ts").then(m=>m.run())'`.
 * Prints MB/s and peak extra memory for tokenize, parse+validate and build+serialize an ORDRSP
 * on generated ORDERS of 10 KiB, 1 MiB and 16 MiB, against a bare release-aware byte scan
 * (the JavaScript ceiling), SHA-256 and the npm packages `edifact` and `ts-edifact` when installed.
 */
import { createHash } from "node:crypto";
import {
  buildOrdrsp,
  getDirectory,
  parseInterchange,
  readSegment,
  serializeInterchange,
  tokenize,
  validateInterchange,
  type OrderLineResponse,
} from "../src/edifact/index.js";
import { generateOrders } from "./edifact/orders.generator.js";

interface Row {
  readonly size: string;
  readonly operation: string;
  readonly mbPerSecond: number;
  readonly peakExtraMiB: number;
  readonly note: string;
}

type Operation = (input: Buffer) => unknown;

const MiB = 1024 * 1024;
/** Keeps a result alive until its memory has been measured. */
const retained: unknown[] = [];
const gc = (globalThis as { gc?: () => void }).gc;

/** The floor any tokenizer pays: one pass finding every separator, honouring `?`. */
function bareScan(buf: Buffer): number {
  let tokens = 0;
  const n = buf.length;
  for (let i = 0; i < n; i++) {
    const b = buf[i];
    if (b === 0x3f) i++;
    else if (b === 0x2b || b === 0x3a || b === 0x27) tokens++;
  }
  return tokens;
}

const directory = getDirectory("D96A");

function buildOrdrspFor(input: Buffer): Uint8Array {
  const parsed = parseInterchange(input).interchange;
  const message = parsed.messages[0];
  if (!message) throw new Error("no message");
  const lines: OrderLineResponse[] = [];
  let current: { lineNumber: string; id: string } | undefined;
  for (let s = message.firstSegment; s <= message.lastSegment; s++) {
    const seg = readSegment(parsed.tokens, s);
    if (seg.tag === "LIN")
      current = { lineNumber: seg.elements[0]?.[0] ?? "", id: seg.elements[2]?.[0] ?? "" };
    else if (seg.tag === "QTY" && current) {
      lines.push({
        lineNumber: current.lineNumber,
        action: "5",
        item: { id: current.id, type: "EN" },
        quantity: { value: seg.elements[0]?.[1] ?? "0" },
      });
      current = undefined;
    }
  }
  return serializeInterchange(
    buildOrdrsp({
      directory,
      envelope: {
        syntaxIdentifier: "UNOC",
        syntaxVersion: 3,
        sender: { id: "4012345500004", qualifier: "14" },
        recipient: { id: "5412345000013", qualifier: "14" },
        controlRef: "R1",
        messageRef: "1",
        preparedAt: new Date(0),
      },
      documentNumber: "OR-1",
      responseType: "29",
      order: { documentNumber: "PO-BENCH" },
      lines,
    }),
  );
}

/** Loads a peer parser if it is installed (bench-only dev dependencies). */
async function peer(name: string): Promise<Operation | undefined> {
  try {
    const mod = (await import(name)) as Record<string, unknown> & { default?: Record<string, unknown> };
    const api = (mod.Reader ? mod : mod.default) ?? {};
    const Reader = api.Reader as (new () => { parse: (s: string) => unknown }) | undefined;
    if (!Reader) return undefined;
    return (input) => new Reader().parse(input.toString("latin1"));
  } catch {
    return undefined;
  }
}

function memory(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * Throughput over enough repetitions for ~0.5 s, and the memory held right after one run
 * (with a GC before it when --expose-gc is on): a lower bound of the peak, since a GC inside
 * the run would have freed some garbage already.
 */
function measure(op: Operation, input: Buffer): { mbPerSecond: number; peakExtraMiB: number } {
  op(input);
  gc?.();
  const before = memory();
  retained.push(op(input));
  const peakExtraMiB = (memory() - before) / MiB;
  retained.length = 0;
  let runs = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    op(input);
    runs++;
    elapsed = performance.now() - started;
  } while (elapsed < 500 && runs < 10_000);
  return { mbPerSecond: (input.length * runs) / MiB / (elapsed / 1000), peakExtraMiB };
}

export async function run(): Promise<void> {
  const operations: [string, Operation | undefined, string][] = [
    ["bare scan", bareScan, "baseline: every separator, release-aware"],
    ["sha-256", (b) => createHash("sha256").update(b).digest(), "node:crypto"],
    ["tokenize", (b) => tokenize(b), ""],
    ["parse+validate", (b) => validateInterchange(parseInterchange(b), { directory }), "D96A"],
    ["build+serialize ORDRSP", buildOrdrspFor, "parse order, ORDRSP of every line"],
    ["npm edifact Reader", await peer("edifact"), "peer"],
    ["npm ts-edifact Reader", await peer("ts-edifact"), "peer"],
  ];
  const rows: Row[] = [];
  for (const [label, bytes] of [
    ["10 KiB", 10 * 1024],
    ["1 MiB", MiB],
    ["16 MiB", 16 * MiB],
  ] as const) {
    const input = generateOrders(bytes);
    const issues = validateInterchange(parseInterchange(input), { directory }).issues.length;
    if (issues > 0) throw new Error(`generated ORDERS of ${label} has ${issues} issues`);
    for (const [operation, op, note] of operations) {
      if (!op) {
        rows.push({
          size: label,
          operation,
          mbPerSecond: Number.NaN,
          peakExtraMiB: Number.NaN,
          note: "not installed",
        });
        continue;
      }
      rows.push({ size: label, operation, ...measure(op, input), note });
    }
  }
  const scan = new Map(rows.filter((r) => r.operation === "bare scan").map((r) => [r.size, r.mbPerSecond]));
  const inputMiB = new Map([
    ["10 KiB", 10 / 1024],
    ["1 MiB", 1],
    ["16 MiB", 16],
  ]);
  const lines = [
    "| size | operation | MB/s | % of bare scan | peak extra MiB | × input | note |",
    "|---|---|---:|---:|---:|---:|---|",
  ];
  for (const r of rows) {
    const ratio = Number.isNaN(r.mbPerSecond)
      ? "–"
      : `${((r.mbPerSecond / (scan.get(r.size) ?? 1)) * 100).toFixed(0)} %`;
    const times = Number.isNaN(r.peakExtraMiB)
      ? "–"
      : (r.peakExtraMiB / (inputMiB.get(r.size) ?? 1)).toFixed(2);
    lines.push(
      `| ${r.size} | ${r.operation} | ${Number.isNaN(r.mbPerSecond) ? "–" : r.mbPerSecond.toFixed(0)} | ${ratio} | ${Number.isNaN(r.peakExtraMiB) ? "–" : r.peakExtraMiB.toFixed(1)} | ${times} | ${r.note} |`,
    );
  }
  console.log(lines.join("\n"));
  if (!gc) console.log("(run node with --expose-gc for steadier memory figures)");
}
