import type { Directory, MessageDef, StructureNode } from "../directories/directory.types.js";
import { serviceSegment } from "../envelope/service-segments.js";
import { defineTagId } from "../syntax/tag-id.js";
import { compileSegment, type CompiledSegment } from "./segment.program.js";
import { compileStructure } from "./structure.program.js";

/**
 * A directory's segment definitions by tag id (see tag-id.ts), compiled for the quick check.
 * A message segment is checked against the directory's definition of its tag, or else the
 * syntax version 4 service segment of that tag (as `validateInterchange` always did).
 */
export interface DirectoryProgram {
  readonly segments: ReadonlyMap<number, CompiledSegment>;
  /** Per message structure: the compiled segment of each structure node (see nodeSegments). */
  readonly byNode: WeakMap<MessageDef, readonly (CompiledSegment | undefined)[]>;
}

const compiled = new WeakMap<Directory, DirectoryProgram>();

function collectTags(nodes: readonly StructureNode[], into: Set<string>): void {
  for (const node of nodes) {
    if (node.kind === "segment") into.add(node.tag);
    else collectTags(node.children, into);
  }
}

/** Built once per directory (directories are immutable once loaded). */
export function directoryProgram(dir: Directory): DirectoryProgram {
  let program = compiled.get(dir);
  if (program) return program;
  const segments = new Map<number, CompiledSegment>();
  for (const [tag, def] of dir.segments) segments.set(defineTagId(tag), compileSegment(def));
  // Tags the structures use without a directory definition (UNH, UNT, …): service segments.
  const used = new Set<string>();
  for (const message of dir.messages.values()) collectTags(message.structure, used);
  for (const tag of used) {
    const id = defineTagId(tag);
    if (segments.has(id)) continue;
    const def = serviceSegment(tag, 4);
    if (def) segments.set(id, compileSegment(def));
  }
  program = { segments, byNode: new WeakMap() };
  compiled.set(dir, program);
  return program;
}

/**
 * The compiled segment for each node of a message's structure program (undefined for groups
 * and tags without a definition), so the per-segment loop indexes an array by the node the
 * walker matched instead of looking the tag up.
 */
export function nodeSegments(
  program: DirectoryProgram,
  message: MessageDef,
): readonly (CompiledSegment | undefined)[] {
  let list = program.byNode.get(message);
  if (!list) {
    list = compileStructure(message).node.map((node) =>
      node.kind === "segment" ? program.segments.get(defineTagId(node.tag)) : undefined,
    );
    program.byNode.set(message, list);
  }
  return list;
}
