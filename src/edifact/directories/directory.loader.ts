import type {
  CodeList,
  CompactDirectory,
  CompactNode,
  CompositeDef,
  Directory,
  ElementFormat,
  MessageDef,
  SegmentDef,
  SimpleElementDef,
  StructureNode,
} from "./directory.types.js";

/** Parses a representation such as `an..35`, `n3`, `a1`; undefined when it is not one. */
export function parseFormat(repr: string): ElementFormat | undefined {
  const m = /^(an|a|n)(\.\.)?(\d+)$/.exec(repr.trim());
  if (!m) return undefined;
  const max = Number(m[3]);
  return { type: m[1] as ElementFormat["type"], min: m[2] ? 1 : max, max };
}

export function formatToString(format: ElementFormat): string {
  return format.min === format.max ? `${format.type}${format.max}` : `${format.type}..${format.max}`;
}

function toNodes(nodes: readonly CompactNode[]): StructureNode[] {
  return nodes.map((n) =>
    n.length === 4
      ? { kind: "group", name: n[0], status: n[1], max: n[2], children: toNodes(n[3]) }
      : { kind: "segment", tag: n[0], status: n[1], max: n[2] },
  );
}

/**
 * Turns the compact form into linked definitions. Unknown references (an element the release
 * did not define) become permissive `an..512` elements rather than failures: a directory
 * with a hole must still validate everything else.
 */
export function loadDirectory(compact: CompactDirectory): Directory {
  const codeLists = new Map<string, CodeList>();
  for (const [id, values] of Object.entries(compact.codes)) {
    codeLists.set(id, { id, values: new Map(Object.entries(values)) });
  }
  const elements = new Map<string, SimpleElementDef>();
  const element = (id: string): SimpleElementDef => {
    let def = elements.get(id);
    if (def) return def;
    const raw = compact.elements[id];
    const format = (raw && parseFormat(raw[1])) ?? { type: "an", min: 1, max: 512 };
    const codes = codeLists.get(id);
    def = { kind: "simple", id, name: raw?.[0] ?? id, format, ...(codes ? { codes } : {}) };
    elements.set(id, def);
    return def;
  };
  const composites = new Map<string, CompositeDef>();
  for (const [id, [name, parts]] of Object.entries(compact.composites)) {
    composites.set(id, {
      kind: "composite",
      id,
      name,
      components: parts.map(([eid, status]) => ({ element: element(eid), status })),
    });
  }
  const segments = new Map<string, SegmentDef>();
  for (const [tag, [name, refs]] of Object.entries(compact.segments)) {
    segments.set(tag, {
      tag,
      name,
      elements: refs.map(([id, status, repeat]) => ({
        def: composites.get(id) ?? element(id),
        status,
        repeat,
      })),
    });
  }
  const messages = new Map<string, MessageDef>();
  for (const [type, nodes] of Object.entries(compact.messages)) {
    messages.set(type, { type, structure: toNodes(nodes) });
  }
  const m = /^([A-Z])(\d\d[A-Z])$/.exec(compact.id);
  return {
    id: compact.id,
    version: m?.[1] ?? "D",
    release: m?.[2] ?? compact.id,
    source: compact.source,
    messages,
    segments,
  };
}
