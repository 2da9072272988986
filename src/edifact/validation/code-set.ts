import type { CodeList } from "../directories/directory.types.js";
import { buildIntTable, type IntTable } from "./int-table.js";

/**
 * A code list prepared for checking values on the bytes of the input. Nearly every code value
 * is one to three ASCII characters (`9`, `EN`, `220`, `PCE`): those are also kept packed into
 * an integer in an IntTable, so checking one is a multiply and a probe or two instead of
 * decoding a string. Longer or non-ASCII values are checked against the list's
 * own map of strings.
 */
export interface CodeSet {
  /** Packed short codes (see packShortCode) → 1. */
  readonly short: IntTable;
  /** The same packed codes as a list. */
  readonly shortCodes: readonly number[];
  readonly values: ReadonlyMap<string, string>;
}

/**
 * Packs bytes [s, e) of at most three ASCII bytes behind a leading 1 (which keeps `A` and
 * `\0A` apart, and the key non-zero); -1 when the value is longer or holds a byte ≥ 0x80.
 */
export function packShortCode(bytes: Uint8Array, s: number, e: number): number {
  if (e - s > 3) return -1;
  let key = 1;
  for (let i = s; i < e; i++) {
    const b = bytes[i] as number;
    if (b >= 0x80) return -1;
    key = (key << 8) | b;
  }
  return key;
}

function packString(value: string): number {
  if (value.length > 3) return -1;
  let key = 1;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x80) return -1;
    key = (key << 8) | c;
  }
  return key;
}

const prepared = new WeakMap<CodeList, CodeSet>();

/** The prepared form of a code list (built once per list: directories are immutable). */
export function codeSetOf(list: CodeList): CodeSet {
  let set = prepared.get(list);
  if (set) return set;
  const short: [number, number][] = [];
  for (const value of list.values.keys()) {
    const key = packString(value);
    if (key >= 0) short.push([key, 1]);
  }
  set = { short: buildIntTable(short), shortCodes: short.map(([key]) => key), values: list.values };
  prepared.set(list, set);
  return set;
}
