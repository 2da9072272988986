import { rangeText, type TokenTable } from "../syntax/tokenizer.js";
import { optionalServiceByte } from "../syntax/separators.js";
import { HASH, POSITION, REPRESENTATION, TOKEN_INFO, VALUE_SLOT } from "../wasm-layout.js";
import { packShortCode } from "./code-set.js";
import type { ElementCheckContext } from "./element.validator.js";
import type { CompiledSegment } from "./segment.compiled.js";

/*
 * The quick check in front of `checkSegmentElements`: it decides "this segment has no element
 * problem" on the token table and the bytes, allocating nothing. It is exact where it answers
 * true (each rule below mirrors the full check) and answers false on anything unusual —
 * repetitions, released numeric values, a failed rule — after which the caller runs the full
 * check, which finds and words the problems. So the issues are those of the full check alone.
 *
 * The layout of a CompiledSegment is defined here, where the hot loop reads it, rather than
 * imported: under tsx every read of an imported binding is a getter call, which showed up as
 * a fifth of the validation time. For the same reason imported functions are bound to module
 * constants, and the code table probe is written out here.
 */

/** Representation classes of a simple data element. */
export const REPR_AN = REPRESENTATION.an;
export const REPR_A = REPRESENTATION.a;
export const REPR_N = REPRESENTATION.n;

/** Ints per value slot of `CompiledSegment.values`. */
export const VALUE_STRIDE = VALUE_SLOT.ints;

/** Encoding of `CompiledSegment.positions` and `.codes` (see there; wasm-layout.ts). */
export const KIND_PLAIN = POSITION.kindPlain;
export const KIND_CODED = POSITION.kindCoded;
export const KIND_NUMBER = POSITION.kindNumber;
export const KIND_OTHER = POSITION.kindOther;
const KIND_MASK = POSITION.kindMask;
export const MAX_SHIFT = POSITION.maxShift;
export const MIN_SHIFT = POSITION.minShift;
export const CODE_POSITION_SHIFT = POSITION.codeShift;

const packCode = packShortCode;
const textOf = rangeText;

export interface QuickContext {
  readonly tokens: TokenTable;
  readonly info: Uint32Array;
  readonly starts: Int32Array;
  readonly segToken: Int32Array;
  readonly segEnd: Int32Array;
  readonly bytes: Uint8Array;
  readonly utf8: boolean;
  /** The release character, -1 when there is none. */
  readonly release: number;
  readonly decimal0: number;
  readonly decimal1: number;
  readonly checkCodes: boolean;
}

export function quickContext(ctx: ElementCheckContext): QuickContext {
  const t = ctx.tokens;
  return {
    tokens: t,
    info: t.tokInfo,
    starts: t.tokStart,
    segToken: t.segToken,
    segEnd: t.segEnd,
    bytes: t.bytes,
    utf8: ctx.utf8,
    release: optionalServiceByte(t.separators.release),
    decimal0: ctx.decimalMarks[0] ?? -1,
    decimal1: ctx.decimalMarks[1] ?? -1,
    checkCodes: ctx.checkCodes !== false,
  };
}

const MINUS = 0x2d;
/** Components from 32 and any repetition: the quick check leaves those to the full check. */
const UNUSUAL_COORD = POSITION.unusualCoord;
const COORD_SHIFT = POSITION.coordShift;
const ELEMENT_MASK = POSITION.elementMask;
const COMPONENT_MASK = POSITION.componentMask;
const NUMBER_MASK = POSITION.numberMask;
const LENGTH_MAX = POSITION.lengthMax;
const RELEASED = TOKEN_INFO.released;
const GOLDEN = HASH.multiplier;
/** Int indexes of a value slot's fields. */
const SLOT_MIN = VALUE_SLOT.min >> 2;
const SLOT_MAX = VALUE_SLOT.max >> 2;
const SLOT_CODE_SET = VALUE_SLOT.codeSet >> 2;

/** Characters in [s, e), as `characterCount` of the full check counts them. */
function characters(q: QuickContext, s: number, e: number, released: boolean): number {
  const bytes = q.bytes;
  const rel = released ? q.release : -1;
  const utf8 = q.utf8;
  let len = 0;
  for (let i = s; i < e; i++) {
    let b = bytes[i] as number;
    if (b === rel) {
      if (++i >= e) break;
      b = bytes[i] as number;
    }
    if (!utf8 || (b & 0xc0) !== 0x80) len++;
  }
  return len;
}

/**
 * The digits of a numeric value in [s, e) (an optional leading minus, at most one decimal mark
 * after a digit), or -1 when it is not such a number.
 */
function numberDigits(bytes: Uint8Array, s: number, e: number, decimal0: number, decimal1: number): number {
  let digits = 0;
  let marks = 0;
  for (let i = s; i < e; i++) {
    const b = bytes[i] as number;
    if (b >= 0x30 && b <= 0x39) digits++;
    else if (b === MINUS && i === s) continue;
    else if ((b === decimal0 || b === decimal1) && digits > 0) marks++;
    else return -1;
  }
  return marks > 1 ? -1 : digits;
}

/** Mirrors `checkValue` of the full check for a value that is not plain: true when valid. */
function valueIsValid(
  q: QuickContext,
  seg: CompiledSegment,
  position: number,
  s: number,
  e: number,
  released: boolean,
): boolean {
  const v = seg.values;
  const base = (position & NUMBER_MASK) * VALUE_STRIDE;
  const repr = v[base] as number;
  const bytes = q.bytes;
  let length: number;
  if (repr === REPR_N) {
    // A release character is never part of a number: the full check reports it.
    if (released) return false;
    length = numberDigits(bytes, s, e, q.decimal0, q.decimal1);
    if (length < 0) return false;
  } else {
    if (repr === REPR_A) {
      for (let i = s; i < e; i++) {
        const b = bytes[i] as number;
        if (b >= 0x30 && b <= 0x39) return false;
      }
    }
    length = released || q.utf8 ? characters(q, s, e, released) : e - s;
  }
  if (length > (v[base + SLOT_MAX] as number) || length < (v[base + SLOT_MIN] as number)) return false;
  const codes = v[base + SLOT_CODE_SET] as number;
  if (codes < 0 || !q.checkCodes) return true;
  const key = released ? -1 : packCode(bytes, s, e);
  return key < 0
    ? codeByText(q, seg, position, s, e, released)
    : hasCode(seg, ((position & NUMBER_MASK) << CODE_POSITION_SHIFT) | key);
}

/** A code value that is not short ASCII: looked up by its decoded text. */
function codeByText(
  q: QuickContext,
  seg: CompiledSegment,
  position: number,
  s: number,
  e: number,
  released: boolean,
): boolean {
  const set = seg.codeSets[seg.values[(position & NUMBER_MASK) * VALUE_STRIDE + SLOT_CODE_SET] as number];
  return set !== undefined && set.values.has(textOf(q.tokens, s, e, released));
}

/** lookupInt of int-table.ts on the segment's code table, written out (see above). */
function hasCode(seg: CompiledSegment, key: number): boolean {
  const keys = seg.codes.keys;
  const mask = keys.length - 1;
  let i = Math.imul(key, GOLDEN) >>> seg.codes.shift;
  for (;;) {
    const k = keys[i] as number;
    if (k === key) return true;
    if (k === 0) return false;
    i = (i + 1) & mask;
  }
}

/** True when the full check of segment `seg` against `compiled` would report nothing. */
export function segmentLooksValid(q: QuickContext, compiled: CompiledSegment, seg: number): boolean {
  if (compiled.fullCheckOnly) return false;
  const info = q.info;
  const starts = q.starts;
  const end = q.segToken[seg + 1] as number;
  const last = end - 1;
  const segEnd = q.segEnd[seg] as number;
  const positions = compiled.positions;
  const size = positions.length;
  const plainLength = !q.utf8;
  const bytes = q.bytes;
  const decimal0 = q.decimal0;
  const decimal1 = q.decimal1;
  const checkCodes = q.checkCodes;
  let present = 0;
  const first = (q.segToken[seg] as number) + 1;
  let next = first < end ? (starts[first] as number) : 0;
  for (let k = first; k < end; k++) {
    const inf = info[k] as number;
    const s = next;
    // A token ends one byte before the next token starts, or at the segment terminator.
    next = k < last ? (starts[k + 1] as number) : segEnd + 1;
    const e = next - 1;
    // Repetitions are left to the full check (it judges each occurrence), and so are
    // components beyond the 32 a table row holds.
    if ((inf & UNUSUAL_COORD) !== 0) return false;
    if (e <= s) continue;
    // element << 5 | component; a value in the tag element, beyond the defined elements or
    // beyond an element's components finds 0 (or falls outside the table).
    const index = ((inf >>> COORD_SHIFT) & ELEMENT_MASK) | (inf & COMPONENT_MASK);
    if (index >= size) return false;
    const position = positions[index] as number;
    if (position === 0) return false;
    present |= 1 << (position & NUMBER_MASK);
    const kind = position & KIND_MASK;
    if (kind === KIND_OTHER) {
      if (!valueIsValid(q, compiled, position, s, e, (inf & RELEASED) !== 0)) return false;
      continue;
    }
    const released = (inf & RELEASED) !== 0;
    let length: number;
    if (kind === KIND_NUMBER) {
      // As valueIsValid: a release character is never part of a number.
      if (released) return false;
      length = numberDigits(bytes, s, e, decimal0, decimal1);
      if (length < 0) return false;
    } else length = plainLength && !released ? e - s : characters(q, s, e, released);
    if (length > ((position >>> MAX_SHIFT) & LENGTH_MAX) || length < ((position >>> MIN_SHIFT) & LENGTH_MAX))
      return false;
    if (kind !== KIND_CODED || !checkCodes) continue;
    if (released || e - s > 3) {
      if (!codeByText(q, compiled, position, s, e, released)) return false;
      continue;
    }
    let key = 1;
    let ascii = 0;
    for (let i = s; i < e; i++) {
      const b = bytes[i] as number;
      ascii |= b;
      key = (key << 8) | b;
    }
    if (ascii >= 0x80) {
      if (!codeByText(q, compiled, position, s, e, released)) return false;
    } else if (!hasCode(compiled, ((position & NUMBER_MASK) << CODE_POSITION_SHIFT) | key)) return false;
  }
  const required = compiled.required;
  if ((present & required) !== required) return false;
  const conditional = compiled.conditional;
  for (let i = 0; i < conditional.length; i += 2) {
    const used = present & (conditional[i] as number);
    const mandatory = conditional[i + 1] as number;
    if (mandatory === 0 ? used === 0 : used !== 0 && (present & mandatory) !== mandatory) return false;
  }
  return true;
}
