import { TRANSITION } from "../wasm-layout.js";
import type { StructureTables } from "./structure.tables.js";

/**
 * The structure walk as a transition table. After a segment is accepted, the walker's frame
 * stack is exactly the chain of groups around the matched segment node, each frame at the
 * position of the next inner group (or of the segment itself). So the stack is determined by
 * that node, and the walk from it on a given tag — which frame matches, where, whether it is
 * a repetition there, whether mandatory nodes are skipped — can be computed once per (node,
 * tag). Only the occurrence counts are left to count at run time.
 */
export interface Transitions {
  /** False when the structure is too large to encode (the walker then always walks frames). */
  readonly fast: boolean;
  /** Per node: the frame level its list sits at (0: message level). */
  readonly level: Int32Array;
  /** Per node × level: the list, position and node of the node's chain at that level. */
  readonly chainList: Int32Array;
  readonly chainIdx: Int32Array;
  readonly chainNode: Int32Array;
  /**
   * `trans[state * tags + tag]` for state 0 (nothing matched yet) or node + 1: -1 when the tag
   * fits nowhere, else the matched segment node | the matching level << LEVEL_SHIFT, with
   * REPEAT when it repeats the last node of that level and SLOW when the step reports missing
   * mandatory nodes or opens an empty group (the walker then takes the frame-by-frame path).
   */
  readonly trans: Int32Array;
}

/** The encoding of `trans` (wasm-layout.ts: segment-check.wat reads it too). */
export const LEVEL_SHIFT = TRANSITION.levelShift;
export const REPEAT = TRANSITION.repeat;
export const SLOW = TRANSITION.slow;
const MAX_NODES = 1 << LEVEL_SHIFT;
const MAX_LEVELS = TRANSITION.maxLevels;

function mandatoryIn(p: StructureTables, list: number, from: number, to: number): boolean {
  const start = p.listStart[list] as number;
  for (let k = from; k < to; k++) if (p.mandatory[start + k] === 1) return true;
  return false;
}

/** One accept step from frames `fl`/`fi` of depth `d`, as encoded in `trans`. */
function step(p: StructureTables, fl: Int32Array, fi: Int32Array, d: number, tag: number): number {
  for (let level = d - 1; level >= 0; level--) {
    const list = fl[level] as number;
    const idx = fi[level] as number;
    const from = idx > 0 ? idx : level > 0 ? 1 : 0;
    const j = p.next[(p.nextBase[list] as number) + from * p.tags + tag] as number;
    if (j < 0) continue;
    let slow = false;
    for (let inner = d - 1; inner > level; inner--) {
      const l = fl[inner] as number;
      if (mandatoryIn(p, l, (fi[inner] as number) + 1, p.listLength[l] as number)) slow = true;
    }
    const repeat = j === idx;
    if (!repeat && mandatoryIn(p, list, idx + 1, j)) slow = true;
    let node = (p.listStart[list] as number) + j;
    for (let child = p.childList[node] as number; child >= 0; child = p.childList[node] as number) {
      if (p.listLength[child] === 0) return SLOW;
      node = p.listStart[child] as number;
    }
    return node | (level << LEVEL_SHIFT) | (repeat ? REPEAT : 0) | (slow ? SLOW : 0);
  }
  return -1;
}

export function buildTransitions(p: StructureTables): Transitions {
  const nodes = p.node.length;
  const levels = p.depth;
  const none: Transitions = {
    fast: false,
    level: new Int32Array(0),
    chainList: new Int32Array(0),
    chainIdx: new Int32Array(0),
    chainNode: new Int32Array(0),
    trans: new Int32Array(0),
  };
  if (nodes >= MAX_NODES || levels > MAX_LEVELS) return none;
  // Each node's list, the list's level, and the group node that owns each list.
  const nodeList = new Int32Array(nodes);
  const listLevel = new Int32Array(p.listStart.length);
  const owner = new Int32Array(p.listStart.length).fill(-1);
  p.listStart.forEach((start, l) => {
    for (let k = 0; k < (p.listLength[l] as number); k++) nodeList[start + k] = l;
  });
  for (let g = 0; g < nodes; g++) {
    const child = p.childList[g] as number;
    if (child >= 0) {
      owner[child] = g;
      listLevel[child] = (listLevel[nodeList[g] as number] as number) + 1;
    }
  }
  const level = Int32Array.from(nodeList, (l) => listLevel[l] as number);
  const chainList = new Int32Array(nodes * levels);
  const chainIdx = new Int32Array(nodes * levels);
  const chainNode = new Int32Array(nodes * levels);
  for (let g = 0; g < nodes; g++) {
    for (let n = g; n >= 0; n = owner[nodeList[n] as number] as number) {
      const at = g * levels + (level[n] as number);
      chainList[at] = nodeList[n] as number;
      chainIdx[at] = n - (p.listStart[nodeList[n] as number] as number);
      chainNode[at] = n;
    }
  }
  const trans = new Int32Array((nodes + 1) * p.tags);
  const fl = new Int32Array(levels);
  const fi = new Int32Array(levels);
  for (let state = 0; state <= nodes; state++) {
    let d = 1;
    fl[0] = 0;
    fi[0] = -1;
    if (state > 0) {
      const g = state - 1;
      d = (level[g] as number) + 1;
      for (let l = 0; l < d; l++) {
        fl[l] = chainList[g * levels + l] as number;
        fi[l] = chainIdx[g * levels + l] as number;
      }
    }
    for (let tag = 0; tag < p.tags; tag++) trans[state * p.tags + tag] = step(p, fl, fi, d, tag);
  }
  return { fast: true, level, chainList, chainIdx, chainNode, trans };
}
