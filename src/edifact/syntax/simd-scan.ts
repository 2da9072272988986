import { instantiate } from "../wasm-instance.js";
import { BYTE_CLASS, TOKENIZER_MEMORY, TOKENIZER_STATE } from "../wasm-layout.js";
import type { SeparatorBytes } from "./separators.js";
import { lastAtOrBefore } from "./sorted-search.js";
import { tokenizerWasmBase64 } from "./tokenizer.wasm.js";

/**
 * Drives the WebAssembly hot loop of the tokenizer (tokenizer.wat). The input goes through one
 * small memory in windows of WINDOW bytes: each window is copied in, scanned, and its tokens and
 * segments copied out into the table's arrays, so the memory is allocated once per process and
 * never grows, whatever the input size (a fresh memory per call paid a page fault for every
 * page it touched). tokenizer.ts words the issues and completes the table.
 */

const CLASS_DATA = BYTE_CLASS.data;
const CLASS_REL = BYTE_CLASS.release;
const CLASS_BAD = BYTE_CLASS.bad;
/** The memory's regions (wasm-layout.ts, which tokenizer.wat is assembled from). */
const { classes: CLASSES, nibblesLow: NIBBLES_LOW, nibblesHigh: NIBBLES_HIGH } = TOKENIZER_MEMORY;
const { state: STATE, input: INPUT, window: WINDOW } = TOKENIZER_MEMORY;
const { ts: TS, ti: TI, se: SE, st: ST, bl: BL, ri: RI, bytes: MEMORY_BYTES } = TOKENIZER_MEMORY;
/** Release issues and suspect bytes listed per input at most (more: `listOverflow`). */
export const LIST_CAP = 4096;

/** State slots (int32 index from STATE), as tokenizer.wat reads them. */
const S = TOKENIZER_STATE;
const STATE_SLOTS = TOKENIZER_MEMORY.stateSlots;

interface Scanner {
  readonly run: () => void;
  readonly memory: Uint8Array;
  readonly state: Int32Array;
  readonly int32: Int32Array;
  /** The class table now in memory (interchanges of one partner share one). */
  cls: Uint8Array | undefined;
}

let scanner: Scanner | undefined;

/** The one instance of the process, made on first use. */
function theScanner(): Scanner {
  if (scanner) return scanner;
  const { exports, memory } = instantiate(tokenizerWasmBase64, MEMORY_BYTES);
  const state = new Int32Array(memory.buffer, STATE, STATE_SLOTS);
  state[S.ts] = TS;
  state[S.ti] = TI;
  state[S.se] = SE;
  state[S.st] = ST;
  state[S.bl] = BL;
  state[S.ri] = RI;
  scanner = {
    run: exports.run as () => void,
    memory: new Uint8Array(memory.buffer),
    state,
    int32: new Int32Array(memory.buffer),
    cls: undefined,
  };
  return scanner;
}

export interface ScanResult {
  readonly tokenCount: number;
  readonly segmentCount: number;
  /** Where the token in progress at the end of the input starts. */
  readonly start: number;
  /** Its coordinates. */
  readonly coord: number;
  /** Capacity at least tokenCount + 1 (the tokenizer may add an unterminated last token). */
  readonly tokStart: Int32Array;
  readonly tokInfo: Uint32Array;
  /** Capacity at least segmentCount + 1. */
  readonly segEnd: Int32Array;
  /** Capacity at least segmentCount + 2; segToken[0] is 0. */
  readonly segToken: Int32Array;
  /**
   * Uninitialised room for the segment starts, in the same block as the rest for a small input;
   * shorter than the segments (often empty) when the tokenizer has to allocate them itself.
   */
  readonly segStartRoom: Int32Array;
  /** Offsets of bytes the repertoire does not allow (released ones excepted), in order. */
  readonly badBytes: readonly number[];
  /** Offsets of release characters that release no service character, in order. */
  readonly releaseIssues: readonly number[];
  /** More of either than LIST_CAP: each list ends at its cap. */
  readonly listOverflow: boolean;
}

/**
 * Nibble tables for the repertoire check: (lo[b & 15] & hi[b >> 4]) != 0 for every byte b of
 * class BAD. High nibbles with the same set of bad low nibbles share a bit; beyond eight such
 * sets the last bit takes the union of the rest, which flags more blocks than needed (the
 * byte check here rules them out) but never misses one.
 */
function nibbleTables(cls: Uint8Array): Uint8Array {
  const tables = new Uint8Array(32);
  const bitOf = new Map<number, number>();
  for (let high = 0; high < 16; high++) {
    let set = 0;
    for (let low = 0; low < 16; low++) if (cls[(high << 4) | low] === CLASS_BAD) set |= 1 << low;
    if (set === 0) continue;
    let bit = bitOf.get(set);
    if (bit === undefined) {
      bit = Math.min(bitOf.size, 7);
      bitOf.set(set, bit);
    }
    tables[16 + high] = (tables[16 + high] as number) | (1 << bit);
    for (let low = 0; low < 16; low++)
      if ((set >> low) & 1) tables[low] = (tables[low] as number) | (1 << bit);
  }
  return tables;
}

/** Per class table: its nibble tables and a byte of class DATA (for the layout overwrite). */
const prepared = new WeakMap<Uint8Array, { nibbles: Uint8Array; filler: number }>();

function prepare(cls: Uint8Array) {
  let p = prepared.get(cls);
  if (p) return p;
  let filler = 0x41;
  for (let b = 0x7e; b >= 0; b--) if (cls[b] === CLASS_DATA) filler = b;
  p = { nibbles: nibbleTables(cls), filler };
  prepared.set(cls, p);
  return p;
}

/**
 * Whether byte r is layout: a line break in the run of them right after a terminator, which the
 * scan skips (it matters where a UNA makes a line break the release character).
 */
function isLayout(bytes: Uint8Array, r: number, segEnd: Int32Array, segments: number): boolean {
  const isLineBreak = (b: number | undefined): boolean => b === 0x0d || b === 0x0a;
  if (!isLineBreak(bytes[r])) return false;
  let q = r - 1;
  while (q >= 0 && isLineBreak(bytes[q])) q--;
  const s = lastAtOrBefore(segEnd, 0, segments - 1, q);
  return s >= 0 && segEnd[s] === q;
}

const NO_ROOM = new Int32Array(0);

/** Uninitialised int32s: every slot the table exposes is written before it is read. */
export function uninitialised(length: number): Int32Array {
  const block = Buffer.allocUnsafe(4 * length);
  return new Int32Array(block.buffer, block.byteOffset, length);
}

function grown(a: Int32Array, size: number): Int32Array {
  const b = uninitialised(size);
  b.set(a);
  return b;
}

/**
 * Scans bytes [body, n) of `bytes` into tokens and segments. The arrays start at
 * `tokenCapacity` tokens and a quarter as many segments, and grow when the input is denser.
 */
export function simdScan(
  bytes: Uint8Array,
  body: number,
  cls: Uint8Array,
  sep: SeparatorBytes,
  tokenCapacity: number,
): ScanResult {
  const s = theScanner();
  const { memory, state, int32 } = s;
  if (s.cls !== cls) {
    const { nibbles, filler } = prepare(cls);
    memory.set(cls, CLASSES);
    memory.set(nibbles.subarray(0, 16), NIBBLES_LOW);
    memory.set(nibbles.subarray(16), NIBBLES_HIGH);
    state[S.filler] = filler;
    s.cls = cls;
  }
  const n = bytes.length;
  const unused = sep.component;
  state[S.coord] = 0;
  state[S.skip] = 0;
  state[S.layout] = 0;
  state[S.comp] = sep.component;
  state[S.elem] = sep.element;
  state[S.term] = sep.terminator;
  state[S.rel] = sep.release < 0 ? unused : sep.release;
  state[S.rep] = sep.repetition < 0 ? unused : sep.repetition;

  // Uninitialised memory: every slot the table exposes is written before it is read. A small
  // input's arrays are one block (each allocation costs a fixed ~1 µs), with room for the
  // segment starts the tokenizer derives afterwards; a large input's get
  // blocks of their own, each under the C library's 32 MiB limit above which every allocation is
  // a fresh mapping whose every page faults on first write (a 16 MiB input's table in one block:
  // tokenizing 30 % slower).
  const tokens = Math.max(32, tokenCapacity) + 1;
  const segments = Math.max(16, Math.ceil(tokenCapacity / 4)) + 1;
  let tokStart: Int32Array;
  let tokInfo: Int32Array;
  let segEnd: Int32Array;
  let segToken: Int32Array;
  let segStartRoom: Int32Array = NO_ROOM;
  if (n <= WINDOW) {
    const block = uninitialised(2 * tokens + 3 * segments + 1);
    tokStart = block.subarray(0, tokens);
    tokInfo = block.subarray(tokens, 2 * tokens);
    segEnd = block.subarray(2 * tokens, 2 * tokens + segments);
    segToken = block.subarray(2 * tokens + segments, 2 * tokens + 2 * segments + 1);
    segStartRoom = block.subarray(2 * tokens + 2 * segments + 1);
  } else {
    tokStart = uninitialised(tokens);
    tokInfo = uninitialised(tokens);
    segEnd = uninitialised(segments);
    segToken = uninitialised(segments + 1);
  }
  segToken[0] = 0;
  let tc = 0;
  let sc = 0;
  /** The next token's start, as an offset in `bytes`. */
  let start = body;
  const badBytes: number[] = [];
  const releaseIssues: number[] = [];
  let listOverflow = false;
  let lastBad = -1;
  let lastBadToken = -1;
  let releaseSeen = 0;

  for (let w = body; w < n; w += WINDOW) {
    const len = Math.min(WINDOW, n - w);
    // The window and the 16 bytes after it: the scan reads one byte past a release character.
    const copied = Math.min(len + 16, n - w);
    memory.set(bytes.subarray(w, w + copied), INPUT);
    memory.fill(0, INPUT + copied, INPUT + len + 16);
    const base = INPUT - w;
    state[S.p] = INPUT;
    state[S.start] = start + base;
    state[S.tc] = 0;
    state[S.sc] = 0;
    state[S.nbl] = 0;
    state[S.nri] = 0;
    state[S.end] = INPUT + len;
    state[S.inputEnd] = n + base;
    state[S.base] = base;
    state[S.tokenBase] = tc;
    s.run();
    start = (state[S.start] as number) - base;

    const wtc = state[S.tc] as number;
    const wsc = state[S.sc] as number;
    if (tc + wtc + 1 > tokStart.length) {
      const size = Math.ceil((tc + wtc) * 1.5) + 1024;
      tokStart = grown(tokStart.subarray(0, tc), size);
      tokInfo = grown(tokInfo.subarray(0, tc), size);
    }
    if (sc + wsc + 2 > segToken.length) {
      const size = Math.ceil((sc + wsc) * 1.5) + 256;
      segEnd = grown(segEnd.subarray(0, sc), size);
      segToken = grown(segToken.subarray(0, sc + 1), size + 1);
    }
    tokStart.set(int32.subarray(TS >> 2, (TS >> 2) + wtc), tc);
    tokInfo.set(int32.subarray(TI >> 2, (TI >> 2) + wtc), tc);
    segEnd.set(int32.subarray(SE >> 2, (SE >> 2) + wsc), sc);
    segToken.set(int32.subarray((ST >> 2) + 1, (ST >> 2) + 1 + wsc), sc + 1);
    tc += wtc;
    sc += wsc;

    const nri = state[S.nri] as number;
    for (let k = 0; k < nri && !listOverflow; k++) {
      if (releaseIssues.length === LIST_CAP) listOverflow = true;
      else releaseIssues.push(int32[(RI >> 2) + k] as number);
    }
    // Blocks the nibble tables flagged: each byte checked on the copy (which no longer holds
    // the layout line breaks), released bytes left to their release character's issue. As the
    // tokenizer reports one finding per constituent, a bad byte in the same token as the last
    // one listed, with no release issue between them, is not listed.
    const nbl = state[S.nbl] as number;
    for (let k = 0; k < nbl && !listOverflow; k++) {
      const block = int32[(BL >> 2) + k] as number;
      const end = Math.min(n, block + 16);
      for (let j = block; j < end; j++) {
        if (cls[memory[j + base] as number] !== CLASS_BAD) continue;
        let releases = 0;
        for (let r = j - 1; r >= body && cls[bytes[r] as number] === CLASS_REL; r--) {
          if (isLayout(bytes, r, segEnd, sc)) break;
          releases++;
        }
        if (releases % 2 === 1) continue;
        const token = j >= start ? tc : lastAtOrBefore(tokStart, 0, tc - 1, j);
        while (releaseSeen < releaseIssues.length && (releaseIssues[releaseSeen] as number) < j)
          releaseSeen++;
        const releaseBetween = releaseSeen > 0 && (releaseIssues[releaseSeen - 1] as number) > lastBad;
        if (token === lastBadToken && !releaseBetween) continue;
        if (badBytes.length === LIST_CAP) {
          listOverflow = true;
          break;
        }
        badBytes.push(j);
        lastBad = j;
        lastBadToken = token;
      }
    }
  }
  const coord = state[S.coord] as number;
  return {
    tokenCount: tc,
    segmentCount: sc,
    start,
    coord,
    tokStart,
    tokInfo: new Uint32Array(tokInfo.buffer, tokInfo.byteOffset, tokInfo.length),
    segEnd,
    segToken,
    segStartRoom,
    badBytes,
    releaseIssues,
    listOverflow,
  };
}
