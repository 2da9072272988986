/**
 * Mutation fuzzer of the EDIFACT engine (issue 20): generated and corpus interchanges, mutated
 * (byte flips, separator insertions, random UNA, truncation, duplicated and huge segments and
 * elements), go through parse, validate, CONTRL/APERAK/ORDRSP building (the exchange's own
 * rules) and re-parsing. A finding is an exception, a slow input (over 100 ms per 10 KB, at
 * least 100 ms, confirmed by a second run), an issue over its size bound, output out of
 * proportion to the input, or an output that does not re-parse cleanly or does not validate
 * against its own directory. Deterministic for a seed: the same seed gives the same inputs.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildContrl,
  parseInterchange,
  serializeInterchange,
  type EdifactIssue,
  type OutboundEnvelope,
  type SyntaxIdentifier,
} from "../../src/edifact/index.js";
import { MAX_ISSUE_TAG, MAX_ISSUE_TEXT, MAX_REPORTED_ISSUES } from "../../src/edifact/issue.types.js";
import {
  analyseInterchange,
  outboundIssues,
  planOutbound,
  type Catalog,
} from "../../src/modules/exchange/processing/processing.rules.js";
import type { Profile } from "../../src/modules/exchange/index.js";
import { corpusDir } from "../../test/support/shared-data.js";

export const REPO_ROOT = join(import.meta.dirname, "../..");
/** The customer's corpus (HANSE_TEST_CORPUS_DIR, test/support/shared-data.ts): seeds when present. */
export const CORPUS_DIR = corpusDir;
export const FINDINGS_DIR = join(REPO_ROOT, "test/fuzz-findings/edifact");

/** xorshift32: small, fast and reproducible. */
export class Prng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state;
  }
  int(n: number): number {
    return this.next() % n;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() / 0x100000000 < p;
  }
}

// ---------------------------------------------------------------------------------------------
// Seeds: generated interchanges and the corpus.

const REPERTOIRES: SyntaxIdentifier[] = ["UNOA", "UNOB", "UNOC", "UNOD", "UNOE", "UNOF", "UNOW", "UNOY"];
const GTINS = ["4000862141404", "4000862141411", "4000862141428", "5412345000013", "40008621"];
const TEXTS = ["PLAIN TEXT", "Grüße aus Köln", "Ωμέγα", "Жук", "€ 100", "a?+b?:c??d", "😀 ok"];

function generated(rng: Prng): Uint8Array {
  const version = rng.chance(0.3) ? 4 : 3;
  const id = rng.pick(REPERTOIRES);
  const release = rng.chance(0.3) ? "25A" : "96A";
  const association = rng.chance(0.3) ? ":EAN008" : "";
  const date = version === 4 ? "20240315" : "240315";
  const lines = 1 + rng.int(rng.chance(0.05) ? 400 : 6);
  const una = rng.chance(0.2) ? (version === 4 ? "UNA:+.? '" : "UNA:+,? '") : "";
  const ack = rng.chance(0.3) ? "++++1" : "";
  const segments: string[] = [
    `UNH+1+ORDERS:D:${release}:UN${association}`,
    `BGM+220+PO${rng.int(1000)}+9`,
    "DTM+137:20240315:102",
    `NAD+BY+5412345000013::${rng.pick(["9", "ZZZ", "XX", "92", ""])}`,
    "NAD+SU+4012345500004::9",
  ];
  if (rng.chance(0.3)) segments.push(`FTX+AAI+++${rng.pick(TEXTS)}`);
  for (let i = 1; i <= lines; i++) {
    const type = rng.pick(["EN", "SRV", "IN", "XYZ", ""]);
    segments.push(`LIN+${i}++${rng.pick(GTINS)}:${type}`);
    segments.push(`QTY+21:${1 + rng.int(99)}${rng.chance(0.2) ? `:${rng.pick(["PCE", "KGM", "ZZ9"])}` : ""}`);
  }
  segments.push("UNS+S", `CNT+2:${lines}`);
  segments.push(`UNT+${segments.length + 1}+1`);
  const body = `${una}UNB+${id}:${version}+5412345000013:14+4012345500004:14+${date}:1200+IC${ack}'${segments.join("'")}'UNZ+1+IC'`;
  return new TextEncoder().encode(body);
}

/** Every file of the corpus directory (none when it is absent). */
export function corpusSeeds(dir = CORPUS_DIR): Uint8Array[] {
  if (!existsSync(dir)) return [];
  const out: Uint8Array[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!name.endsWith(".md")) out.push(new Uint8Array(readFileSync(path)));
    }
  };
  walk(dir);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Mutations.

const SPECIALS = Array.from("'+:?*.,!\"%&()/;<=>^$ ", (c) => c.charCodeAt(0));
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function concat(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `wanted` copies of `unit`, at most as many as `room` bytes hold (none when none fits). */
function repeated(unit: Uint8Array, wanted: number, room: number): Uint8Array {
  const times = Math.max(0, Math.min(wanted, Math.floor(room / Math.max(1, unit.length))));
  const out = new Uint8Array(unit.length * times);
  for (let t = 0; t < times; t++) out.set(unit, t * unit.length);
  return out;
}

/** Offsets just after each `'` (a guess at segment boundaries; mutations need not be exact). */
function segmentBounds(b: Uint8Array): number[] {
  const out = [0];
  for (let i = 0; i < b.length && out.length < 5000; i++) if (b[i] === 0x27) out.push(i + 1);
  return out;
}

type Mutation = (rng: Prng, b: Uint8Array) => Uint8Array;

/**
 * The largest input made: just above the largest upload (16 MiB), so the size limit is exercised.
 * Repetitions are bounded by what is left of it in bytes: mutations compound (a huge segment, then
 * that segment repeated 20,000 times), and counting repetitions alone made inputs of 2 GB and
 * more (issue 38).
 */
export const maxInputBytes = 17 * 1024 * 1024;
/** Bytes a mutation may add to `b` without passing maxInputBytes. */
const roomIn = (b: Uint8Array): number => Math.max(0, maxInputBytes - b.length);

/**
 * Upper bound of a "huge" repetition: `full`, or a tenth of it in a short run (`npm test`),
 * where a few large inputs would otherwise take most of the time.
 */
let hugeScale = 1;
const huge = (_rng: Prng, full: number): number => Math.max(10, Math.round(full * hugeScale));

const MUTATIONS: [string, Mutation][] = [
  [
    "bit flip",
    (rng, b) => {
      if (b.length === 0) return b;
      const out = b.slice();
      const i = rng.int(out.length);
      out[i] = (out[i] as number) ^ (1 << rng.int(8));
      return out;
    },
  ],
  [
    "random byte",
    (rng, b) => {
      if (b.length === 0) return b;
      const out = b.slice();
      out[rng.int(out.length)] = rng.int(256);
      return out;
    },
  ],
  [
    "separator insertion",
    (rng, b) => {
      const i = rng.int(b.length + 1);
      const n = 1 + rng.int(rng.chance(0.1) ? 2000 : 4);
      const ins = new Uint8Array(n);
      for (let k = 0; k < n; k++) ins[k] = rng.pick(SPECIALS);
      return concat(b.subarray(0, i), ins, b.subarray(i));
    },
  ],
  [
    "random UNA",
    (rng, b) => {
      const una = new Uint8Array(9);
      una.set(enc("UNA"));
      for (let k = 3; k < 9; k++) una[k] = rng.chance(0.1) ? rng.int(256) : rng.pick(SPECIALS);
      const rest = b[0] === 0x55 && b[1] === 0x4e && b[2] === 0x41 ? b.subarray(9) : b;
      return concat(una, rest);
    },
  ],
  ["truncation", (rng, b) => b.subarray(0, rng.int(b.length + 1))],
  [
    "duplicated segment",
    (rng, b) => {
      const bounds = segmentBounds(b);
      if (bounds.length < 2) return b;
      const k = rng.int(bounds.length - 1);
      const seg = b.subarray(bounds[k], bounds[k + 1]);
      const times = 1 + rng.int(rng.chance(0.1) ? huge(rng, 20_000) : 5);
      return concat(b.subarray(0, bounds[k + 1]), repeated(seg, times, roomIn(b)), b.subarray(bounds[k + 1]));
    },
  ],
  [
    "huge element",
    (rng, b) => {
      const i = rng.int(b.length + 1);
      const n = 1 + rng.int(rng.chance(0.1) ? huge(rng, 300_000) : 200);
      const c = rng.pick([0x41, 0x39, 0x3f, 0xc3, 0xe2, 0x20, 0x0a, 0x78]);
      const run = new Uint8Array(Math.min(n, roomIn(b))).fill(c);
      return concat(b.subarray(0, i), run, b.subarray(i));
    },
  ],
  [
    "huge segment",
    (rng, b) => {
      if (roomIn(b) < 4) return b;
      const bounds = segmentBounds(b);
      const at = rng.pick(bounds);
      const unit = enc(rng.pick(["?x$", "+A", ":1", "??", "x", "+:+:", "€"]));
      const times = 1 + rng.int(rng.chance(0.1) ? huge(rng, 100_000) : 300);
      return concat(
        b.subarray(0, at),
        enc("FTX"),
        repeated(unit, times, roomIn(b) - 4),
        enc("'"),
        b.subarray(at),
      );
    },
  ],
  [
    "deleted range",
    (rng, b) => {
      const i = rng.int(b.length + 1);
      const j = Math.min(b.length, i + rng.int(64));
      return concat(b.subarray(0, i), b.subarray(j));
    },
  ],
  [
    "swapped segments",
    (rng, b) => {
      const bounds = segmentBounds(b);
      if (bounds.length < 3) return b;
      const k = rng.int(bounds.length - 2);
      const a = b.subarray(bounds[k], bounds[k + 1]);
      const c = b.subarray(bounds[k + 1], bounds[k + 2]);
      return concat(b.subarray(0, bounds[k]), c, a, b.subarray(bounds[k + 2]));
    },
  ],
  [
    "multi-byte characters",
    (rng, b) => {
      const i = rng.int(b.length + 1);
      const s = rng.pick(["é", "€", "😀", "\u0000", "\r\n", "\xff", "Ω"]).repeat(1 + rng.int(50));
      return concat(b.subarray(0, i), enc(s), b.subarray(i));
    },
  ],
];

/** The input a seed and an index give: a seed interchange with 1-4 mutations. */
export function makeInput(rng: Prng, seeds: readonly Uint8Array[]): Uint8Array {
  let b = seeds.length > 0 && rng.chance(0.4) ? rng.pick(seeds) : generated(rng);
  const count = 1 + rng.int(4);
  for (let k = 0; k < count; k++) b = rng.pick(MUTATIONS)[1](rng, b);
  return b;
}

// ---------------------------------------------------------------------------------------------
// The pipeline and its oracles.

const PROFILE_BASE: Omit<Profile, "directory" | "syntaxVersion" | "syntaxIdentifier"> = {
  partnerIdentification: { id: "5412345000013", qualifier: "14" },
  ownIdentification: { id: "4012345500004", qualifier: "14" },
  responses: { contrl: "always", aperak: "always", ordrsp: "auto" },
  orderValidation: "catalog",
  duplicateWindowDays: 30,
};
const CATALOG: Catalog = new Map([
  ["4000862141404", ["published"]],
  ["4000862141411", ["draft"]],
]);

export interface Finding {
  kind: "exception" | "slow" | "unbounded" | "invalid output";
  detail: string;
  bytes: Uint8Array;
}

/** Milliseconds an input of this size may take: 100 ms per 10 KB, at least 100 ms. */
export const slowLimitMs = (size: number): number => Math.max(100, (100 * size) / 10_240);

function boundedIssues(issues: readonly EdifactIssue[]): string | undefined {
  if (issues.length > MAX_REPORTED_ISSUES + 1) return `${issues.length} issues`;
  for (const i of issues) {
    if ((i.tag?.length ?? 0) > MAX_ISSUE_TAG + 1) return `tag of ${i.tag?.length} characters`;
    if (i.text.length > MAX_ISSUE_TEXT + 1) return `issue text of ${i.text.length} characters`;
  }
  return undefined;
}

/** One pass of the pipeline: the first problem found, or undefined. Throws what the engine throws. */
/** `global.gc` when Node runs with --expose-gc (`npm run fuzz` does; vitest does not). */
const gc = (globalThis as { gc?: () => void }).gc;
/** Inputs from this size on get an exact memory measurement (two full collections). */
const MEASURED_BYTES = 256 * 1024;

/**
 * Heap an input may hold while parsed, validated and analysed: the token table (~3x), the
 * issues (at most 10,001 of under 1 KB each) and the orders read from it. Without --expose-gc
 * the measurement includes garbage, so the bound is looser.
 */
const heapLimit = (size: number, exact: boolean): number =>
  exact ? 32 * size + 16_000_000 : 64 * size + 256_000_000;

function pipeline(bytes: Uint8Array): Omit<Finding, "bytes"> | undefined {
  const exact = gc !== undefined && bytes.length >= MEASURED_BYTES;
  if (exact) gc();
  const heapBefore = process.memoryUsage().heapUsed;
  // The exchange's own path: its analysis (parse and validate) and its outbound plan, for a
  // profile in the input's syntax and directory.
  const head = Buffer.from(bytes.subarray(0, 4096)).toString("latin1");
  const directory: Profile["directory"] = head.includes(":25A") ? "D25A" : "D96A";
  const version = /UNB\W?UNO\w\W4/.test(head) ? 4 : 3;
  const id = REPERTOIRES.find((r) => head.includes(r)) ?? "UNOC";
  const profile: Profile = { ...PROFILE_BASE, directory, syntaxVersion: version, syntaxIdentifier: id };
  const analysis = analyseInterchange(bytes, profile);
  const { parsed, report } = analysis;
  const ic = parsed.interchange;
  const unbounded = boundedIssues(parsed.issues) ?? boundedIssues(report.issues);
  if (unbounded) return { kind: "unbounded", detail: unbounded };
  const plan = planOutbound(analysis, profile, CATALOG);
  // Memory: what parsing, validating and the analysis hold (all alive here, used below) stays
  // in proportion to the input.
  if (exact) gc();
  const held = process.memoryUsage().heapUsed - heapBefore;
  if (held > heapLimit(bytes.length, exact)) {
    return { kind: "unbounded", detail: `${Math.round(held / 1e6)} MB of heap for ${bytes.length} bytes` };
  }
  const envelope: OutboundEnvelope = {
    syntaxIdentifier: id,
    syntaxVersion: version,
    sender: profile.ownIdentification,
    recipient: profile.partnerIdentification,
    controlRef: "FZ1",
    messageRef: "1",
    preparedAt: new Date(Date.UTC(2026, 0, 2, 3, 4)),
  };
  let outputBytes = 0;
  for (const message of plan) {
    const payload = serializeInterchange(message.build(envelope));
    outputBytes += payload.length;
    const issues = outboundIssues(message.type, payload, directory);
    if (issues.length > 0) {
      return {
        kind: "invalid output",
        detail: `${message.type} ${directory}: ${issues.slice(0, 3).join(" | ")}`,
      };
    }
  }
  // CONTRL in the other syntax version as well, straight from the library.
  if (ic.header) {
    const other = { ...envelope, syntaxVersion: version === 4 ? 3 : 4 } as const;
    const payload = serializeInterchange(buildContrl(ic, report, other));
    outputBytes += payload.length;
    const issues = parseInterchange(payload).issues;
    if (issues.length > 0)
      return { kind: "invalid output", detail: `CONTRL v${other.syntaxVersion}: ${issues[0]?.text}` };
  }
  // Outputs stay in proportion: a CONTRL lists at most 999 segments of 99 elements a message.
  if (outputBytes > 16 * bytes.length + 2_000_000) {
    return { kind: "unbounded", detail: `${outputBytes} bytes of output for ${bytes.length} bytes of input` };
  }
  return undefined;
}

/** CPU milliseconds of this process: unlike wall time, not inflated by other processes. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Runs one input through the pipeline and its oracles. */
export function checkInput(bytes: Uint8Array): Finding | undefined {
  let problem: Omit<Finding, "bytes"> | undefined;
  let spent = cpuMs();
  try {
    problem = pipeline(bytes);
  } catch (e) {
    const err = e as Error;
    return {
      kind: "exception",
      detail: `${err.name}: ${err.message.slice(0, 200)} ${err.stack?.split("\n")[1]?.trim() ?? ""}`,
      bytes,
    };
  }
  if (problem) return { ...problem, bytes };
  spent = cpuMs() - spent;
  // The first runs of a code path (compilation, deoptimisations) or a collection can stall a run:
  // only the best of up to ten counts. The FTX of 8,000 data elements in test/fuzz-findings took
  // ~220 ms of CPU in each of its first three runs and ~40 ms from the eighth on.
  for (let k = 0; k < 9 && spent > slowLimitMs(bytes.length); k++) {
    const again = cpuMs();
    pipeline(bytes);
    spent = Math.min(spent, cpuMs() - again);
  }
  if (spent > slowLimitMs(bytes.length)) {
    return { kind: "slow", detail: `${Math.round(spent)} ms (CPU) for ${bytes.length} bytes`, bytes };
  }
  return undefined;
}

export const findingName = (bytes: Uint8Array): string =>
  `${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.edi`;

/** Writes a finding's input where the regression test replays it; returns the path. */
export function writeFinding(finding: Finding, dir = FINDINGS_DIR): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, findingName(finding.bytes));
  writeFileSync(path, finding.bytes);
  return path;
}

export interface FuzzOptions {
  seed: number;
  /** Scales the largest repetitions (default 1; the test suite's short run takes 0.1). */
  hugeScale?: number;
  /** Stop after this many inputs (default: unlimited, then `seconds` decides). */
  inputs?: number;
  /** Stop after this many seconds. */
  seconds?: number;
  corpus?: readonly Uint8Array[];
  onFinding?: (finding: Finding) => void;
  onProgress?: (done: number) => void;
}

export interface FuzzResult {
  inputs: number;
  bytes: number;
  findings: Finding[];
  counts: Record<Finding["kind"], number>;
  seconds: number;
  largestInput: number;
  /** Most CPU time one input took (per 10 KB, first run), and its size. */
  slowest: { ms: number; bytes: number; perTenKb: number };
}

/**
 * Runs the pipeline on a few generated inputs, so that loading the directories and compiling
 * (~100 ms once, far more on a loaded machine) are not charged to the first input timed.
 */
export function warmUp(): void {
  for (let k = 0; k < 20; k++) pipeline(generated(new Prng(k + 1)));
}

export function fuzzEdifact(options: FuzzOptions): FuzzResult {
  const rng = new Prng(options.seed);
  hugeScale = options.hugeScale ?? 1;
  const seeds = options.corpus ?? corpusSeeds();
  warmUp();
  const findings: Finding[] = [];
  const counts = { exception: 0, slow: 0, unbounded: 0, "invalid output": 0 };
  const started = performance.now();
  const deadline = options.seconds !== undefined ? started + options.seconds * 1000 : Infinity;
  const limit = options.inputs ?? (options.seconds !== undefined ? Infinity : 20_000);
  let inputs = 0;
  let bytes = 0;
  let largestInput = 0;
  const slowest = { ms: 0, bytes: 0, perTenKb: 0 };
  while (inputs < limit && performance.now() < deadline) {
    const input = makeInput(rng, seeds);
    const t0 = cpuMs();
    const finding = checkInput(input);
    const ms = cpuMs() - t0;
    const perTenKb = (ms * 10_240) / Math.max(input.length, 10_240);
    if (perTenKb > slowest.perTenKb) Object.assign(slowest, { ms, bytes: input.length, perTenKb });
    inputs++;
    bytes += input.length;
    largestInput = Math.max(largestInput, input.length);
    if (finding) {
      counts[finding.kind]++;
      findings.push(finding);
      options.onFinding?.(finding);
    }
    if (inputs % 10_000 === 0) options.onProgress?.(inputs);
  }
  return {
    inputs,
    bytes,
    findings,
    counts,
    seconds: (performance.now() - started) / 1000,
    largestInput,
    slowest,
  };
}

/** Every finding file of the regression set. */
export function findingFiles(dir = FINDINGS_DIR): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => n.endsWith(".edi"))
        .sort()
        .map((n) => join(dir, n))
    : [];
}

function argValue(args: readonly string[], name: string): number | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = Number(args[i + 1]);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} takes a positive number`);
  return v;
}

/** `npm run fuzz -- edifact [--seconds N] [--inputs N] [--seed N]`: exit 1 when something was found. */
export function main(args: readonly string[]): number {
  const seconds = argValue(args, "--seconds");
  const inputs = argValue(args, "--inputs") ?? (seconds === undefined ? 20_000 : undefined);
  const seed = argValue(args, "--seed") ?? 20;
  const corpus = corpusSeeds();
  console.log(
    `edifact fuzz: seed ${seed}, ${inputs !== undefined ? `${inputs} inputs` : ""}${seconds !== undefined ? ` ${seconds} s` : ""}, ${corpus.length} corpus files${corpus.length === 0 ? ` (${CORPUS_DIR} absent)` : ""}`,
  );
  const result = fuzzEdifact({
    seed,
    ...(inputs !== undefined ? { inputs } : {}),
    ...(seconds !== undefined ? { seconds } : {}),
    corpus,
    onFinding: (f) => {
      console.log(`  ${f.kind}: ${f.detail} -> ${writeFinding(f)}`);
    },
    onProgress: (n) => {
      console.log(`  ${n} inputs`);
    },
  });
  const mem = process.memoryUsage();
  console.log(
    [
      `inputs ${result.inputs} (${(result.bytes / 1e6).toFixed(1)} MB, largest ${result.largestInput} bytes)`,
      `exceptions ${result.counts.exception}`,
      `slow inputs ${result.counts.slow}`,
      `unbounded ${result.counts.unbounded}`,
      `invalid outputs ${result.counts["invalid output"]}`,
      `time ${result.seconds.toFixed(1)} s`,
      `slowest ${result.slowest.ms.toFixed(1)} ms for ${result.slowest.bytes} bytes (${result.slowest.perTenKb.toFixed(1)} ms per 10 KB)`,
      `rss ${(mem.rss / 1e6).toFixed(0)} MB`,
    ].join(", "),
  );
  return result.findings.length > 0 ? 1 : 0;
}
