import { decoderFor, findInvalidUtf8, repertoireTable, type Decoder } from "./charset.js";
import { cutText, MAX_SHOWN_VALUE } from "../issue.types.js";
import { BYTE_CLASS, TOKEN_INFO } from "../wasm-layout.js";
import { ErrorCode } from "./error-codes.js";
import {
  defaultSeparators,
  isUnaAt,
  optionalServiceByte,
  separatorBytes,
  UNA_LENGTH,
  unaSeparators,
  type Separators,
} from "./separators.js";
import { LIST_CAP, simdScan, uninitialised, type ScanResult } from "./simd-scan.js";
import { lastAtOrBefore } from "./sorted-search.js";

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
  /** The UNA's service characters are unusable (issue 20 code 20): nothing after it was read. */
  readonly unaUnusable: boolean;
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

/** The packing of tokInfo (wasm-layout.ts, shared with the WebAssembly scan). */
const COMP_MAX = TOKEN_INFO.compMax;
const REP_SHIFT = TOKEN_INFO.repShift;
const REP_MAX = TOKEN_INFO.repMax;
const ELEM_SHIFT = TOKEN_INFO.elemShift;
const ELEM_MAX = TOKEN_INFO.elemMax;
const COORD_MASK = TOKEN_INFO.coordMask;
/** Bit 30, so that packed values stay positive int32 in the hot loop. */
const RELEASED = TOKEN_INFO.released;

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
  return lastTokenEnd(t, t.tokStart[k] as number, t.bytes.length);
}

/**
 * End of a segment's last token starting at `start`: its terminator (release-aware; the token
 * holds no other separator), the end of input, or `limit`, whichever comes first.
 */
function lastTokenEnd(t: TokenTable, start: number, limit: number): number {
  const bytes = t.bytes;
  const n = Math.min(limit, bytes.length);
  const rel = optionalServiceByte(t.separators.release);
  const term = t.separators.terminator.charCodeAt(0);
  let i = start;
  while (i < n) {
    const b = bytes[i] as number;
    if (b === rel) i += 2;
    else if (b === term) return i;
    else i++;
  }
  if (n < bytes.length) return n;
  let end = Math.min(i, n);
  while (end > start && (bytes[end - 1] === CR || bytes[end - 1] === LF)) end--;
  return end;
}

/**
 * The token's text for an issue: at most `max` characters (a longer one is cut and ends with
 * "…"), reading O(max) bytes however long the token is (issue 20: a 4 MB tag was decoded, and
 * copied, once per issue).
 */
export function shownToken(t: TokenTable, k: number, max = MAX_SHOWN_VALUE): string {
  const s = t.tokStart[k] as number;
  const next = k + 1;
  const e =
    next < t.tokenCount && ((t.tokInfo[next] as number) & COORD_MASK) !== 0
      ? (t.tokStart[next] as number) - 1
      : lastTokenEnd(t, s, s + shownBytes(max));
  return shownRange(t, s, e, tokReleased(t, k), max);
}

/** Bytes that hold `max` characters whatever they are: 4 bytes of UTF-8 or a released byte pair. */
const shownBytes = (max: number): number => 4 * max + 2;

/** Text of raw bytes [s, e) for an issue: at most `max` characters, decoding O(max) bytes. */
export function shownRange(
  t: TokenTable,
  s: number,
  e: number,
  released: boolean,
  max = MAX_SHOWN_VALUE,
): string {
  const limit = Math.min(e, s + shownBytes(max));
  const text = rangeText(t, s, limit, released);
  return limit < e && text.length <= max ? `${text}…` : cutText(text, max);
}

/** Byte classes; the separators that end a token come first, the rare classes last. */
const CL_DATA = BYTE_CLASS.data;
const CL_COMP = BYTE_CLASS.component;
const CL_ELEM = BYTE_CLASS.element;
const CL_TERM = BYTE_CLASS.terminator;
const CL_REP = BYTE_CLASS.repetition;
const CL_REL = BYTE_CLASS.release;
const CL_BAD = BYTE_CLASS.bad;

const CR = 0x0d;
const LF = 0x0a;
/** Enough to describe any real defect; garbage input must not grow the issue list unbounded. */
export const MAX_ISSUES = 1000;

const isAlnum = (c: string): boolean => /^[A-Za-z0-9]$/.test(c);

function skipLineBreaks(bytes: Uint8Array, i: number): number {
  while (i < bytes.length && (bytes[i] === CR || bytes[i] === LF)) i++;
  return i;
}

export interface Prelude {
  bom: boolean;
  una: boolean;
  body: number;
  raw: Separators;
  issues: TokenizerIssue[];
  /** The UNA cannot be used to read the rest (reported as 20); nothing after it is read. */
  unusable?: boolean;
}

const shownChar = (c: string): string => {
  const b = c.charCodeAt(0);
  return b >= 0x21 && b < 0x7f ? `"${c}"` : `byte 0x${b.toString(16).padStart(2, "0")}`;
};

/** What makes a UNA's service characters unusable, or undefined when they are fine. */
function unaProblem(named: readonly [string, string][]): string | undefined {
  for (let a = 0; a < named.length; a++) {
    const [nameA, charA] = named[a] as [string, string];
    for (let b = a + 1; b < named.length; b++) {
      const [nameB, charB] = named[b] as [string, string];
      if (charA === charB)
        return `UNA advises the same character (${shownChar(charA)}) as ${nameA} and ${nameB}`;
    }
  }
  for (const [name, c] of named) {
    if (isAlnum(c) || c === " ") return `UNA advises ${c === " " ? "a space" : shownChar(c)} as ${name}`;
  }
  return undefined;
}

function readPrelude(bytes: Uint8Array): Prelude {
  const issues: TokenizerIssue[] = [];
  let i = 0;
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (bom) i = 3;
  i = skipLineBreaks(bytes, i);
  if (!isUnaAt(bytes, i)) return { bom, una: false, body: i, raw: defaultSeparators(3), issues };
  if (i + UNA_LENGTH > bytes.length) {
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
  const raw = unaSeparators(bytes, i);
  // Issue 20 defect 2: service characters that are not all distinct make the input ambiguous
  // (a release character equal to the terminator made every segment end scan to the end of the
  // input: quadratic). Such a UNA, or one advising a letter, digit or space, is reported at once
  // and nothing after it is read.
  const named: [string, string][] = [
    ["component separator", raw.component],
    ["data element separator", raw.element],
    ["segment terminator", raw.terminator],
  ];
  if (raw.release !== " ") named.push(["release character", raw.release]);
  if (raw.repetition !== " ") named.push(["repetition separator", raw.repetition]);
  const problem = unaProblem(named);
  if (problem !== undefined) {
    issues.push({
      code: ErrorCode.invalidServiceCharacterInUna,
      offset: i + 3,
      segment: -1,
      element: 0,
      component: 0,
      occurrence: 0,
      text: `${problem}; the interchange cannot be read`,
    });
    return { bom, una: true, body: bytes.length, raw: defaultSeparators(3), issues, unusable: true };
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
  return { bom, una: true, body: skipLineBreaks(bytes, i + UNA_LENGTH), raw, issues };
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
  /** Collects candidates of one kind: one finding per constituent is decided when they merge. */
  readonly raw?: boolean;
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
    state.raw !== true &&
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
 * field, the smallest, holds 127), so the scan counts without checking.
 */
const MAX_UNCHECKED_TOKENS = REP_MAX + 1;

/** RELEASED when bytes [s, e) hold a release character, else 0. */
function releasedIn(bytes: Uint8Array, cls: Uint8Array, s: number, e: number): number {
  for (let i = s; i < e; i++) if (cls[bytes[i] as number] === CL_REL) return RELEASED;
  return 0;
}

/**
 * Walks the tokens [first, last) of segment `seg` again, counting coordinates with the field
 * limits the scan leaves out: a value beyond a limit stays at it, and the segment gets one
 * "too many constituents" issue. The token starts are the scan's; only tokInfo is rewritten.
 * `lastEnd` is where the segment's last token ends.
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
  lastEnd: number,
): void {
  let coord = 0;
  let reported = false;
  // Once a field is full, the scan's unchecked counts carry into the next field, and from the
  // element field into the release flag (8,192 elements set bit 30): from then on a token's
  // flag is read from its bytes.
  let carried = false;
  for (let k = first; k < last; k++) {
    const released = carried
      ? releasedIn(
          bytes,
          cls,
          tokStart[k] as number,
          k + 1 < last ? (tokStart[k + 1] as number) - 1 : lastEnd,
        )
      : (tokInfo[k] as number) & RELEASED;
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
    if (full) carried = true;
    if (full && !reported) {
      reported = true;
      reportAt(state, ErrorCode.tooManyConstituents, at, seg, coord, "Too many constituents");
    }
  }
}

interface ScannedTable {
  readonly bytes: Uint8Array;
  readonly cls: Uint8Array;
  readonly tokStart: Int32Array;
  readonly tokInfo: Uint32Array;
  readonly segStart: Int32Array;
  readonly segToken: Int32Array;
  readonly segEnd: Int32Array;
  readonly segCount: number;
  /** The last segment has no terminator: its last token ends at the end of the input. */
  readonly unterminated: boolean;
  readonly state: ReportState;
}

/** The packed coordinates of the token holding byte `offset` (0 when none does). */
function coordAt(t: ScannedTable, seg: number, offset: number): number {
  const tok = tokenAt(t.tokStart, t.segToken[seg] as number, (t.segToken[seg + 1] as number) - 1, offset);
  return tok < 0 ? 0 : (t.tokInfo[tok] as number) & COORD_MASK;
}

/**
 * Words what the scan only recorded, in input order: coordinates of long segments checked
 * for overflow (code 16), release characters that release nothing, bytes the repertoire does
 * not allow. Each kind is listed in order and capped on its own; merged and sorted, they pass
 * through `report` (one finding per constituent, at most MAX_ISSUES). Where a kind was cut off,
 * nothing after its last listed issue is reported, so the list is always a prefix of the whole.
 */
function reportScanIssues(t: ScannedTable, scan: ScanResult): void {
  const { bytes, cls } = t;
  const streams: ReportState[] = [];
  const stream = (): ReportState => {
    const s: ReportState = { issues: [], overflow: false, syntaxId: t.state.syntaxId, raw: true };
    streams.push(s);
    return s;
  };
  let long: ReportState | undefined;
  for (let seg = 0; seg < t.segCount; seg++) {
    const first = t.segToken[seg] as number;
    const last = t.segToken[seg + 1] as number;
    if (last - first < MAX_UNCHECKED_TOKENS) continue;
    const lastEnd = t.unterminated && seg + 1 === t.segCount ? bytes.length : (t.segEnd[seg] as number);
    recheckSegment((long ??= stream()), bytes, cls, t.tokStart, t.tokInfo, first, last, seg, lastEnd);
  }
  if (scan.releaseIssues.length > 0) {
    const releases = stream();
    for (const i of scan.releaseIssues) {
      const seg = segmentAt(t.segStart, t.segCount, i);
      releaseIssue(releases, bytes, cls, i, seg, coordAt(t, seg, i));
    }
  }
  if (scan.badBytes.length > 0) {
    const bad = stream();
    for (const j of scan.badBytes) {
      const seg = segmentAt(t.segStart, t.segCount, j);
      badByteIssue(bad, bytes[j] as number, j, seg, coordAt(t, seg, j));
    }
  }
  if (streams.length === 0) return;
  let cutoff = Number.POSITIVE_INFINITY;
  if (scan.listOverflow) {
    // A list that reached its cap: nothing after its last entry is known to be complete.
    const ends = [scan.releaseIssues, scan.badBytes].filter((l) => l.length === LIST_CAP);
    for (const list of ends) cutoff = Math.min(cutoff, list.at(-1) ?? 0);
  }
  for (const s of streams) if (s.overflow) cutoff = Math.min(cutoff, s.issues.at(-1)?.offset ?? 0);
  const all = streams
    .flatMap((s) => s.issues)
    .filter((i) => i.offset <= cutoff)
    .sort((a, b) => a.offset - b.offset);
  for (const i of all)
    report(t.state, i.code, i.offset, i.segment, i.element, i.component, i.occurrence, i.text);
  if (cutoff !== Number.POSITIVE_INFINITY) t.state.overflow = true;
}

export interface TokenizeOptions {
  /** Forces the repertoire, e.g. when the caller already knows the interchange's UNB. */
  readonly syntaxIdentifier?: string;
}

/**
 * What is decided before the scan: BOM, UNA (and its issues), where segments start, and the
 * separators and repertoire, which depend on UNB 0001/0002 read ahead.
 */
export interface TokenizerHeader {
  readonly prelude: Prelude;
  readonly separators: Separators;
  readonly syntaxIdentifier: string | undefined;
  readonly syntaxVersion: number | undefined;
}

/** The header of `bytes` (shared with the byte-by-byte reference, tokenizer.reference.ts). */
export function readHeader(bytes: Uint8Array, options: TokenizeOptions = {}): TokenizerHeader {
  const prelude = readPrelude(bytes);
  const peeked = peekSyntax(bytes, prelude.body, prelude.raw);
  const version = peeked.version;
  // UNA position 5 is reserved (a space) before syntax version 4; only version 4 repeats.
  let separators: Separators;
  if (prelude.una) {
    separators = version !== undefined && version < 4 ? { ...prelude.raw, repetition: " " } : prelude.raw;
  } else separators = defaultSeparators(version ?? 3);
  return {
    prelude,
    separators,
    syntaxIdentifier: options.syntaxIdentifier ?? peeked.id,
    syntaxVersion: version,
  };
}

/**
 * Splits an interchange into segments, elements, repetitions and components in one linear
 * pass. It never throws: whatever the bytes, the result is a table plus issues.
 */
export function tokenize(bytes: Uint8Array, options: TokenizeOptions = {}): TokenTable {
  const {
    prelude,
    separators,
    syntaxIdentifier: syntaxId,
    syntaxVersion: version,
  } = readHeader(bytes, options);
  const issues = prelude.issues;
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
  const scan = simdScan(bytes, prelude.body, cls, separatorBytes(separators), tokenCapacity);
  // The scan leaves room for one more token and segment (an unterminated last one).
  const { tokStart, tokInfo, segEnd, segToken } = scan;
  let tc = scan.tokenCount;
  let sc = scan.segmentCount;
  const start = scan.start;
  const coord = scan.coord;

  const unterminated = start < n || coord !== 0;
  if (unterminated) {
    // Line breaks after an unterminated last segment are layout, not data.
    let end = n;
    while (end > start && (bytes[end - 1] === CR || bytes[end - 1] === LF)) end--;
    tokStart[tc] = start;
    tokInfo[tc] = coord;
    tc++;
    segEnd[sc] = end;
    sc++;
    segToken[sc] = tc;
  }
  // A segment starts where its tag (its first token) starts.
  const room = scan.segStartRoom;
  const segStart = room.length >= sc ? room.subarray(0, sc) : uninitialised(sc);
  for (let s = 0; s < sc; s++) segStart[s] = tokStart[segToken[s] as number] as number;
  const table = {
    bytes,
    cls,
    tokStart,
    tokInfo,
    segStart,
    segToken,
    segEnd,
    segCount: sc,
    unterminated,
    state,
  };
  reportScanIssues(table, scan);
  if (unterminated) {
    report(
      state,
      ErrorCode.invalidServiceCharacter,
      n,
      sc - 1,
      0,
      0,
      0,
      "The last segment has no segment terminator",
    );
  }

  if ((syntaxId === "UNOW" || syntaxId === "UNOY") && !state.overflow) {
    let from = prelude.body;
    while (from < n) {
      const bad = findInvalidUtf8(bytes, from, n);
      if (bad < 0) break;
      const seg = segmentAt(segStart, sc, bad);
      // The token holding the byte gives the element and component, as for any invalid character.
      reportAt(
        state,
        ErrorCode.invalidCharacter,
        bad,
        seg,
        coordAt(table, seg, bad),
        "Malformed UTF-8 sequence",
      );
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
    unaUnusable: prelude.unusable === true,
    bodyOffset: prelude.body,
    bom: prelude.bom,
    syntaxIdentifier: syntaxId,
    syntaxVersion: version,
    decode: decoderFor(syntaxId ?? ""),
    segmentCount,
    segStart,
    segEnd: segEnd.subarray(0, sc),
    segToken: segToken.subarray(0, sc + 1),
    tokenCount,
    tokStart: tokStart.subarray(0, tc),
    tokInfo: tokInfo.subarray(0, tc),
    issues,
  };
}

/** The last token of [first, last] starting at or before `offset`, or -1 when there is none. */
const tokenAt = lastAtOrBefore;

/** Index of the segment containing a byte offset (binary search over segment starts). */
export function segmentAt(segStart: Int32Array, count: number, offset: number): number {
  return Math.max(0, lastAtOrBefore(segStart, 0, count - 1, offset));
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
