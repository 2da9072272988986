import type { GroupNode, MessageDef, StructureNode } from "../directories/directory.types.js";
import type { IntTable } from "./int-table.js";

/**
 * A message structure flattened into tables for the structure state machine. Every node list
 * (the message level and each group's children) is a run of consecutive node indexes; a node
 * carries the tag id that opens it (for a group: its first segment, however deeply nested),
 * its maximum, whether it is mandatory and, for a group, the list of its children.
 */
export interface StructureTables {
  readonly message: MessageDef;
  /** Per list: index of its first node, its length, and its group (undefined: message level). */
  readonly listStart: Int32Array;
  readonly listLength: Int32Array;
  readonly listGroup: readonly (GroupNode | undefined)[];
  /** Per node. */
  readonly node: readonly StructureNode[];
  readonly trigger: Int32Array;
  /** Float64: a directory may give any number, and Int32 would wrap a huge one. */
  readonly max: Float64Array;
  readonly mandatory: Uint8Array;
  /** List of a group's children; -1 for a segment. */
  readonly childList: Int32Array;
  /** Deepest nesting + 1: the size of the walker's frame stack. */
  readonly depth: number;
  /** Tag id → dense number (0 … tags − 1) of the tags that open a node of this message. */
  readonly tagIndex: IntTable;
  readonly tags: number;
  /**
   * The forward search as a table: for list l, start position j0 (0 … length) and dense tag
   * t, `next[nextBase[l] + j0 * tags + t]` is the first position j ≥ j0 whose node the tag
   * opens, or -1.
   */
  readonly next: Int32Array;
  readonly nextBase: Int32Array;
}
