import { decoderFor, findInvalidUtf8, repertoireTable, type Decoder } from "./charset.js";
import { ErrorCode } from "./error-codes.js";
import { defaultSeparators, type Separators } from "./separators.js";

/** A problem the tokenizer saw in the bytes themselves. Positions are 0-based here. */
export interface TokenizerIssue {
  readonly code: number;
  readonly offset: number;
  /** Index of the segment in the input (UNA not counted), -1 for UNA. */
  readonly segment: number;
  readonly element: number;
  readonly component: number;
  readonly occurrence: number;
  readonly text: string;
}

/**
 * The whole input as flat typed arrays (struct of arrays), so that tokenizing a 16 MiB
 * interchange allocates a handful of arrays instead of millions of objects. Token k of
 * segment s lies in [segToken[s], segToken[s + 1]); element 0 of every segment is its tag.
 * A token's coordinates are packed into `tokInfo` (read them with tokElem/tokComp/tokRep);
 * its end is derived (tokEnd) rather than stored, which keeps the table at 8 bytes a token.
 */
export interface TokenTable {
  readonly bytes: Uint8Array;
  readonly separators: Separators;
  readonly una: boolean;
  /** Byte offset where segments start (after BOM and UNA). */
  readonly bodyOffset: number;
  readonly bom: boolean;
  /** Read from UNB ahead of tokenizing, because they decide separators and repertoire. */
  readonly syntaxIdentifier: string | undefined;
  readonly syntaxVersion: number | undefined;
  readonly decode: Decoder;
  readonly segmentCount: number;
  readonly segStart: Int32Array;
  /** Offset of the terminator, or of the end of input for an unterminated segment. */
  readonly segEnd: Int32Array;
  readonly segToken: Int32Array;
  readonly tokenCount: number;
  readonly tokStart: Int32Array;
  /** Bits 0–9 component, 10–16 occurrence, 17–29 element, 30 "contains release characters". */
  readonly tokInfo: Uint32Array;
  readonly issues: TokenizerIssue[];
}

const COMP_MAX = 0x3ff;
const REP_SHIFT = 10;
const REP_MAX = 0x7f;
const ELEM_SHIFT = 17;
const ELEM_MAX = 0x1fff;
const COORD_MASK = 0x3fffffff;
/** Bit 30, so that packed values stay positive int32 in the hot loop. */
const RELEASED = 0x40000000;

export function tokElem(t: TokenTable, k: number): number {
  return ((t.tokInfo[k] as number) >>> ELEM_SHIFT) & ELEM_MAX;
}

export function tokComp(t: TokenTable, k: number): number {
  return (t.tokInfo[k] as number) & COMP_MAX;
}

export function tokRep(t: TokenTable, k: number): number {
  return ((t.tokInfo[k] as number) >>> REP_SHIFT) & REP_MAX;
}

export function tokReleased(t: TokenTable, k: number): boolean {
  return ((t.tokInfo[k] as number) & RELEASED) !== 0;
}

/** Offset just past the token's last byte (the separator or terminator that ends it). */
export function tokEnd(t: TokenTable, k: number): number {
  const next = k + 1;
  if (next < t.tokenCount && ((t.tokInfo[next] as number) & COORD_MASK) !== 0)
    return (t.tokStart[next] as number) - 1;
  // Last token of its segment: find its terminator (release-aware; the token holds no other separator).
  const bytes = t.bytes;
  const n = bytes.length;
  const rel = t.separators.release === " " ? -1 : t.separators.release.charCodeAt(0);
  const term = t.separators.terminator.charCodeAt(0);
  let i = t.tokStart[k] as number;
  while (i < n) {
    const b = bytes[i] as number;
    if (b === rel) i += 2;
    else if (b === term) return i;
    else i++;
  }
  let end = Math.min(i, n);
  while (end > (t.tokStart[k] as number) && (bytes[end - 1] === CR || bytes[end - 1] === LF)) end--;
  return end;
}

/** Byte classes; the separators that end a token come first, the rare classes last. */
const CL_DATA = 0;
const CL_COMP = 1;
const CL_ELEM = 2;
const CL_TERM = 3;
const CL_REP = 4;
const CL_REL = 5;
const CL_BAD = 6;

const CR = 0x0d;
const LF = 0x0a;
/** Enough to describe any real defect; garbage input must not grow the issue list unbounded. */
const MAX_ISSUES = 1000;

const isAlnum = (c: string): boolean => /^[A-Za-z0-9]$/.test(c);

function skipLineBreaks(bytes: Uint8Array, i: number): number {
  while (i < bytes.length && (bytes[i] === CR || bytes[i] === LF)) i++;
  return i;
}

interface Prelude {
  bom: boolean;
  una: boolean;
  body: number;
  raw: Separators;
  issues: TokenizerIssue[];
}

function readPrelude(bytes: Uint8Array): Prelude {
  const issues: TokenizerIssue[] = [];
  let i = 0;
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (bom) i = 3;
  i = skipLineBreaks(bytes, i);
  const isUna = bytes[i] === 0x55 && bytes[i + 1] === 0x4e && bytes[i + 2] === 0x41;
  if (!isUna) return { bom, una: false, body: i, raw: defaultSeparators(3), issues };
  if (i + 9 > bytes.length) {
    issues.push({
      code: ErrorCode.unaNotSupported,
      offset: i,
      segment: -1,
      element: 0,
      component: 0,
      occurrence: 0,
      text: "UNA service string advice is shorter than 9 characters",
    });
    return { bom, una: false, body: i, raw: defaultSeparators(3), issues };
  }
  const ch = (k: number): string => String.fromCharCode(bytes[i + 3 + k] as number);
  const raw: Separators = {
    component: ch(0),
    element: ch(1),
    decimal: ch(2),
    release: ch(3),
    repetition: ch(4),
    terminator: ch(5),
  };
  const mandatory = [raw.component, raw.element, raw.terminator];
  const optional = [raw.release, raw.repetition].filter((c) => c !== " ");
  const all = [...mandatory, ...optional];
  const bad =
    mandatory.some((c) => isAlnum(c) || c === " ") ||
    optional.some((c) => isAlnum(c)) ||
    new Set(all).size !== all.length;
  if (bad) {
    issues.push({
      code: ErrorCode.invalidServiceCharacterInUna,
      offset: i + 3,
      segment: -1,
      element: 0,
      component: 0,
      occurrence: 0,
      text: "UNA advises a letter, digit, space or the same character twice as service characters",
    });
  }
  if (raw.decimal !== "." && raw.decimal !== ",") {
    issues.push({
      code: ErrorCode.invalidDecimalNotation,
      offset: i + 5,
      segment: -1,
      element: 0,
      component: 0,
      occurrence: 0,
      text: `UNA decimal mark "${raw.decimal}" is neither comma nor full stop`,
    });
  }
  return { bom, una: true, body: skipLineBreaks(bytes, i + 9), raw, issues };
}

/** Reads UNB 0001 and 0002 ahead of tokenizing (they choose repertoire and separators). */
function peekSyntax(bytes: Uint8Array, at: number, sep: Separators): { id?: string; version?: number } {
  if (!(bytes[at] === 0x55 && bytes[at + 1] === 0x4e && bytes[at + 2] === 0x42)) return {};
  const elem = sep.element.charCodeAt(0);
  const comp = sep.component.charCodeAt(0);
  if (bytes[at + 3] !== elem) return {};
  let i = at + 4;
  let id = "";
  while (i < bytes.length && i < at + 12 && bytes[i] !== comp && bytes[i] !== elem) {
    id += String.fromCharCode(bytes[i] as number);
    i++;
  }
  if (bytes[i] !== comp) return { id };
  const digit = bytes[i + 1];
  if (digit === undefined || digit < 0x30 || digit > 0x39) return { id };
  return { id, version: digit - 0x30 };
}

/** Inputs up to this size take the density bound of 0.5 separators a byte without sampling. */
const UNSAMPLED_BYTES = 65536;
/** Larger inputs size their arrays from the separator density of this many leading bytes. */
const SAMPLE_BYTES = 8192;

/** Byte class tables by repertoire and separators: interchanges of one partner share one. */
const classTables = new Map<string, Uint8Array>();

function classTable(syntaxId: string, separators: Separators): Uint8Array {
  const { component, element, decimal, release, repetition, terminator } = separators;
  const key = `${syntaxId}${component}${element}${decimal}${release}${repetition}${terminator}`;
  let cls = classTables.get(key);
  if (cls) return cls;
  cls = new Uint8Array(256);
  const valid = repertoireTable(syntaxId);
  for (let b = 0; b < 256; b++) cls[b] = valid[b] === 1 ? CL_DATA : CL_BAD;
  if (release !== " ") cls[release.charCodeAt(0)] = CL_REL;
  if (repetition !== " ") cls[repetition.charCodeAt(0)] = CL_REP;
  cls[component.charCodeAt(0)] = CL_COMP;
  cls[element.charCodeAt(0)] = CL_ELEM;
  cls[terminator.charCodeAt(0)] = CL_TERM;
  // Bounded: a hostile stream of UNA variants must not grow it without end.
  if (classTables.size >= 64) classTables.clear();
  classTables.set(key, cls);
  return cls;
}

interface ReportState {
  readonly issues: TokenizerIssue[];
  overflow: boolean;
  readonly syntaxId: string | undefined;
}

function report(
  state: ReportState,
  code: number,
  offset: number,
  segment: number,
  element: number,
  component: number,
  occurrence: number,
  text: string,
): void {
  const issues = state.issues;
  const last = issues[issues.length - 1];
  // One finding per constituent is enough: a bad value often has several bad characters.
  if (
    last?.code === code &&
    last.segment === segment &&
    last.element === element &&
    last.component === component &&
    last.occurrence === occurrence
  ) {
    return;
  }
  if (issues.length >= MAX_ISSUES) {
    state.overflow = true;
    return;
  }
  issues.push({ code, offset, segment, element, component, occurrence, text });
}

function reportAt(
  state: ReportState,
  code: number,
  offset: number,
  segment: number,
  coord: number,
  text: string,
): void {
  report(
    state,
    code,
    offset,
    segment,
    (coord >>> ELEM_SHIFT) & ELEM_MAX,
    coord & COMP_MAX,
    (coord >>> REP_SHIFT) & REP_MAX,
    text,
  );
}

function releaseIssue(
  state: ReportState,
  bytes: Uint8Array,
  cls: Uint8Array,
  i: number,
  seg: number,
  coord: number,
): void {
  if (i + 1 >= bytes.length) {
    reportAt(
      state,
      ErrorCode.invalidServiceCharacter,
      i,
      seg,
      coord,
      "Release character at the end of the input releases nothing",
    );
    return;
  }
  const next = cls[bytes[i + 1] as number] as number;
  if (next === CL_DATA || next === CL_BAD) {
    reportAt(
      state,
      ErrorCode.invalidServiceCharacter,
      i,
      seg,
      coord,
      `Release character before "${String.fromCharCode(bytes[i + 1] as number)}", which is not a service character`,
    );
  }
  if (next === CL_BAD) reportAt(state, ErrorCode.invalidCharacter, i + 1, seg, coord, "Invalid character");
}

function badByteIssue(state: ReportState, b: number, i: number, seg: number, coord: number): void {
  const shown =
    b >= 0x20 && b < 0x7f ? `"${String.fromCharCode(b)}"` : `byte 0x${b.toString(16).padStart(2, "0")}`;
  reportAt(
    state,
    ErrorCode.invalidCharacter,
    i,
    seg,
    coord,
    `Invalid character ${shown} for ${state.syntaxId ?? "the interchange"}`,
  );
}

/**
 * A segment with fewer tokens than this cannot overflow a coordinate field (the occurrence
 * field, the smallest, holds 127), so the hot loop counts without checking.
 */
const MAX_UNCHECKED_TOKENS = REP_MAX + 1;
/**
 * Below this much room for tokens (and more bytes left) the token arrays grow before the next
 * block; above it a block simply ends where the room does.
 */
const MIN_ROOM = 16;
/** Tokens the arrays grow by at least. */
const GROWTH = 4096;
const REP_FIELD = REP_MAX << REP_SHIFT;

/**
 * Walks the tokens [first, last) of segment `seg` again, counting coordinates with the field
 * limits the hot loop leaves out: a value beyond a limit stays at it, and the segment gets one
 * "too many constituents" issue. The token starts are the hot loop's; only tokInfo is rewritten.
 */
function recheckSegment(
  state: ReportState,
  bytes: Uint8Array,
  cls: Uint8Array,
  tokStart: Int32Array,
  tokInfo: Uint32Array,
  first: number,
  last: number,
  seg: number,
): void {
  let coord = 0;
  let reported = false;
  for (let k = first; k < last; k++) {
    const released = (tokInfo[k] as number) & RELEASED;
    tokInfo[k] = coord | released;
    if (k + 1 === last) break;
    // The byte before the next token's start is the separator that ended this token.
    const at = (tokStart[k + 1] as number) - 1;
    const c = cls[bytes[at] as number] as number;
    const comp = coord & COMP_MAX;
    const rep = (coord >>> REP_SHIFT) & REP_MAX;
    const elem = (coord >>> ELEM_SHIFT) & ELEM_MAX;
    let full = false;
    if (c === CL_COMP) {
      if (comp === COMP_MAX) full = true;
      else coord++;
    } else if (c === CL_ELEM) {
      if (elem === ELEM_MAX) full = true;
      else coord = (elem + 1) << ELEM_SHIFT;
    } else if (rep === REP_MAX) full = true;
    else coord = (elem << ELEM_SHIFT) | ((rep + 1) << REP_SHIFT);
    if (full && !reported) {
      reported = true;
      reportAt(state, ErrorCode.tooManyConstituents, at, seg, coord, "Too many constituents");
    }
  }
}

/**
 * The table's initial arrays in uninitialised memory (Buffer.allocUnsafe): at 10 KiB, five
 * zero-filled typed arrays cost as much as a quarter of tokenizing. Safe because every slot the
 * table exposes is written before it is read, and the arrays are trimmed to their counts before
 * they are returned (see tokenize). A small input's table is one block: each allocation costs
 * a fixed 0.6–1 µs, and one instead of three made tokenizing 10 KiB 5–7 % faster. A large input's
 * token arrays get blocks of their own: carved from one block, the hot loop's paired stores ran a
 * third slower at 16 MiB.
 */
function allocateTable(tokens: number, segments: number, oneBlock: boolean) {
  if (oneBlock) {
    const block = uninitialisedInt32s(2 * tokens + 3 * segments + 1);
    return {
      tokStart: block.subarray(0, tokens),
      tokInfo: new Uint32Array(block.buffer, block.byteOffset + 4 * tokens, tokens),
      segEnd: block.subarray(2 * tokens, 2 * tokens + segments),
      segToken: block.subarray(2 * tokens + segments, 2 * tokens + 2 * segments + 1),
      segStart: block.subarray(2 * tokens + 2 * segments + 1),
    };
  }
  const segmentBlock = uninitialisedInt32s(3 * segments + 1);
  const info = uninitialisedInt32s(tokens);
  return {
    tokStart: uninitialisedInt32s(tokens),
    tokInfo: new Uint32Array(info.buffer, info.byteOffset, tokens),
    segEnd: segmentBlock.subarray(0, segments),
    segToken: segmentBlock.subarray(segments, 2 * segments + 1),
    segStart: segmentBlock.subarray(2 * segments + 1),
  };
}

function uninitialisedInt32s(length: number): Int32Array {
  const block = Buffer.allocUnsafe(4 * length);
  return new Int32Array(block.buffer, block.byteOffset, length);
}

function grow32(a: Int32Array, size: number): Int32Array {
  const b = new Int32Array(size);
  b.set(a.subarray(0, Math.min(a.length, size)));
  return b;
}

function growU32(a: Uint32Array, size: number): Uint32Array {
  const b = new Uint32Array(size);
  b.set(a.subarray(0, Math.min(a.length, size)));
  return b;
}

export interface TokenizeOptions {
  /** Forces the repertoire, e.g. when the caller already knows the interchange's UNB. */
  readonly syntaxIdentifier?: string;
}

/**
 * Splits an interchange into segments, elements, repetitions and components in one linear
 * pass. It never throws: whatever the bytes, the result is a table plus issues.
 */
export function tokenize(bytes: Uint8Array, options: TokenizeOptions = {}): TokenTable {
  const prelude = readPrelude(bytes);
  const issues = prelude.issues;
  const peeked = peekSyntax(bytes, prelude.body, prelude.raw);
  const version = peeked.version;
  const syntaxId = options.syntaxIdentifier ?? peeked.id;
  // UNA position 5 is reserved (a space) before syntax version 4; only version 4 repeats.
  let separators: Separators;
  if (prelude.una) {
    separators = version !== undefined && version < 4 ? { ...prelude.raw, repetition: " " } : prelude.raw;
  } else separators = defaultSeparators(version ?? 3);

  const cls = classTable(syntaxId ?? "", separators);
  const n = bytes.length;
  const state: ReportState = { issues, overflow: false, syntaxId };
  // Size the table from the separator density of the first 64 KiB: no copying in the usual case.
  // Small inputs skip the sampling pass (it would cost as much as tokenizing) and take n / 2.
  let density = 0.5;
  if (n > UNSAMPLED_BYTES) {
    let sampled = 0;
    const sampleEnd = Math.min(n, prelude.body + SAMPLE_BYTES);
    for (let j = prelude.body; j < sampleEnd; j++) {
      const c = cls[bytes[j] as number] as number;
      if (c >= CL_COMP && c <= CL_REP) sampled++;
    }
    density = Math.min(0.5, (sampled / Math.max(1, sampleEnd - prelude.body)) * 1.05 + 0.01);
  }
  const tokenCapacity = Math.max(64, Math.ceil(n * density) + 16);
  const initial = allocateTable(
    tokenCapacity,
    Math.max(16, Math.ceil(tokenCapacity / 4)),
    n <= UNSAMPLED_BYTES,
  );
  let tokStart: Int32Array = initial.tokStart;
  let tokInfo: Uint32Array = initial.tokInfo;
  let segEnd: Int32Array = initial.segEnd;
  let segToken: Int32Array = initial.segToken;
  segToken[0] = 0;

  let tc = 0;
  let sc = 0;
  let i = prelude.body;
  /** The next token's packed coordinates, with RELEASED set once it holds a release character. */
  let coord = 0;
  let start = i;

  // The input is worked through in blocks no longer than the room left for tokens: a byte ends
  // at most one token, so the hot loop checks no token capacity (the segment arrays' capacity is
  // checked once a segment). It checks no
  // coordinate overflow either: a segment of fewer than MAX_UNCHECKED_TOKENS tokens cannot
  // overflow a field, and a longer one is walked again with the checks (recheckSegment). It
  // keeps few values live (the release flag rides in `coord`, segment starts are derived
  // afterwards) so that V8 keeps them in registers.
  while (i < n) {
    const room = tokStart.length - tc;
    if (room < n - i && room < MIN_ROOM) {
      tokStart = grow32(tokStart, Math.ceil(tokStart.length * 1.5) + GROWTH);
      tokInfo = growU32(tokInfo, tokStart.length);
      continue;
    }
    const end = Math.min(n, i + room);
    for (; i < end; i++) {
      let c = cls[bytes[i] as number] as number;
      while (c === CL_DATA && ++i < end) c = cls[bytes[i] as number] as number;
      if (i >= end) break;
      if (c >= CL_REL) {
        if (c === CL_REL) {
          const next = i + 1 < n ? (cls[bytes[i + 1] as number] as number) : CL_BAD;
          if (next === CL_DATA || next === CL_BAD) releaseIssue(state, bytes, cls, i, sc, coord);
          coord |= RELEASED;
          i++;
        } else badByteIssue(state, bytes[i] as number, i, sc, coord);
        continue;
      }
      tokStart[tc] = start;
      tokInfo[tc] = coord;
      tc++;
      start = i + 1;
      if (c === CL_COMP) coord = (coord & COORD_MASK) + 1;
      else if (c === CL_ELEM) coord = (((coord >>> ELEM_SHIFT) & ELEM_MAX) + 1) << ELEM_SHIFT;
      else if (c === CL_TERM) {
        if (tc - (segToken[sc] as number) >= MAX_UNCHECKED_TOKENS)
          recheckSegment(state, bytes, cls, tokStart, tokInfo, segToken[sc] as number, tc, sc);
        if (sc === segEnd.length) {
          segEnd = grow32(segEnd, Math.ceil(sc * 1.5));
          segToken = grow32(segToken, segEnd.length + 1);
        }
        segEnd[sc] = i;
        sc++;
        segToken[sc] = tc;
        coord = 0;
        while (i + 1 < n && (bytes[i + 1] === CR || bytes[i + 1] === LF)) i++;
        start = i + 1;
      } else coord = (coord & (ELEM_MAX << ELEM_SHIFT)) + ((coord & REP_FIELD) + (1 << REP_SHIFT));
    }
  }
  if (start < n || coord !== 0) {
    // Line breaks after an unterminated last segment are layout, not data.
    let end = n;
    while (end > start && (bytes[end - 1] === CR || bytes[end - 1] === LF)) end--;
    if (tc === tokStart.length) {
      tokStart = grow32(tokStart, tc + 1);
      tokInfo = growU32(tokInfo, tc + 1);
    }
    tokStart[tc] = start;
    tokInfo[tc] = coord;
    tc++;
    if (tc - (segToken[sc] as number) >= MAX_UNCHECKED_TOKENS)
      recheckSegment(state, bytes, cls, tokStart, tokInfo, segToken[sc] as number, tc, sc);
    report(
      state,
      ErrorCode.invalidServiceCharacter,
      n,
      sc,
      0,
      0,
      0,
      "The last segment has no segment terminator",
    );
    if (sc === segEnd.length) {
      segEnd = grow32(segEnd, sc + 1);
      segToken = grow32(segToken, sc + 2);
    }
    segEnd[sc] = end;
    sc++;
    segToken[sc] = tc;
  }
  // A segment starts where its tag (its first token) starts.
  const segStart = initial.segStart.length >= sc ? initial.segStart : new Int32Array(sc);
  for (let s = 0; s < sc; s++) segStart[s] = tokStart[segToken[s] as number] as number;

  if ((syntaxId === "UNOW" || syntaxId === "UNOY") && !state.overflow) {
    let from = prelude.body;
    while (from < n) {
      const bad = findInvalidUtf8(bytes, from, n);
      if (bad < 0) break;
      const seg = segmentAt(segStart, sc, bad);
      // The token holding the byte gives the element and component, as for any invalid character.
      const tok = tokenAt(tokStart, segToken[seg] as number, (segToken[seg + 1] as number) - 1, bad);
      const at = tok < 0 ? 0 : (tokInfo[tok] as number) & COORD_MASK;
      reportAt(state, ErrorCode.invalidCharacter, bad, seg, at, "Malformed UTF-8 sequence");
      from = bad + 1;
    }
  }
  if (state.overflow) {
    issues.push({
      code: ErrorCode.unspecified,
      offset: n,
      segment: sc,
      element: 0,
      component: 0,
      occurrence: 0,
      text: `More than ${MAX_ISSUES} character-level issues; the rest are not listed`,
    });
  }
  const segmentCount = sc;
  const tokenCount = tc;

  return {
    bytes,
    separators,
    una: prelude.una,
    bodyOffset: prelude.body,
    bom: prelude.bom,
    syntaxIdentifier: syntaxId,
    syntaxVersion: version,
    decode: decoderFor(syntaxId ?? ""),
    segmentCount,
    segStart: segStart.subarray(0, sc),
    segEnd: segEnd.subarray(0, sc),
    segToken: segToken.subarray(0, sc + 1),
    tokenCount,
    tokStart: tokStart.subarray(0, tc),
    tokInfo: tokInfo.subarray(0, tc),
    issues,
  };
}

/** The last token of [first, last] starting at or before `offset`, or -1 when there is none. */
function tokenAt(tokStart: Int32Array, first: number, last: number, offset: number): number {
  let lo = first;
  let hi = last;
  if (hi < lo || (tokStart[lo] as number) > offset) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((tokStart[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Index of the segment containing a byte offset (binary search over segment starts). */
export function segmentAt(segStart: Int32Array, count: number, offset: number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((segStart[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return Math.max(0, lo);
}

let scratch: Uint8Array = new Uint8Array(256);
/** Decoded short ASCII values by their bytes: codes, tags and qualifiers repeat endlessly. */
const shortCache = new Map<number, string>();

/** The token's text with release characters removed, decoded in the interchange repertoire. */
export function tokenText(t: TokenTable, k: number): string {
  const s = t.tokStart[k] as number;
  const e = tokEnd(t, k);
  return rangeText(t, s, e, tokReleased(t, k));
}

/** Text of raw bytes [s, e) of the input, unescaping release characters when `released`. */
export function rangeText(t: TokenTable, s: number, e: number, released: boolean): string {
  if (s >= e) return "";
  const bytes = t.bytes;
  if (!released) {
    if (e - s <= 3) {
      let key = 1;
      for (let i = s; i < e; i++) {
        const b = bytes[i] as number;
        if (b >= 0x80) {
          key = 0;
          break;
        }
        key = (key << 8) | b;
      }
      if (key !== 0) {
        let cached = shortCache.get(key);
        if (cached === undefined) {
          cached = t.decode(bytes, s, e);
          shortCache.set(key, cached);
        }
        return cached;
      }
    }
    return t.decode(bytes, s, e);
  }
  const rel = t.separators.release.charCodeAt(0);
  if (scratch.length < e - s) scratch = new Uint8Array(e - s);
  let w = 0;
  for (let i = s; i < e; i++) {
    let b = bytes[i] as number;
    if (b === rel && i + 1 < e) b = bytes[++i] as number;
    else if (b === rel) continue;
    scratch[w++] = b;
  }
  return t.decode(scratch, 0, w);
}

/** Length of the token's value in characters (release characters excluded). */
export function tokenLength(t: TokenTable, k: number, utf8: boolean): number {
  const s = t.tokStart[k] as number;
  const e = tokEnd(t, k);
  const released = tokReleased(t, k);
  if (!released && !utf8) return e - s;
  const rel = t.separators.release.charCodeAt(0);
  let len = 0;
  for (let i = s; i < e; i++) {
    const b = t.bytes[i] as number;
    if (released && b === rel) {
      i++;
      const r = t.bytes[i];
      if (r !== undefined && i < e && (!utf8 || (r & 0xc0) !== 0x80)) len++;
      continue;
    }
    if (!utf8 || (b & 0xc0) !== 0x80) len++;
  }
  return len;
}
