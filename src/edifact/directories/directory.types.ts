/** Status of a segment, group, element or component in a UN/EDIFACT directory. */
export type Status = "M" | "C";

/** Representation such as `an..35` (min 1, max 35) or `n3` (min 3, max 3). */
export interface ElementFormat {
  readonly type: "a" | "n" | "an";
  readonly min: number;
  readonly max: number;
}

export interface CodeList {
  readonly id: string;
  /** Code value → name (the name may be empty when the build kept values only). */
  readonly values: ReadonlyMap<string, string>;
}

export interface SimpleElementDef {
  readonly kind: "simple";
  readonly id: string;
  readonly name: string;
  readonly format: ElementFormat;
  readonly codes?: CodeList;
}

export interface ComponentRef {
  readonly element: SimpleElementDef;
  readonly status: Status;
}

export interface CompositeDef {
  readonly kind: "composite";
  readonly id: string;
  readonly name: string;
  readonly components: readonly ComponentRef[];
}

export interface SegmentElementRef {
  readonly def: SimpleElementDef | CompositeDef;
  readonly status: Status;
  /** Maximum occurrences (syntax version 4 repetition); 1 in older directories. */
  readonly repeat: number;
}

export interface SegmentDef {
  readonly tag: string;
  readonly name: string;
  readonly elements: readonly SegmentElementRef[];
}

export interface SegmentNode {
  readonly kind: "segment";
  readonly tag: string;
  readonly status: Status;
  readonly max: number;
}

export interface GroupNode {
  readonly kind: "group";
  /** `SG1`, `SG2`, … as numbered in the directory. */
  readonly name: string;
  readonly status: Status;
  readonly max: number;
  readonly children: readonly StructureNode[];
}

export type StructureNode = SegmentNode | GroupNode;

export interface MessageDef {
  readonly type: string;
  readonly structure: readonly StructureNode[];
}

/** A loaded directory: what validation and the builders work with. */
export interface Directory {
  /** `D96A`, `D25A`, … */
  readonly id: string;
  /** UNH S009 0052 and 0054 of messages of this directory (`D`, `96A`). */
  readonly version: string;
  readonly release: string;
  readonly source: string;
  readonly messages: ReadonlyMap<string, MessageDef>;
  readonly segments: ReadonlyMap<string, SegmentDef>;
}

/**
 * The project's own compact, JSON-serialisable form of a directory (what the build script and
 * the importer write). Tuples keep the generated files small.
 */
export interface CompactDirectory {
  readonly format: "hanse-edifact-directory/1";
  readonly id: string;
  readonly source: string;
  /** Message type → structure; a segment is [tag, status, max], a group [name, status, max, children]. */
  readonly messages: Readonly<Record<string, readonly CompactNode[]>>;
  /** Tag → [name, [[element or composite id, status, repeat], …]]. */
  readonly segments: Readonly<
    Record<string, readonly [string, readonly (readonly [string, Status, number])[]]>
  >;
  /** Id → [name, [[element id, status], …]]. */
  readonly composites: Readonly<Record<string, readonly [string, readonly (readonly [string, Status])[]]>>;
  /** Id → [name, representation such as "an..35"]. */
  readonly elements: Readonly<Record<string, readonly [string, string]>>;
  /** Element id → code value → name ("" when only values are kept). */
  readonly codes: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export type CompactNode =
  readonly [string, Status, number] | readonly [string, Status, number, readonly CompactNode[]];
