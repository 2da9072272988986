import type { ElementFormat, SegmentDef, SimpleElementDef } from "../directories/directory.types.js";
import { shown } from "../issue.types.js";
import { ErrorCode } from "../syntax/error-codes.js";
import { rangeText, shownRange, type TokenTable } from "../syntax/tokenizer.js";

/** A problem in one data element of one segment; positions are 1-based as in S011. */
export interface ElementProblem {
  readonly code: number;
  readonly element: number;
  readonly component?: number;
  readonly occurrence?: number;
  readonly offset: number;
  readonly text: string;
}

/**
 * A problem built by assignment: object spreads (`{ ...problem, ...occ }`) cost a runtime call
 * each and made wording 10,000 issues take ~200 ms (issue 20 fuzzing).
 */
function problemAt(
  code: number,
  element: number,
  component: number | undefined,
  occurrence: number | undefined,
  offset: number,
  text: string,
): ElementProblem {
  const p: { -readonly [K in keyof ElementProblem]: ElementProblem[K] } = { code, element, offset, text };
  if (component !== undefined) p.component = component;
  if (occurrence !== undefined) p.occurrence = occurrence;
  return p;
}

export interface ElementCheckContext {
  readonly tokens: TokenTable;
  readonly utf8: boolean;
  /** Decimal marks accepted in numeric values (syntax 4 accepts both comma and full stop). */
  readonly decimalMarks: readonly number[];
  /** False skips code-list checks (see ValidateOptions.codeLists). */
  readonly checkCodes?: boolean;
}

const MINUS = 0x2d;
// Token coordinates as packed by the tokenizer (kept local: this is the validation hot path).
const COMP_MASK = 0x3ff;
const REP_SHIFT = 10;
const REP_MASK = 0x7f;
const ELEM_SHIFT = 17;
const ELEM_MASK = 0x1fff;
const RELEASED = 0x40000000;

function fmt(f: ElementFormat): string {
  return f.min === f.max ? `${f.type}${f.max}` : `${f.type}..${f.max}`;
}

/** Checks one value [s, e) against its representation and code list; returns the first problem. */
function checkValue(
  ctx: ElementCheckContext,
  s: number,
  e: number,
  released: boolean,
  def: SimpleElementDef,
): { code: number; text: string } | undefined {
  const t = ctx.tokens;
  const bytes = t.bytes;
  const format = def.format;
  let length: number;
  if (format.type === "n") {
    const d0 = ctx.decimalMarks[0] ?? -1;
    const d1 = ctx.decimalMarks[1] ?? -1;
    let digits = 0;
    let marks = 0;
    for (let i = s; i < e; i++) {
      const b = bytes[i] as number;
      if (b >= 0x30 && b <= 0x39) digits++;
      else if (b === MINUS && i === s) continue;
      else if (b === d0 || b === d1) {
        marks++;
        if (digits === 0)
          return {
            code: ErrorCode.missingDigitBeforeDecimal,
            text: `"${shownRange(t, s, e, released)}" has no digit before the decimal mark`,
          };
      } else if (b === 0x2e || b === 0x2c) {
        return {
          code: ErrorCode.invalidDecimalNotation,
          text: `"${shownRange(t, s, e, released)}" uses a decimal mark the interchange did not advise`,
        };
      } else {
        return {
          code: ErrorCode.invalidTypeOfCharacter,
          text: `"${shownRange(t, s, e, released)}" is not numeric (${def.id} is ${fmt(format)})`,
        };
      }
    }
    if (marks > 1)
      return {
        code: ErrorCode.invalidTypeOfCharacter,
        text: `"${shownRange(t, s, e, released)}" has more than one decimal mark`,
      };
    // ISO 9735: sign and decimal mark do not count towards the length of a numeric element.
    length = digits;
  } else {
    if (format.type === "a") {
      for (let i = s; i < e; i++) {
        const b = bytes[i] as number;
        if (b >= 0x30 && b <= 0x39) {
          return {
            code: ErrorCode.invalidTypeOfCharacter,
            text: `"${shownRange(t, s, e, released)}" contains digits (${def.id} is ${fmt(format)})`,
          };
        }
      }
    }
    length = released || ctx.utf8 ? characterCount(t, ctx.utf8, s, e, released) : e - s;
  }
  if (length > format.max) {
    return {
      code: ErrorCode.elementTooLong,
      text: `${def.id} is ${fmt(format)} but has ${length} characters`,
    };
  }
  if (length < format.min) {
    return {
      code: ErrorCode.elementTooShort,
      text: `${def.id} is ${fmt(format)} but has ${length} characters`,
    };
  }
  if (def.codes && ctx.checkCodes !== false) {
    const value = rangeText(t, s, e, released);
    if (!def.codes.values.has(value)) {
      return {
        code: ErrorCode.invalidValue,
        text: `"${shown(value)}" is not a code of ${def.id} (${def.name})`,
      };
    }
  }
  return undefined;
}

/**
 * Characters in [s, e): a release character does not count, the character it releases does
 * (also when that is the release character itself), and neither do UTF-8 continuation bytes.
 */
export function characterCount(
  t: TokenTable,
  utf8: boolean,
  s: number,
  e: number,
  released: boolean,
): number {
  const bytes = t.bytes;
  const rel = t.separators.release.charCodeAt(0);
  let len = 0;
  for (let i = s; i < e; i++) {
    let b = bytes[i] as number;
    if (released && b === rel) {
      if (++i >= e) break;
      b = bytes[i] as number;
    }
    if (!utf8 || (b & 0xc0) !== 0x80) len++;
  }
  return len;
}

/** The tokens of one segment with their ends, decoded once. */
interface SegmentTokens {
  readonly first: number;
  readonly end: number;
  readonly segEnd: number;
}

function tokenEnd(t: TokenTable, st: SegmentTokens, j: number): number {
  return j + 1 < st.end ? (t.tokStart[j + 1] as number) - 1 : st.segEnd;
}

/**
 * Validates the data elements of segment `seg` against `def`: presence, number of
 * constituents, representation, length and code values.
 */
export function checkSegmentElements(
  ctx: ElementCheckContext,
  seg: number,
  def: SegmentDef,
  out: ElementProblem[],
): void {
  const t = ctx.tokens;
  const info = t.tokInfo;
  const st: SegmentTokens = {
    first: t.segToken[seg] as number,
    end: t.segToken[seg + 1] as number,
    segEnd: t.segEnd[seg] as number,
  };
  const first = st.first + 1;
  const end = st.end;
  const present = end > first ? ((info[end - 1] as number) >>> ELEM_SHIFT) & ELEM_MASK : 0;
  const count = Math.max(present, def.elements.length);
  let k = first;
  for (let e = 1; e <= count; e++) {
    const from = k;
    let nonEmpty = false;
    while (k < end && (((info[k] as number) >>> ELEM_SHIFT) & ELEM_MASK) === e) {
      if (tokenEnd(t, st, k) > (t.tokStart[k] as number)) nonEmpty = true;
      k++;
    }
    const ref = def.elements[e - 1];
    if (!ref) {
      if (nonEmpty) {
        out.push({
          code: ErrorCode.tooManyConstituents,
          element: e,
          offset: t.tokStart[from] as number,
          text: `${def.tag} has ${def.elements.length} data element${def.elements.length === 1 ? "" : "s"}; element ${e} is one too many`,
        });
      }
      continue;
    }
    if (!nonEmpty) {
      if (ref.status === "M") {
        out.push({
          code: ErrorCode.missing,
          element: e,
          offset: k > from ? (t.tokStart[from] as number) : st.segEnd,
          text: `Mandatory ${ref.def.id} (${ref.def.name}) is missing`,
        });
      }
      continue;
    }
    let occStart = from;
    while (occStart < k) {
      const rep = ((info[occStart] as number) >>> REP_SHIFT) & REP_MASK;
      let occEnd = occStart;
      while (occEnd < k && (((info[occEnd] as number) >>> REP_SHIFT) & REP_MASK) === rep) occEnd++;
      const occurrence = rep > 0 ? rep + 1 : undefined;
      if (rep + 1 > ref.repeat) {
        out.push({
          code: ErrorCode.tooManyConstituents,
          element: e,
          ...(occurrence !== undefined ? { occurrence } : {}), // rare: a repetition too many
          offset: t.tokStart[occStart] as number,
          text: `${ref.def.id} may occur ${ref.repeat} time(s)`,
        });
      } else checkOccurrence(ctx, st, ref.def, ref.status, e, occurrence, occStart, occEnd, out);
      occStart = occEnd;
    }
  }
}

function checkOccurrence(
  ctx: ElementCheckContext,
  st: SegmentTokens,
  def: SegmentDef["elements"][number]["def"],
  status: "M" | "C",
  e: number,
  occurrence: number | undefined,
  from: number,
  to: number,
  out: ElementProblem[],
): void {
  const t = ctx.tokens;
  const info = t.tokInfo;
  const starts = t.tokStart;
  if (def.kind === "simple") {
    for (let j = from + 1; j < to; j++) {
      if (tokenEnd(t, st, j) > (starts[j] as number)) {
        out.push(
          problemAt(
            ErrorCode.tooManyConstituents,
            e,
            ((info[j] as number) & COMP_MASK) + 1,
            occurrence,
            starts[j] as number,
            `${def.id} is a simple data element and has no components`,
          ),
        );
        break;
      }
    }
    const problem = checkValue(
      ctx,
      starts[from] as number,
      tokenEnd(t, st, from),
      ((info[from] as number) & RELEASED) !== 0,
      def,
    );
    if (problem)
      out.push(problemAt(problem.code, e, undefined, occurrence, starts[from] as number, problem.text));
    return;
  }
  let anyValue = false;
  for (let j = from; j < to; j++) if (tokenEnd(t, st, j) > (starts[j] as number)) anyValue = true;
  if (!anyValue) {
    if (status === "M") {
      out.push(
        problemAt(
          ErrorCode.missing,
          e,
          undefined,
          occurrence,
          starts[from] as number,
          `Mandatory ${def.id} (${def.name}) is missing`,
        ),
      );
    }
    return;
  }
  const components = def.components;
  const total = Math.max(components.length, to - from);
  for (let c = 0; c < total; c++) {
    // Components of one occurrence are consecutive tokens: component c is token from + c.
    const tok = from + c < to ? from + c : -1;
    const comp = components[c];
    const tokEndAt = tok >= 0 ? tokenEnd(t, st, tok) : 0;
    const hasValue = tok >= 0 && tokEndAt > (starts[tok] as number);
    if (!comp) {
      if (hasValue) {
        out.push(
          problemAt(
            ErrorCode.tooManyConstituents,
            e,
            c + 1,
            occurrence,
            starts[tok] as number,
            `${def.id} has ${components.length} components; component ${c + 1} is one too many`,
          ),
        );
        return;
      }
      continue;
    }
    if (!hasValue) {
      if (comp.status === "M") {
        out.push(
          problemAt(
            ErrorCode.missing,
            e,
            c + 1,
            occurrence,
            tok >= 0 ? (starts[tok] as number) : tokenEnd(t, st, to - 1),
            `Mandatory ${comp.element.id} (${comp.element.name}) in ${def.id} is missing`,
          ),
        );
      }
      continue;
    }
    const problem = checkValue(
      ctx,
      starts[tok] as number,
      tokEndAt,
      ((info[tok] as number) & RELEASED) !== 0,
      comp.element,
    );
    if (problem) out.push(problemAt(problem.code, e, c + 1, occurrence, starts[tok] as number, problem.text));
  }
}
