import { repertoireTable } from "./charset.js";
import { ErrorCode } from "./error-codes.js";
import { separatorBytes } from "./separators.js";
import { MAX_ISSUES, readHeader, type TokenizeOptions, type TokenizerIssue } from "./tokenizer.js";
import { TOKEN_INFO } from "../wasm-layout.js";

/*
 * The tokenizer's rules, one byte at a time and written the plain way: the reference that
 * `tokenize` (the WebAssembly scan of tokenizer.wat driven by simd-scan.ts, and the issues
 * tokenizer.ts words afterwards) is compared with, over random separators, syntax versions,
 * repertoires and inputs of several windows (tokenizer.reference.test.ts). Slow on purpose and
 * not used by the engine.
 *
 * Shared with `tokenize`: the header (BOM, UNA and its issues, the separators and repertoire
 * that UNB decides, `readHeader`) and the repertoires themselves (charset.ts). Everything after
 * the header is stated again here.
 */

export interface ReferenceToken {
  readonly start: number;
  readonly element: number;
  readonly component: number;
  readonly occurrence: number;
  /** The token holds a release character. */
  readonly released: boolean;
}

export interface ReferenceSegment {
  /** Where its tag starts. */
  readonly start: number;
  /** Its terminator, or the end of the input (line breaks left out) when it has none. */
  readonly end: number;
  readonly firstToken: number;
}

/** An issue without its text (the wording is the tokenizer's). */
export type ReferenceIssue = Omit<TokenizerIssue, "text">;

/** The issue's code and place. */
export function issuePlace({
  code,
  offset,
  segment,
  element,
  component,
  occurrence,
}: ReferenceIssue): ReferenceIssue {
  return { code, offset, segment, element, component, occurrence };
}

export interface ReferenceTokens {
  readonly tokens: ReferenceToken[];
  readonly segments: ReferenceSegment[];
  readonly issues: ReferenceIssue[];
  /**
   * How many findings the scan made before one per constituent was kept. From MAX_ISSUES on,
   * `tokenize` may stop listing earlier than this reference (it caps each kind of finding on
   * its own and then says there are more), so the two agree exactly only below it.
   */
  readonly findings: number;
}

const CR = 0x0d;
const LF = 0x0a;
const isLineBreak = (b: number | undefined): boolean => b === CR || b === LF;

/** The length of the well-formed UTF-8 sequence at `i` (Unicode table 3-7), 0 when there is none. */
function utf8SequenceLength(bytes: Uint8Array, i: number): number {
  const at = (k: number): number => (i + k < bytes.length ? (bytes[i + k] as number) : -1);
  const within = (b: number, low: number, high: number): boolean => b >= low && b <= high;
  const tail = (k: number): boolean => within(at(k), 0x80, 0xbf);
  const b0 = at(0);
  if (b0 <= 0x7f) return 1;
  if (within(b0, 0xc2, 0xdf)) return tail(1) ? 2 : 0;
  const second: [number, number] =
    b0 === 0xe0 ? [0xa0, 0xbf] : b0 === 0xed ? [0x80, 0x9f] : b0 === 0xf0 ? [0x90, 0xbf] : [0x80, 0xbf];
  if (b0 === 0xf4) second[1] = 0x8f;
  if (within(b0, 0xe0, 0xef)) return within(at(1), ...second) && tail(2) ? 3 : 0;
  if (within(b0, 0xf0, 0xf4)) return within(at(1), ...second) && tail(2) && tail(3) ? 4 : 0;
  return 0;
}

export function referenceTokenize(bytes: Uint8Array, options: TokenizeOptions = {}): ReferenceTokens {
  const header = readHeader(bytes, options);
  const {
    component: COMP,
    element: ELEM,
    terminator: TERM,
    release: REL,
    repetition: REP,
  } = separatorBytes(header.separators);
  const isServiceCharacter = (b: number): boolean =>
    b === COMP || b === ELEM || b === TERM || b === REL || b === REP;
  const allowed = repertoireTable(header.syntaxIdentifier ?? "");
  const n = bytes.length;

  const tokens: ReferenceToken[] = [];
  const segments: ReferenceSegment[] = [];
  const issues: ReferenceIssue[] = header.prelude.issues.map(issuePlace);
  let findings = 0;
  /** More issues than MAX_ISSUES were found (set in `report`). */
  const cap = { overflow: false };
  /** One finding per constituent (the same code and place as the last one is not listed again). */
  const report = (issue: ReferenceIssue): void => {
    const last = issues.at(-1);
    if (
      last?.code === issue.code &&
      last.segment === issue.segment &&
      last.element === issue.element &&
      last.component === issue.component &&
      last.occurrence === issue.occurrence
    )
      return;
    if (issues.length >= MAX_ISSUES) cap.overflow = true;
    else issues.push(issue);
  };

  // The token in progress.
  let start = header.prelude.body;
  let element = 0;
  let component = 0;
  let occurrence = 0;
  let released = false;
  let firstToken = 0;
  let tooMany = false;
  /** A finding in the token in progress. */
  const find = (code: number, offset: number): void => {
    findings++;
    report({ code, offset, segment: segments.length, element, component, occurrence });
  };
  /** For each byte of a token: the token's index (the UTF-8 check below names its place). */
  const tokenOf = new Int32Array(n);
  const segmentOf = new Int32Array(n);

  let i = start;
  while (i < n) {
    const b = bytes[i] as number;
    tokenOf[i] = tokens.length;
    segmentOf[i] = segments.length;
    if (b === REL) {
      // The next byte is data, whatever it is; it should be a service character.
      released = true;
      if (i + 1 === n) {
        find(ErrorCode.invalidServiceCharacter, i);
        i++;
        continue;
      }
      const next = bytes[i + 1] as number;
      if (!isServiceCharacter(next)) {
        find(ErrorCode.invalidServiceCharacter, i);
        if (allowed[next] !== 1) find(ErrorCode.invalidCharacter, i + 1);
      }
      tokenOf[i + 1] = tokens.length;
      segmentOf[i + 1] = segments.length;
      i += 2;
      continue;
    }
    if (!isServiceCharacter(b)) {
      if (allowed[b] !== 1) find(ErrorCode.invalidCharacter, i);
      i++;
      continue;
    }
    // A separator or the terminator ends the token.
    tokens.push({ start, element, component, occurrence, released });
    released = false;
    if (b === TERM) {
      segments.push({ start: (tokens[firstToken] as ReferenceToken).start, end: i, firstToken });
      [element, component, occurrence, tooMany] = [0, 0, 0, false];
      // Line breaks after a terminator are layout.
      i++;
      while (isLineBreak(bytes[i])) i++;
      start = i;
      firstToken = tokens.length;
      continue;
    }
    // The next token's place; a field at its limit stays there, and the segment gets one 16.
    let full: boolean;
    if (b === COMP) {
      full = component === TOKEN_INFO.compMax;
      if (!full) component++;
    } else if (b === ELEM) {
      full = element === TOKEN_INFO.elemMax;
      if (!full) [element, component, occurrence] = [element + 1, 0, 0];
    } else {
      full = occurrence === TOKEN_INFO.repMax;
      if (!full) [component, occurrence] = [0, occurrence + 1];
    }
    if (full && !tooMany) {
      tooMany = true;
      find(ErrorCode.tooManyConstituents, i);
    }
    i++;
    start = i;
  }

  if (start < n || element + component + occurrence > 0 || released) {
    tokens.push({ start, element, component, occurrence, released });
    let end = n;
    while (end > start && isLineBreak(bytes[end - 1])) end--;
    segments.push({ start: (tokens[firstToken] as ReferenceToken).start, end, firstToken });
    report({
      code: ErrorCode.invalidServiceCharacter,
      offset: n,
      segment: segments.length - 1,
      element: 0,
      component: 0,
      occurrence: 0,
    });
  }

  const utf8 = header.syntaxIdentifier === "UNOW" || header.syntaxIdentifier === "UNOY";
  if (utf8 && !cap.overflow) {
    // After the scan, in input order: each byte where no well-formed sequence starts.
    for (let j = header.prelude.body; j < n;) {
      const length = utf8SequenceLength(bytes, j);
      if (length > 0) {
        j += length;
        continue;
      }
      const { element, component, occurrence } = tokens[tokenOf[j] as number] as ReferenceToken;
      const segment = segmentOf[j] as number;
      report({ code: ErrorCode.invalidCharacter, offset: j, segment, element, component, occurrence });
      j++;
    }
  }
  if (cap.overflow) {
    issues.push({
      code: ErrorCode.unspecified,
      offset: n,
      segment: segments.length,
      element: 0,
      component: 0,
      occurrence: 0,
    });
  }
  return { tokens, segments, issues, findings };
}
