import type { GroupNode, MessageDef, StructureNode } from "../directories/directory.types.js";
import { defineTagId } from "../syntax/tag-id.js";
import { buildIntTable } from "./int-table.js";
import type { StructureTables } from "./structure.tables.js";
import { buildTransitions, type Transitions } from "./structure.transitions.js";

/** The tables (structure.tables.ts) and the transition table built from them. */
export interface StructureProgram extends StructureTables, Transitions {}

export type { StructureTables } from "./structure.tables.js";

/** The tag of the segment that opens a node: itself, or a group's first segment. */
export function triggerTag(node: StructureNode): string {
  let n: StructureNode = node;
  while (n.kind === "group") {
    const first: StructureNode | undefined = n.children[0];
    if (!first) return "";
    n = first;
  }
  return n.tag;
}

const compiled = new WeakMap<MessageDef, StructureProgram>();

export function compileStructure(message: MessageDef): StructureProgram {
  const cached = compiled.get(message);
  if (cached) return cached;
  const listStart: number[] = [];
  const listLength: number[] = [];
  const listGroup: (GroupNode | undefined)[] = [];
  const node: StructureNode[] = [];
  const childList: number[] = [];
  let depth = 1;
  // Lists are laid out breadth-first: a list's nodes are consecutive, its groups' lists follow.
  const pending: { nodes: readonly StructureNode[]; group: GroupNode | undefined; level: number }[] = [
    { nodes: message.structure, group: undefined, level: 1 },
  ];
  for (let l = 0; l < pending.length; l++) {
    const list = pending[l] as (typeof pending)[number];
    depth = Math.max(depth, list.level);
    listStart.push(node.length);
    listLength.push(list.nodes.length);
    listGroup.push(list.group);
    for (const n of list.nodes) {
      node.push(n);
      if (n.kind === "group") {
        childList.push(pending.length);
        pending.push({ nodes: n.children, group: n, level: list.level + 1 });
      } else childList.push(-1);
    }
  }
  const trigger = Int32Array.from(node, (n) => defineTagId(triggerTag(n)));
  const dense = new Map<number, number>();
  for (const id of trigger) if (!dense.has(id)) dense.set(id, dense.size);
  const tags = dense.size;
  const nextBase = new Int32Array(listStart.length);
  let size = 0;
  listStart.forEach((_, l) => {
    nextBase[l] = size;
    size += ((listLength[l] as number) + 1) * tags;
  });
  const next = new Int32Array(size).fill(-1);
  listStart.forEach((start, l) => {
    const length = listLength[l] as number;
    for (let j0 = length - 1; j0 >= 0; j0--) {
      const row = (nextBase[l] as number) + j0 * tags;
      next.copyWithin(row, row + tags, row + 2 * tags);
      next[row + (dense.get(trigger[start + j0] as number) as number)] = j0;
    }
  });
  const tables: StructureTables = {
    message,
    listStart: Int32Array.from(listStart),
    listLength: Int32Array.from(listLength),
    listGroup,
    node,
    trigger,
    max: Float64Array.from(node, (n) => n.max),
    mandatory: Uint8Array.from(node, (n) => (n.status === "M" ? 1 : 0)),
    childList: Int32Array.from(childList),
    depth,
    tagIndex: buildIntTable(dense),
    tags,
    next,
    nextBase,
  };
  const program: StructureProgram = { ...tables, ...buildTransitions(tables) };
  compiled.set(message, program);
  return program;
}
