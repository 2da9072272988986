/**
 * EDIFACT engine benchmark: `npm run bench -- edifact`.
 * Prints MB/s and peak extra memory for tokenize, parse+validate and build+serialize an ORDRSP
 * on generated ORDERS of 10 KiB, 1 MiB and 16 MiB, against a bare release-aware byte scan
 * (the JavaScript ceiling), SHA-256 and the npm packages `edifact` and `ts-edifact` when installed.
 * Throughput is measured in one worker thread per operation (bench/edifact/round.worker.ts), each
 * ratio against the bare scan timed after every round in that same thread,
 * memory in this thread, one operation at a time after a full collection.
 */
import v8 from "node:v8";
import { Worker } from "node:worker_threads";
import { getDirectory, parseInterchange, validateInterchange } from "../src/edifact/index.js";
import { loadOperations, type Operation } from "./edifact/operations.js";
import { generateOrders } from "./edifact/orders.generator.js";

interface Row {
  readonly size: string;
  readonly operation: string;
  readonly mbPerSecond: number;
  /** MB/s over the bare scan's MB/s in the same worker thread. */
  readonly ofScan: number;
  readonly peakExtraMiB: number;
  readonly note: string;
}

const MiB = 1024 * 1024;
/** Keeps a result alive until its memory has been measured. */
const retained: unknown[] = [];
const gc = (globalThis as { gc?: () => void }).gc;
const directory = getDirectory("D96A");

/** Heap in use plus array buffers (typed arrays live outside the V8 heap). */
function memoryNow(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * Peak extra memory of one run over the memory in use before it (after a GC when --expose-gc
 * is on): the V8 heap at its fullest — just before any garbage collection during the run, or
 * at its end with the result still held — plus the array buffers in use at the end. Garbage
 * the run left for later counts, as the process does hold it; array buffers freed during the
 * run and growth between collections do not, so this is a lower bound of the true peak.
 */
function peakExtraMiB(op: Operation, input: Buffer): number {
  op(input);
  // Array buffers are released by a sweeper after the collection that finds them dead: a
  // second collection makes sure the warm-up run's buffers are gone from the baseline.
  gc?.();
  gc?.();
  const before = memoryNow();
  const profiler = new v8.GCProfiler();
  profiler.start();
  retained.push(op(input));
  const end = process.memoryUsage();
  let heap = end.heapUsed;
  for (const s of profiler.stop().statistics) heap = Math.max(heap, s.beforeGC.heapStatistics.usedHeapSize);
  retained.length = 0;
  return (heap + end.arrayBuffers - before) / MiB;
}

/** Starts a round worker for one operation and input size; resolves once it is ready. */
async function roundWorker(label: string, bytes: number): Promise<Worker> {
  // The worker registers tsx itself: a loader given with --import does not reach workers here.
  const entry = new URL("./edifact/round.worker.ts", import.meta.url).href;
  const boot = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(boot, {
    eval: true,
    workerData: { label, bytes },
    execArgv: process.execArgv.filter((arg) => arg !== "--expose-gc"),
  });
  await nextMessage(worker);
  return worker;
}

/** The worker's next message; rejects if the worker fails first. */
function nextMessage(worker: Worker): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      worker.off("message", onMessage);
      reject(error);
    };
    const onMessage = (value: unknown): void => {
      worker.off("error", onError);
      resolve(value);
    };
    worker.once("message", onMessage);
    worker.once("error", onError);
  });
}

interface Speed {
  /** MB/s of the operation, its best round. */
  readonly mbPerSecond: number;
  /** MB/s of the bare scan timed right after each of its rounds in the same thread, best round. */
  readonly scanMbPerSecond: number;
}

/**
 * Throughput of each operation on one input size. Each operation runs in its own worker
 * thread; the driver asks them for one round at a time, in turn, so all operations meet the
 * same machine load (on a shared machine it changes from second to second). A round times the
 * operation and then the bare scan in the same thread; each keeps its best round (the one no
 * outside load fell into), and an operation's ratio is against its own thread's scan.
 */
async function throughput(labels: readonly string[], bytes: number, rounds: number): Promise<Speed[]> {
  const workers = await Promise.all(labels.map((label) => roundWorker(label, bytes)));
  const best = labels.map(() => ({ own: Number.POSITIVE_INFINITY, scan: Number.POSITIVE_INFINITY }));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [i, worker] of workers.entries()) {
        const answer = nextMessage(worker);
        worker.postMessage("round");
        const { own, scan } = (await answer) as { own: number; scan: number };
        const b = best[i] as { own: number; scan: number };
        b.own = Math.min(b.own, own);
        b.scan = Math.min(b.scan, scan);
      }
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  const mbps = (ms: number) => bytes / MiB / (ms / 1000);
  return best.map((b) => ({ mbPerSecond: mbps(b.own), scanMbPerSecond: mbps(b.scan) }));
}

export async function run(): Promise<void> {
  const operations = (await loadOperations(generateOrders(10 * 1024))).map(
    (o): [string, Operation | undefined, string] => [o.label, o.op, o.note],
  );
  const rows: Row[] = [];
  for (const [label, bytes, rounds] of [
    ["10 KiB", 10 * 1024, 20],
    ["1 MiB", MiB, 12],
    ["16 MiB", 16 * MiB, 6],
  ] as const) {
    const input = generateOrders(bytes);
    const issues = validateInterchange(parseInterchange(input), { directory }).issues.length;
    if (issues > 0) throw new Error(`generated ORDERS of ${label} has ${issues} issues`);
    const usable = operations.filter((o): o is [string, Operation, string] => o[1] !== undefined);
    const speeds = await throughput(
      usable.map((o) => o[0]),
      bytes,
      rounds,
    );
    for (const [operation, op, note] of operations) {
      const i = usable.findIndex((o) => o[0] === operation);
      if (!op || i < 0) {
        rows.push({
          size: label,
          operation,
          mbPerSecond: Number.NaN,
          ofScan: Number.NaN,
          peakExtraMiB: Number.NaN,
          note,
        });
        continue;
      }
      rows.push({
        size: label,
        operation,
        mbPerSecond: (speeds[i] as Speed).mbPerSecond,
        ofScan: (speeds[i] as Speed).mbPerSecond / (speeds[i] as Speed).scanMbPerSecond,
        peakExtraMiB: peakExtraMiB(op, input),
        note,
      });
    }
  }
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
    const ratio = Number.isNaN(r.mbPerSecond) ? "–" : `${(r.ofScan * 100).toFixed(0)} %`;
    const times = Number.isNaN(r.peakExtraMiB)
      ? "–"
      : (r.peakExtraMiB / (inputMiB.get(r.size) ?? 1)).toFixed(2);
    lines.push(
      `| ${r.size} | ${r.operation} | ${Number.isNaN(r.mbPerSecond) ? "–" : r.mbPerSecond.toFixed(0)} | ${ratio} | ${Number.isNaN(r.peakExtraMiB) ? "–" : r.peakExtraMiB.toFixed(1)} | ${times} | ${r.note} |`,
    );
  }
  console.log(lines.join("\n"));
  for (const [size] of inputMiB) {
    const own = rows.find((r) => r.size === size && r.operation === "parse+validate");
    const peers = rows.filter(
      (r) => r.size === size && r.operation.startsWith("npm ") && !Number.isNaN(r.ofScan),
    );
    // Compared through each one's own bare scan, which takes the machine's load out of the ratio.
    const fastest = peers.sort((a, b) => b.ofScan - a.ofScan)[0];
    if (own && fastest)
      console.log(
        `${size}: parse+validate = ${(own.ofScan / fastest.ofScan).toFixed(1)}× ${fastest.operation}`,
      );
  }
  if (!gc) console.log("(run node with --expose-gc for steadier memory figures)");
}
