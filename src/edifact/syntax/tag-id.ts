import { MAX_ISSUE_TAG } from "../issue.types.js";
import { TAG_ID, TOKEN_INFO } from "../wasm-layout.js";
import { shownToken, type TokenTable } from "./tokenizer.js";

/**
 * Segment tags as small integers, so that the envelope walk, the structure state machine and
 * the segment lookup compare numbers instead of decoding a string per segment.
 *
 * A three-character ASCII tag is its three bytes packed behind bit 24 (`UNH` → 0x1554e48, never
 * 0): every repertoire decodes ASCII bytes to the same characters, so the bytes of the input
 * identify the tag without decoding. Any other tag a directory defines gets an interned id from
 * 2^25. A tag of the input that is neither is `NO_TAG`, which matches nothing a directory knows.
 */
export const NO_TAG = -1;

const PACKED = TAG_ID.packed;
const INTERNED_BASE = TAG_ID.internedBase;
/** Only directory tags are interned (at compile time), so input garbage cannot grow this. */
const interned = new Map<string, number>();

function packed(tag: string): number {
  if (tag.length !== 3) return NO_TAG;
  const a = tag.charCodeAt(0);
  const b = tag.charCodeAt(1);
  const c = tag.charCodeAt(2);
  if ((a | b | c) >= 0x80) return NO_TAG;
  return PACKED | (a << 16) | (b << 8) | c;
}

/** The id of a tag a directory defines (interning it when it is not packable). */
export function defineTagId(tag: string): number {
  const p = packed(tag);
  if (p !== NO_TAG) return p;
  let id = interned.get(tag);
  if (id === undefined) {
    id = INTERNED_BASE + interned.size;
    interned.set(tag, id);
  }
  return id;
}

/** The id of a tag string, or NO_TAG when no directory defines such a tag. */
export function tagIdOf(tag: string): number {
  const p = packed(tag);
  return p !== NO_TAG ? p : (interned.get(tag) ?? NO_TAG);
}

const RELEASED = TOKEN_INFO.released;
const COORD_MASK = TOKEN_INFO.coordMask;

/**
 * The tag id of input segment `seg`. Reads the bytes directly in the usual case (an unreleased
 * tag of three ASCII bytes followed by a data element); anything else goes through the decoded
 * tag text, so the result always equals `tagIdOf(tagOf(t, seg))`.
 */
export function segmentTagId(t: TokenTable, seg: number): number {
  const k = t.segToken[seg] as number;
  const next = k + 1;
  const info = t.tokInfo;
  if (
    next < t.tokenCount &&
    ((info[next] as number) & COORD_MASK) !== 0 &&
    ((info[k] as number) & RELEASED) === 0
  ) {
    const s = t.tokStart[k] as number;
    if ((t.tokStart[next] as number) - 1 - s === 3) {
      const bytes = t.bytes;
      const a = bytes[s] as number;
      const b = bytes[s + 1] as number;
      const c = bytes[s + 2] as number;
      if ((a | b | c) < 0x80) return PACKED | (a << 16) | (b << 8) | c;
    }
  }
  // Bounded: a tag longer than MAX_ISSUE_TAG is cut ("…") and matches no directory tag.
  return tagIdOf(shownToken(t, k, MAX_ISSUE_TAG));
}

/** Packed ids of the service segment tags the envelope walk switches on. */
export const TAG_UNA = 0x1554e41;
export const TAG_UNB = 0x1554e42;
export const TAG_UNE = 0x1554e45;
export const TAG_UNG = 0x1554e47;
export const TAG_UNH = TAG_ID.UNH;
export const TAG_UNT = TAG_ID.UNT;
export const TAG_UNZ = 0x1554e5a;
