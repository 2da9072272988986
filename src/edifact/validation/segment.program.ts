import type { SegmentDef, SimpleElementDef } from "../directories/directory.types.js";
import { codeSetOf, type CodeSet } from "./code-set.js";
import { buildIntTable } from "./int-table.js";
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
import type { CompiledSegment } from "./segment.compiled.js";

export type { CompiledSegment } from "./segment.compiled.js";

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
