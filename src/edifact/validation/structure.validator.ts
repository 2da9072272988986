import { CappedList } from "../issue.types.js";
import type { MessageDef, SegmentNode, StructureNode } from "../directories/directory.types.js";
import { ErrorCode } from "../syntax/error-codes.js";
import { HASH, TRANSITION } from "../wasm-layout.js";
import { tagIdOf } from "../syntax/tag-id.js";
import { compileStructure, triggerTag, type StructureProgram } from "./structure.program.js";
import * as transitions from "./structure.transitions.js";

/** A structural finding for the segment at `segment` (input index). */
export interface StructureProblem {
  readonly code: number;
  readonly segment: number;
  readonly text: string;
}

/** `acceptId` result: the segment fits nowhere (call `unexpected`). */
export const NOT_ACCEPTED = -1;
/** `acceptId` result: the segment opened a group that has no children (a hollow definition). */
export const NO_SEGMENT_NODE = -2;

const GOLDEN = HASH.multiplier;
// Module constants, not imported bindings: under tsx each read of those is a getter call.
const LEVEL_SHIFT = transitions.LEVEL_SHIFT;
const REPEAT = transitions.REPEAT;
const SLOW = transitions.SLOW;
const NODE_MASK = TRANSITION.nodeMask;
const LEVEL_MASK = TRANSITION.levelMask;

function describe(node: StructureNode): string {
  return node.kind === "segment"
    ? `segment ${node.tag}`
    : `segment group ${node.name} (starting with ${triggerTag(node)})`;
}

/**
 * Walks a message's segments through the directory's segment groups. Each frame of the stack
 * is one open group instance; a segment is matched in the innermost frame that can still
 * accept it further on, which closes the frames inside it. Matching is forward-only, as the
 * directories' branching diagrams are.
 *
 * The message structure is precompiled (`compileStructure`): the usual step is one lookup in
 * its transition table plus the occurrence counts (see structure.transitions.ts), and the
 * frames are only written out (`materialize`) for the steps that report something.
 */
export class StructureWalker {
  private readonly program: StructureProgram;
  /** Per frame: its node list, the index of the last node matched (-1: none) and its count. */
  // Plain arrays: a walker is made per message, and each typed array costs a fixed ~1 µs.
  private readonly frameList: number[];
  private readonly frameIdx: number[];
  private readonly frameCount: number[];
  private depth = 1;
  /**
   * 0 (nothing matched yet) or matched node + 1 while the transition table drives the walk;
   * frameList, frameIdx and depth are then stale. -1 when the frames are authoritative.
   */
  private state: number;
  /** What the walk found, at most MAX_REPORTED_ISSUES of it: hostile input must not grow it without end. */
  readonly problems = new CappedList<StructureProblem>();

  constructor(message: MessageDef) {
    this.program = compileStructure(message);
    const size = this.program.depth;
    this.frameList = new Array<number>(size).fill(0);
    this.frameIdx = new Array<number>(size).fill(0);
    // Doubles from the start, so the array never changes its elements kind.
    this.frameCount = new Array<number>(size).fill(0.5).fill(0);
    this.frameIdx[0] = -1;
    this.state = this.program.fast ? 0 : -1;
  }

  /**
   * For the WebAssembly walk (segment-check.ts): the table-driven state (0: nothing matched
   * yet, node + 1 after a match, -1 while the frames are authoritative, when it cannot run).
   */
  get tableState(): number {
    return this.state;
  }

  /** The occurrence count per level, which the WebAssembly walk reads and writes in place. */
  get counts(): number[] {
    return this.frameCount;
  }

  /** Continues from the table-driven state the WebAssembly walk reached (counts written). */
  resumeAt(state: number): void {
    this.state = state;
  }

  /** Matches the next segment; returns its node or undefined when it fits nowhere. */
  accept(tag: string, segment: number): SegmentNode | undefined {
    const index = this.acceptId(tagIdOf(tag), segment);
    if (index === NOT_ACCEPTED) this.unexpected(tag, segment);
    return index >= 0 ? (this.program.node[index] as SegmentNode) : undefined;
  }

  /**
   * `accept` on a tag id (see tag-id.ts): the index of the matched segment node, or
   * NOT_ACCEPTED (the caller then reports it with `unexpected`), or NO_SEGMENT_NODE.
   */
  acceptId(id: number, segment: number): number {
    const p = this.program;
    // lookupInt of int-table.ts, written out (see segment.precheck.ts on imports under tsx).
    const keys = p.tagIndex.keys;
    const mask = keys.length - 1;
    let h = Math.imul(id, GOLDEN) >>> p.tagIndex.shift;
    while (keys[h] !== id) {
      if (keys[h] === 0) return NOT_ACCEPTED;
      h = (h + 1) & mask;
    }
    const tag = p.tagIndex.values[h] as number;
    const state = this.state;
    if (state >= 0) {
      const code = p.trans[state * p.tags + tag] as number;
      if (code < 0) return NOT_ACCEPTED;
      if ((code & SLOW) === 0) {
        const target = code & NODE_MASK;
        const level = (code >>> LEVEL_SHIFT) & LEVEL_MASK;
        const counts = this.frameCount;
        if ((code & REPEAT) !== 0) {
          const count = (counts[level] as number) + 1;
          counts[level] = count;
          const node = p.chainNode[target * p.depth + level] as number;
          if (count === (p.max[node] as number) + 1) this.tooMany(node, segment);
        } else counts[level] = 1;
        const top = p.level[target] as number;
        for (let l = level + 1; l <= top; l++) counts[l] = 1;
        this.state = target + 1;
        return target;
      }
      this.materialize();
    }
    const result = this.walkFrames(tag, segment);
    if (result >= 0) this.state = p.fast ? result + 1 : -1;
    else if (result === NO_SEGMENT_NODE) this.state = -1;
    return result;
  }

  /** Writes out the frames of the table-driven state (they stay valid until the next step). */
  private materialize(): void {
    const state = this.state;
    if (state < 0) return;
    const p = this.program;
    if (state === 0) {
      this.depth = 1;
      this.frameList[0] = 0;
      this.frameIdx[0] = -1;
      return;
    }
    const node = state - 1;
    this.depth = (p.level[node] as number) + 1;
    for (let l = 0; l < this.depth; l++) {
      this.frameList[l] = p.chainList[node * p.depth + l] as number;
      this.frameIdx[l] = p.chainIdx[node * p.depth + l] as number;
    }
  }

  /** One step over the frames themselves (what the transition table was computed from). */
  private walkFrames(tag: number, segment: number): number {
    const p = this.program;
    for (let level = this.depth - 1; level >= 0; level--) {
      const list = this.frameList[level] as number;
      const idx = this.frameIdx[level] as number;
      // A group instance never re-matches its trigger: the next trigger starts a new instance.
      const from = idx > 0 ? idx : level > 0 ? 1 : 0;
      const j = p.next[(p.nextBase[list] as number) + from * p.tags + tag] as number;
      if (j < 0) continue;
      while (this.depth - 1 > level) {
        this.depth--;
        this.reportMissing(this.depth, (this.frameIdx[this.depth] as number) + 1, -1, segment, undefined);
      }
      return this.advance(level, j, segment);
    }
    return NOT_ACCEPTED;
  }

  /** Records that `tag` fits nowhere at `segment` (after acceptId returned NOT_ACCEPTED). */
  unexpected(tag: string, segment: number): void {
    this.problems.push({
      code: ErrorCode.notSupportedInPosition,
      segment,
      text: /^[A-Z0-9]{3}$/.test(tag)
        ? `Segment ${tag} is not expected here in ${this.program.message.type}`
        : `"${tag}" is not a segment tag`,
    });
  }

  /** Group names from the message level down to the group of the last matched segment. */
  path(): string[] {
    this.materialize();
    const names: string[] = [];
    for (let level = 0; level < this.depth; level++) {
      const group = this.program.listGroup[this.frameList[level] as number];
      if (group) names.push(group.name);
    }
    return names;
  }

  /** Closes every open frame; `skipTag` is a mandatory tag already reported elsewhere. */
  finish(segment: number, skipTag?: string): void {
    this.materialize();
    this.state = -1;
    while (this.depth > 0) {
      this.depth--;
      this.reportMissing(this.depth, (this.frameIdx[this.depth] as number) + 1, -1, segment, skipTag);
    }
  }

  private advance(level: number, j: number, segment: number): number {
    const p = this.program;
    let list = this.frameList[level] as number;
    let node = (p.listStart[list] as number) + j;
    if (j === this.frameIdx[level]) {
      const count = (this.frameCount[level] as number) + 1;
      this.frameCount[level] = count;
      if (count === (p.max[node] as number) + 1) this.tooMany(node, segment);
    } else {
      this.reportMissing(level, (this.frameIdx[level] as number) + 1, j, segment, undefined);
      this.frameIdx[level] = j;
      this.frameCount[level] = 1;
    }
    for (;;) {
      const child = p.childList[node] as number;
      if (child < 0) return node;
      list = child;
      const d = this.depth++;
      this.frameList[d] = list;
      this.frameIdx[d] = 0;
      this.frameCount[d] = 1;
      if (p.listLength[list] === 0) return NO_SEGMENT_NODE;
      node = p.listStart[list] as number;
    }
  }

  private tooMany(index: number, segment: number): void {
    const node = this.program.node[index] as StructureNode;
    this.problems.push({
      code: node.kind === "segment" ? ErrorCode.tooManySegmentRepetitions : ErrorCode.tooManyGroupRepetitions,
      segment,
      text: `${describe(node)} may occur at most ${node.max} time(s) here`,
    });
  }

  /** Reports the mandatory nodes [from, to) of the frame at `level` (to = -1: to its end). */
  private reportMissing(
    level: number,
    from: number,
    to: number,
    segment: number,
    skipTag: string | undefined,
  ): void {
    const p = this.program;
    const list = this.frameList[level] as number;
    const start = p.listStart[list] as number;
    const end = to < 0 ? (p.listLength[list] as number) : to;
    const group = p.listGroup[list];
    for (let k = from; k < end; k++) {
      if (p.mandatory[start + k] === 0) continue;
      const node = p.node[start + k] as StructureNode;
      if (node.kind === "segment" && node.tag === skipTag) continue;
      this.problems.push({
        code: ErrorCode.missing,
        segment,
        text: `Mandatory ${describe(node)}${group ? ` in ${group.name}` : ""} is missing`,
      });
    }
  }
}
