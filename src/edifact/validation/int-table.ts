import { HASH } from "../wasm-layout.js";

/**
 * A fixed open-addressing hash table from non-zero int32 keys to int32 values, at most a
 * quarter full: a lookup is a multiply and, almost always, one or two probes. It stands in
 * for a Map where a lookup happens per segment or per value.
 */
export interface IntTable {
  /** 0 marks an empty cell; the length is a power of two. */
  readonly keys: Int32Array;
  readonly values: Int32Array;
  /** 32 − log2(length): the hash keeps the top bits of the product. */
  readonly shift: number;
}

const GOLDEN = HASH.multiplier;

export function buildIntTable(entries: Iterable<readonly [number, number]>): IntTable {
  const list = [...entries];
  let bits = 3;
  while (1 << bits < list.length * 4) bits++;
  const keys = new Int32Array(1 << bits);
  const values = new Int32Array(1 << bits);
  const shift = 32 - bits;
  const mask = keys.length - 1;
  for (const [key, value] of list) {
    if (key === 0) throw new Error("IntTable keys must not be 0");
    let i = Math.imul(key, GOLDEN) >>> shift;
    while (keys[i] !== 0 && keys[i] !== key) i = (i + 1) & mask;
    keys[i] = key;
    values[i] = value;
  }
  return { keys, values, shift };
}

/** The value stored for `key`, or -1. */
export function lookupInt(table: IntTable, key: number): number {
  const keys = table.keys;
  const mask = keys.length - 1;
  let i = Math.imul(key, GOLDEN) >>> table.shift;
  for (;;) {
    const k = keys[i] as number;
    if (k === key) return table.values[i] as number;
    if (k === 0) return -1;
    i = (i + 1) & mask;
  }
}
