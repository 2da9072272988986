import { MAX_ISSUE_TAG } from "../issue.types.js";
import { shownToken, tokComp, tokElem, tokenText, tokRep, type TokenTable } from "../syntax/tokenizer.js";
import type { Segment } from "./interchange.types.js";

/** The segment tag (first component of element 0). */
/**
 * The segment's tag as issues and reports show it: at most MAX_ISSUE_TAG characters (no
 * directory tag is longer than three), a longer one cut and ending with "…". readSegment and
 * toInterchange keep the whole tag.
 */
export function tagOf(t: TokenTable, seg: number): string {
  return shownToken(t, t.segToken[seg] as number, MAX_ISSUE_TAG);
}

/**
 * The value at data element `element` (1-based), component `component` (0-based) and
 * occurrence `occurrence` (0-based); "" when absent.
 */
export function valueAt(t: TokenTable, seg: number, element: number, component = 0, occurrence = 0): string {
  const end = t.segToken[seg + 1] as number;
  for (let k = t.segToken[seg] as number; k < end; k++) {
    const e = tokElem(t, k);
    if (e < element) continue;
    if (e > element) break;
    if (tokRep(t, k) === occurrence && tokComp(t, k) === component) return tokenText(t, k);
  }
  return "";
}

/** Number of data elements written in the segment (trailing empty ones included). */
export function elementCount(t: TokenTable, seg: number): number {
  const end = t.segToken[seg + 1] as number;
  return end > (t.segToken[seg] as number) ? tokElem(t, end - 1) : 0;
}

/** Materialises one input segment as plain data. */
export function readSegment(t: TokenTable, seg: number): Segment {
  const start = t.segToken[seg] as number;
  const end = t.segToken[seg + 1] as number;
  const tag = tokenText(t, start);
  const elements: string[][] = [];
  let repeats: Record<number, string[][]> | undefined;
  let current: string[] | undefined;
  let currentElem = 0;
  let currentRep = 0;
  for (let k = start + 1; k < end; k++) {
    const e = tokElem(t, k);
    const r = tokRep(t, k);
    if (e !== currentElem || r !== currentRep || current === undefined) {
      current = [];
      currentElem = e;
      currentRep = r;
      if (r === 0) {
        while (elements.length < e - 1) elements.push([""]);
        elements.push(current);
      } else {
        repeats ??= {};
        (repeats[e - 1] ??= []).push(current);
      }
    }
    current.push(tokenText(t, k));
  }
  return repeats ? { tag, elements, repeats } : { tag, elements };
}
