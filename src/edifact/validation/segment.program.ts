import type { SegmentDef, SimpleElementDef } from "../directories/directory.types.js";
import { codeSetOf, type CodeSet } from "./code-set.js";
import { buildIntTable, type IntTable } from "./int-table.js";
import {
  CODE_POSITION_SHIFT,
  KIND_CODED,
  KIND_NUMBER,
  KIND_OTHER,
  KIND_PLAIN,
  MAX_SHIFT,
  MIN_SHIFT,
  REPR_A,
  REPR_AN,
  REPR_N,
  VALUE_STRIDE,
} from "./segment.precheck.js";
import { POSITION } from "../wasm-layout.js";

/**
 * A segment definition flattened into integer arrays for the quick check. Every value
 * position of the segment (a simple data element, or one component of a composite) gets a
 * number p < 31, so that the positions a segment fills make one bit mask and the presence
 * rules become mask comparisons. Built once per definition.
 */
export interface CompiledSegment {
  readonly def: SegmentDef;
  /**
   * Indexed by element << 5 | component (element 1-based, as the tokenizer packs them), one
   * int per position, 0 when the definition has no such position, else: bits 0–4 the
   * position p; bits 5–7 its kind — PLAIN (an without code list: only the length to check),
   * CODED (an with a code list), NUMBER (n without code list) or OTHER (checked through its
   * value slot); except for OTHER, bits 8–17 the max and 18–27 the min length.
   */
  readonly positions: Int32Array;
  /** The short codes (see code-set.ts) of every coded position p, keyed p << 25 | packed code. */
  readonly codes: IntTable;
  /**
   * Per value slot, which is also the position number: [representation, min length, max
   * length, code set index or -1].
   */
  readonly values: Int32Array;
  readonly codeSets: readonly CodeSet[];
  /**
   * Positions that must be filled whenever the segment is there: mandatory simple elements,
   * and the mandatory components of mandatory composites.
   */
  readonly required: number;
  /**
   * Rules that depend on whether a composite is used at all, as pairs [positions of the
   * composite, its mandatory components]: with no mandatory component, a mandatory composite
   * needs any position filled; a conditional composite that is used needs its mandatory ones.
   */
  readonly conditional: Int32Array;
  /**
   * True when the quick check cannot represent the definition (more than 31 positions or 32
   * components, or an element that may occur fewer than once): such segments always take the
   * full check.
   */
  readonly fullCheckOnly: boolean;
}

const MAX_POSITIONS = 31;
/** Lengths a position entry can hold (10 bits each). */
const MAX_LENGTH = POSITION.lengthMax;
const MAX_COMPONENTS = POSITION.components;
const COMPONENT_BITS = POSITION.componentBits;
const compiled = new WeakMap<SegmentDef, CompiledSegment>();

export function compileSegment(def: SegmentDef): CompiledSegment {
  const cached = compiled.get(def);
  if (cached) return cached;
  const values: number[] = [];
  const codeSets: CodeSet[] = [];
  const slotOf = (el: SimpleElementDef): number => {
    let codes = -1;
    if (el.codes) {
      codes = codeSets.length;
      codeSets.push(codeSetOf(el.codes));
    }
    const repr = el.format.type === "n" ? REPR_N : el.format.type === "a" ? REPR_A : REPR_AN;
    // The fields of VALUE_SLOT (wasm-layout.ts), in order.
    values.push(repr, el.format.min, el.format.max, codes);
    return values.length / VALUE_STRIDE - 1;
  };
  const positions = new Int32Array((def.elements.length + 1) * MAX_COMPONENTS);
  const codes: [number, number][] = [];
  let p = 0;
  const place = (element: number, component: number, el: SimpleElementDef): void => {
    if (component >= MAX_COMPONENTS || p >= MAX_POSITIONS) {
      p++;
      return;
    }
    const { type, min, max } = el.format;
    const lengths = max <= MAX_LENGTH && min <= MAX_LENGTH;
    let entry: number;
    // Every position has its value slot, so that slot and position are the same number.
    slotOf(el);
    const bounds = (max << MAX_SHIFT) | (min << MIN_SHIFT);
    if (type === "an" && lengths) entry = (el.codes ? KIND_CODED : KIND_PLAIN) | bounds;
    else if (type === "n" && lengths && !el.codes) entry = KIND_NUMBER | bounds;
    else entry = KIND_OTHER;
    if (el.codes)
      for (const key of codeSetOf(el.codes).shortCodes) codes.push([(p << CODE_POSITION_SHIFT) | key, 1]);
    positions[(element << COMPONENT_BITS) | component] = entry | p;
    p++;
  };
  const conditional: number[] = [];
  let required = 0;
  let fullCheckOnly = false;
  def.elements.forEach((ref, index) => {
    const element = index + 1;
    if (ref.repeat < 1) fullCheckOnly = true;
    const mandatory = ref.status === "M";
    if (ref.def.kind === "simple") {
      if (mandatory && p < MAX_POSITIONS) required |= 1 << p;
      place(element, 0, ref.def);
      return;
    }
    let all = 0;
    let mandatoryComponents = 0;
    ref.def.components.forEach((comp, c) => {
      if (p < MAX_POSITIONS) {
        all |= 1 << p;
        if (comp.status === "M") mandatoryComponents |= 1 << p;
      }
      place(element, c, comp.element);
    });
    if (mandatory && mandatoryComponents !== 0) required |= mandatoryComponents;
    else if (mandatory || mandatoryComponents !== 0) conditional.push(all, mandatoryComponents);
  });
  if (
    p > MAX_POSITIONS ||
    def.elements.some((r) => r.def.kind === "composite" && r.def.components.length > MAX_COMPONENTS)
  )
    fullCheckOnly = true;
  const result: CompiledSegment = {
    def,
    positions,
    codes: buildIntTable(codes),
    values: Int32Array.from(values),
    codeSets,
    required,
    conditional: Int32Array.from(conditional),
    fullCheckOnly,
  };
  compiled.set(def, result);
  return result;
}
