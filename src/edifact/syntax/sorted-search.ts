/**
 * The last index in [first, last] of an ascending array whose value is at or before `offset`,
 * or -1 when there is none (the range is empty, or its first value is already past `offset`).
 */
export function lastAtOrBefore(values: Int32Array, first: number, last: number, offset: number): number {
  let lo = first;
  let hi = last;
  if (hi < lo || (values[lo] as number) > offset) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((values[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
