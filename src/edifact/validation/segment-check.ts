import type { MessageDef } from "../directories/directory.types.js";
import { instantiate, WASM_PAGE, type WasmMemory } from "../wasm-instance.js";
import {
  MESSAGE_IMAGE,
  MESSAGE_IMAGE_FIELDS,
  MESSAGE_IMAGE_INTS,
  SEGMENT_CHECK_MEMORY,
  SEGMENT_RECORD_FIELDS,
  TAG_ID,
} from "../wasm-layout.js";
import { lastAtOrBefore } from "../syntax/sorted-search.js";
import type { TokenTable } from "../syntax/tokenizer.js";
import type { DirectoryProgram } from "./directory.program.js";
import type { CompiledSegment } from "./segment.program.js";
import type { QuickContext } from "./segment.precheck.js";
import { segmentCheckWasmBase64 } from "./segment-check.wasm.js";
import { compileStructure, type StructureProgram } from "./structure.program.js";
import type { StructureWalker } from "./structure.validator.js";

/**
 * Drives the WebAssembly fast path of message validation (segment-check.wat): for the usual
 * segment it reads the tag, runs the quick check and takes the structure step, and it stops
 * at the first segment that is not usual, untouched, for `validateMessage` to take as it
 * takes every segment without this module. The message's bytes and token table are copied
 * into one small memory in windows of at most WINDOW bytes (whole segments each); a message's
 * structure and its directory's compiled segments are laid out in the same memory once per
 * process (images), after the window; the memory grows for each new one and is never released
 * (a process serves a handful of directories).
 */

/**
 * The memory's regions (wasm-layout.ts, which segment-check.wat is assembled from): WINDOW bytes
 * of input per window (a longer segment is left to TypeScript) at BYTES; the walker's state (i32)
 * and its counts (f64 per level, at most MAX_LEVELS) at IO.
 */
const {
  window: WINDOW,
  bytes: BYTES,
  io: IO,
  ioCounts: IO_COUNTS,
  maxLevels: MAX_LEVELS,
} = SEGMENT_CHECK_MEMORY;
const { ts: TS, ti: TI, st: ST, se: SE, images: IMAGES } = SEGMENT_CHECK_MEMORY;
/** Packed tag ids (tag-id.ts) are below this; interned ones never match input bytes here. */
const INTERNED_BASE = TAG_ID.internedBase;
/** No image is made beyond this much memory (TypeScript then does all the work). */
const MAX_MEMORY = 64 * 1024 * 1024;

type WalkFunction = (
  msg: number,
  from: number,
  nseg: number,
  st: number,
  se: number,
  ts: number,
  ti: number,
  badj: number,
  io: number,
  codes: number,
  dec0: number,
  dec1: number,
  rel: number,
) => number;

interface Engine {
  readonly walk: WalkFunction;
  readonly memory: WasmMemory;
  /** Views of the memory; made again when it grows (growing detaches the old buffer). */
  bytes: Uint8Array;
  int32: Int32Array;
  uint32: Uint32Array;
  float64: Float64Array;
  /** Where the next image goes. */
  top: number;
  /** Per directory program: the address of each compiled segment's record. */
  readonly records: WeakMap<DirectoryProgram, Map<CompiledSegment, number>>;
  /** Per directory program and message structure: the message image's address (0: none). */
  readonly messages: WeakMap<DirectoryProgram, WeakMap<MessageDef, number>>;
}

let engine: Engine | undefined;
let enabled = true;

/** Tests only: runs `fn` with the fast path off (TypeScript takes every segment). */
export function withoutFastWalk<T>(fn: () => T): T {
  enabled = false;
  try {
    return fn();
  } finally {
    enabled = true;
  }
}

function views(e: Engine): void {
  e.bytes = new Uint8Array(e.memory.buffer);
  e.int32 = new Int32Array(e.memory.buffer);
  e.uint32 = new Uint32Array(e.memory.buffer);
  e.float64 = new Float64Array(e.memory.buffer);
}

function theEngine(): Engine {
  if (engine) return engine;
  const { exports, memory } = instantiate(segmentCheckWasmBase64, IMAGES + WASM_PAGE);
  const e: Engine = {
    walk: exports.walk as WalkFunction,
    memory,
    bytes: new Uint8Array(0),
    int32: new Int32Array(0),
    uint32: new Uint32Array(0),
    float64: new Float64Array(0),
    top: IMAGES,
    records: new WeakMap(),
    messages: new WeakMap(),
  };
  views(e);
  engine = e;
  return e;
}

/** Lays out int32 arrays (and one float64 array) one after another from a reserved address. */
class Layout {
  constructor(
    private readonly e: Engine,
    private next: number,
  ) {}

  int32(values: ArrayLike<number>): number {
    const at = this.next;
    this.e.int32.set(values, at >> 2);
    this.next += 4 * values.length;
    return at;
  }

  float64(values: Float64Array): number {
    this.next = (this.next + 7) & ~7;
    const at = this.next;
    this.e.float64.set(values, at >> 3);
    this.next += 8 * values.length;
    return at;
  }
}

/** Reserves `size` bytes (8-aligned) for an image, growing the memory; undefined past the cap. */
function reserve(e: Engine, size: number): Layout | undefined {
  const at = e.top;
  const end = (at + size + 15) & ~7;
  if (end > MAX_MEMORY) return undefined;
  const have = e.memory.buffer.byteLength;
  if (end > have) {
    e.memory.grow(Math.ceil((end - have) / WASM_PAGE));
    views(e);
  }
  e.top = end;
  return new Layout(e, at);
}

const RECORD_INTS = SEGMENT_RECORD_FIELDS.length;

/** The records of a directory program's segments (see the .wat), by compiled segment. */
function recordsOf(e: Engine, program: DirectoryProgram): Map<CompiledSegment, number> {
  let records = e.records.get(program);
  if (records) return records;
  records = new Map();
  const usable = [...program.segments.values()].filter((seg) => !seg.fullCheckOnly);
  let size = 0;
  for (const seg of usable)
    size +=
      4 *
      (RECORD_INTS +
        seg.positions.length +
        seg.conditional.length +
        seg.codes.keys.length +
        seg.values.length);
  const layout = reserve(e, size);
  if (layout)
    for (const seg of usable) {
      const positions = layout.int32(seg.positions);
      const conditional = layout.int32(seg.conditional);
      const codes = layout.int32(seg.codes.keys);
      const values = layout.int32(seg.values);
      const fields: Record<(typeof SEGMENT_RECORD_FIELDS)[number], number> = {
        size: seg.positions.length,
        required: seg.required,
        conditionalInts: seg.conditional.length,
        codeShift: seg.codes.shift,
        codeMask: seg.codes.keys.length - 1,
        positions,
        conditional,
        codeKeys: codes,
        values,
      };
      const record = layout.int32(SEGMENT_RECORD_FIELDS.map((name) => fields[name]));
      records.set(seg, record);
    }
  e.records.set(program, records);
  return records;
}

/** The image of a message structure with its directory's segments; 0 when there is none. */
function messageImage(e: Engine, program: DirectoryProgram, message: MessageDef): number {
  let byMessage = e.messages.get(program);
  if (!byMessage) {
    byMessage = new WeakMap();
    e.messages.set(program, byMessage);
  }
  const known = byMessage.get(message);
  if (known !== undefined) return known;
  const structure: StructureProgram = compileStructure(message);
  let image = 0;
  if (structure.fast && structure.depth <= MAX_LEVELS) {
    const records = recordsOf(e, program);
    const { keys, values: dense, shift } = structure.tagIndex;
    // Interned tags (never read from bytes here) are left out: the walk stops at them.
    const tagKeys = keys.map((key) => (key < INTERNED_BASE ? key : 0));
    const segmentRecords = Int32Array.from(tagKeys, (key) => {
      const seg = key === 0 ? undefined : program.segments.get(key);
      return seg ? (records.get(seg) ?? 0) : 0;
    });
    const size =
      4 * (MESSAGE_IMAGE_INTS + 3 * keys.length + structure.trans.length + structure.chainNode.length) +
      8 * structure.max.length +
      4 * structure.level.length;
    const layout = reserve(e, size);
    if (layout) {
      const header = layout.int32(new Int32Array(MESSAGE_IMAGE_INTS));
      const fields: Record<(typeof MESSAGE_IMAGE_FIELDS)[number], number> = {
        tagShift: shift,
        tagMask: keys.length - 1,
        tagKeys: layout.int32(tagKeys),
        denseTags: layout.int32(dense),
        records: layout.int32(segmentRecords),
        transitions: layout.int32(structure.trans),
        tags: structure.tags,
        chainNodes: layout.int32(structure.chainNode),
        maxima: layout.float64(structure.max),
        levels: layout.int32(structure.level),
        depth: structure.depth,
      };
      for (const name of MESSAGE_IMAGE_FIELDS) e.int32[(header + MESSAGE_IMAGE[name]) >> 2] = fields[name];
      image = header;
    }
  }
  byMessage.set(message, image);
  return image;
}

/**
 * The WebAssembly walk over one message's segments. `run(walker, s)` takes segments from `s`
 * on and answers the first one it did not take (last + 1 when it took them all).
 */
export class FastWalk {
  private readonly e: Engine;
  private readonly image: number;
  /** The window now in memory: segments [from, to] of the table (to < from: none). */
  private from = 0;
  private to = -1;
  private tokenBase = 0;
  private byteBase = 0;

  private constructor(
    private readonly t: TokenTable,
    private readonly last: number,
    private readonly q: QuickContext,
    e: Engine,
    image: number,
  ) {
    this.e = e;
    this.image = image;
  }

  /**
   * The fast path for a message, or undefined where it does not apply: UTF-8 interchanges
   * (lengths count characters), structures without a transition table, no image.
   */
  static for(
    t: TokenTable,
    last: number,
    q: QuickContext,
    program: DirectoryProgram,
    message: MessageDef,
  ): FastWalk | undefined {
    if (q.utf8 || !enabled) return undefined;
    const e = theEngine();
    const image = messageImage(e, program, message);
    return image === 0 ? undefined : new FastWalk(t, last, q, e, image);
  }

  /** Copies the window of whole segments that starts at segment `a`; false when `a` is too long. */
  private load(a: number): boolean {
    const t = this.t;
    const e = this.e;
    const from = t.segStart[a] as number;
    const b = lastAtOrBefore(t.segEnd, a, this.last, from + WINDOW - 1);
    if (b < a) return false;
    const to = Math.min((t.segEnd[b] as number) + 1, t.bytes.length);
    const tokA = t.segToken[a] as number;
    const tokB = t.segToken[b + 1] as number;
    e.bytes.set(t.bytes.subarray(from, to), BYTES);
    e.int32.set(t.tokStart.subarray(tokA, tokB), TS >> 2);
    e.uint32.set(t.tokInfo.subarray(tokA, tokB), TI >> 2);
    e.int32.set(t.segToken.subarray(a, b + 2), ST >> 2);
    e.int32.set(t.segEnd.subarray(a, b + 1), SE >> 2);
    this.from = a;
    this.to = b;
    this.tokenBase = tokA;
    this.byteBase = from;
    return true;
  }

  run(walker: StructureWalker, s: number): number {
    const state = walker.tableState;
    if (state < 0) return s;
    const e = this.e;
    const counts = walker.counts;
    e.int32[IO >> 2] = state;
    const countsAt = (IO + IO_COUNTS) >> 3;
    const f64 = e.float64;
    for (let l = 0; l < counts.length; l++) f64[countsAt + l] = counts[l] as number;
    let at = s;
    while (at <= this.last) {
      if ((at < this.from || at > this.to) && !this.load(at)) break;
      const q = this.q;
      const stop =
        this.from +
        e.walk(
          this.image,
          at - this.from,
          this.to - this.from + 1,
          ST,
          SE,
          TS - 4 * this.tokenBase,
          TI - 4 * this.tokenBase,
          BYTES - this.byteBase,
          IO,
          q.checkCodes ? 1 : 0,
          q.decimal0,
          q.decimal1,
          q.release,
        );
      at = stop;
      if (stop <= this.to) break;
    }
    if (at !== s) {
      walker.resumeAt(e.int32[IO >> 2] as number);
      for (let l = 0; l < counts.length; l++) counts[l] = e.float64[countsAt + l] as number;
    }
    return at;
  }
}
