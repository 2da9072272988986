import type { GroupNode, MessageDef, SegmentNode, StructureNode } from "../directories/directory.types.js";
import { ErrorCode } from "../syntax/error-codes.js";

/** A structural finding for the segment at `segment` (input index). */
export interface StructureProblem {
  readonly code: number;
  readonly segment: number;
  readonly text: string;
}

interface Frame {
  readonly nodes: readonly StructureNode[];
  readonly group?: GroupNode;
  /** Index of the last node matched in this frame (-1: none yet). */
  idx: number;
  /** Occurrences of that node so far. */
  count: number;
}

function trigger(node: StructureNode): string {
  let n: StructureNode = node;
  while (n.kind === "group") {
    const first: StructureNode | undefined = n.children[0];
    if (!first) return "";
    n = first;
  }
  return n.tag;
}

function describe(node: StructureNode): string {
  return node.kind === "segment"
    ? `segment ${node.tag}`
    : `segment group ${node.name} (starting with ${trigger(node)})`;
}

/**
 * Walks a message's segments through the directory's segment groups. Each frame of the stack
 * is one open group instance; a segment is matched in the innermost frame that can still
 * accept it further on, which closes the frames inside it. Matching is forward-only, as the
 * directories' branching diagrams are.
 */
export class StructureWalker {
  private readonly stack: Frame[];
  readonly problems: StructureProblem[] = [];

  constructor(private readonly message: MessageDef) {
    this.stack = [{ nodes: message.structure, idx: -1, count: 0 }];
  }

  /** Matches the next segment; returns its node or undefined when it fits nowhere. */
  accept(tag: string, segment: number): SegmentNode | undefined {
    for (let level = this.stack.length - 1; level >= 0; level--) {
      const frame = this.stack[level] as Frame;
      const j = this.findForward(frame, tag, level > 0);
      if (j < 0) continue;
      while (this.stack.length - 1 > level) {
        const inner = this.stack.pop() as Frame;
        this.reportMissing(inner, inner.idx + 1, inner.nodes.length, segment, undefined);
      }
      return this.advance(frame, j, segment);
    }
    this.problems.push({
      code: ErrorCode.notSupportedInPosition,
      segment,
      text: /^[A-Z0-9]{3}$/.test(tag)
        ? `Segment ${tag} is not expected here in ${this.message.type}`
        : `"${tag}" is not a segment tag`,
    });
    return undefined;
  }

  /** Group names from the message level down to the group of the last matched segment. */
  path(): string[] {
    return this.stack.flatMap((f) => (f.group ? [f.group.name] : []));
  }

  /** Closes every open frame; `skipTag` is a mandatory tag already reported elsewhere. */
  finish(segment: number, skipTag?: string): void {
    while (this.stack.length > 0) {
      const frame = this.stack.pop() as Frame;
      this.reportMissing(frame, frame.idx + 1, frame.nodes.length, segment, skipTag);
    }
  }

  private findForward(frame: Frame, tag: string, inGroup: boolean): number {
    for (let j = Math.max(frame.idx, 0); j < frame.nodes.length; j++) {
      // A group instance never re-matches its trigger: the next trigger starts a new instance.
      if (inGroup && j === 0) continue;
      if (trigger(frame.nodes[j] as StructureNode) === tag) return j;
    }
    return -1;
  }

  private advance(frame: Frame, j: number, segment: number): SegmentNode | undefined {
    let node = frame.nodes[j] as StructureNode;
    if (j === frame.idx) {
      frame.count++;
      if (frame.count === node.max + 1) {
        this.problems.push({
          code:
            node.kind === "segment" ? ErrorCode.tooManySegmentRepetitions : ErrorCode.tooManyGroupRepetitions,
          segment,
          text: `${describe(node)} may occur at most ${node.max} time(s) here`,
        });
      }
    } else {
      this.reportMissing(frame, frame.idx + 1, j, segment, undefined);
      frame.idx = j;
      frame.count = 1;
    }
    while (node.kind === "group") {
      this.stack.push({ nodes: node.children, group: node, idx: 0, count: 1 });
      const first: StructureNode | undefined = node.children[0];
      if (!first) return undefined;
      node = first;
    }
    return node;
  }

  private reportMissing(
    frame: Frame,
    from: number,
    to: number,
    segment: number,
    skipTag: string | undefined,
  ): void {
    for (let k = from; k < to; k++) {
      const node = frame.nodes[k] as StructureNode;
      if (node.status !== "M" || (node.kind === "segment" && node.tag === skipTag)) continue;
      this.problems.push({
        code: ErrorCode.missing,
        segment,
        text: `Mandatory ${describe(node)}${frame.group ? ` in ${frame.group.name}` : ""} is missing`,
      });
    }
  }
}
