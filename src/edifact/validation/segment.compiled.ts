import type { SegmentDef } from "../directories/directory.types.js";
import type { CodeSet } from "./code-set.js";
import type { IntTable } from "./int-table.js";

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
