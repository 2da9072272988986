import type { CompactDirectory, CompactNode, Status } from "./directory.types.js";
import { readZipDeep } from "./zip.reader.js";

/** The messages the exchange uses; an import keeps only what they need. */
export const DEFAULT_MESSAGES = ["ORDERS", "ORDRSP", "APERAK"] as const;

export interface ImportOptions {
  /** Message types to keep (default ORDERS, ORDRSP, APERAK). */
  readonly messages?: readonly string[];
  /** Keep code names (default true); values alone are enough to validate. */
  readonly codeNames?: boolean;
}

type ElementSpec = readonly [string, string];
type CompositeSpec = readonly [string, readonly (readonly [string, Status])[]];
type SegmentSpec = readonly [string, readonly (readonly [string, Status, number])[]];

const CP850_BOX: Readonly<Record<number, string>> = {
  0xc4: "-",
  0xb3: "|",
  0xbf: "+",
  0xd9: "+",
  0xc1: "+",
  0xda: "+",
  0xc0: "+",
  0xc2: "+",
  0xc3: "+",
  0xb4: "+",
  0xc5: "+",
};

/**
 * Release files of the 1990s are IBM code page 850 with box-drawing table rules; modern ones
 * are ASCII with `-`, `|` and `+`. Mapping the box characters to the modern ones lets one
 * parser read both layouts.
 */
export function releaseText(bytes: Uint8Array): string {
  let cp850 = false;
  for (let i = 0; i + 2 < bytes.length; i++) {
    if (bytes[i] === 0xc4 && bytes[i + 1] === 0xc4 && bytes[i + 2] === 0xc4) {
      cp850 = true;
      break;
    }
  }
  let out = "";
  const chunk: number[] = [];
  for (const b of bytes) {
    const box = cp850 ? CP850_BOX[b] : undefined;
    chunk.push(box !== undefined ? box.charCodeAt(0) : b);
    if (chunk.length === 8192) {
      out += String.fromCharCode(...chunk);
      chunk.length = 0;
    }
  }
  return out + String.fromCharCode(...chunk);
}

function lines(text: string): string[] {
  return text.split(/\r?\n/);
}

/** Splits a release file into its entries at the horizontal rules between them. */
function blocks(text: string): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  for (const line of lines(text)) {
    if (/^-{20,}\s*$/.test(line)) {
      out.push(current);
      current = [];
    } else current.push(line);
  }
  out.push(current);
  return out;
}

/** Change indicators precede entries, alone or in pairs (`*|`). */
const CHANGE = "[+*#|X-]{0,2}";
/** Entry headers: indentation varies between releases, the change indicator may precede the id. */
const HEAD = "^\\s*(?:[+*#|X-]{1,2}\\s+)?";
const REPR = "((?:an|a|n)(?:\\.\\.)?\\d+)";

/** Joins an entry line with the continuation lines its wrapped name spilled onto. */
function joinWrapped(block: string[], index: number, complete: RegExp): { text: string; next: number } {
  let text = block[index] ?? "";
  let next = index + 1;
  while (!complete.test(text) && next < block.length && /^\s{6,}\S/.test(block[next] ?? "")) {
    text += " " + (block[next] ?? "").trim();
    next++;
  }
  return { text, next };
}

export function parseElements(text: string): Map<string, ElementSpec> {
  const out = new Map<string, ElementSpec>();
  for (const block of blocks(text)) {
    const body = block.filter((l) => l.trim() !== "");
    const head = new RegExp(`${HEAD}(\\d{4})\\s+(\\S.*?)\\s*(?:\\[[BIC]\\])?\\s*$`).exec(body[0] ?? "");
    const repr = body.map((l) => /^\s*Repr:\s*(\S+)/.exec(l)).find((m) => m !== null);
    if (head && repr) out.set(head[1] as string, [head[2] as string, repr[1] as string]);
  }
  return out;
}

const STATUS_TAIL = new RegExp(`\\s([MC])(?:\\s+(\\d+))?(?:\\s+${REPR})?\\s*$`);

export function parseComposites(text: string): Map<string, CompositeSpec> {
  const out = new Map<string, CompositeSpec>();
  const line = new RegExp(`^\\d{3}\\s+${CHANGE}\\s*(\\d{4})\\s+(.*)$`);
  for (const block of blocks(text)) {
    const body = block.filter((l) => l.trim() !== "");
    const head = new RegExp(`${HEAD}([CES]\\d{3})\\s+(\\S.*?)\\s*(?:\\[[BIC]\\])?\\s*$`).exec(body[0] ?? "");
    if (!head) continue;
    const components: (readonly [string, Status])[] = [];
    for (let i = 1; i < body.length;) {
      if (!line.test(body[i] ?? "")) {
        i++;
        continue;
      }
      const { text: joined, next } = joinWrapped(body, i, STATUS_TAIL);
      const m = line.exec(joined);
      const tail = STATUS_TAIL.exec(joined);
      if (m && tail) components.push([m[1] as string, tail[1] as Status]);
      i = next;
    }
    out.set(head[1] as string, [titleCase(head[2] as string), components]);
  }
  return out;
}

export function parseSegments(text: string): Map<string, SegmentSpec> {
  const out = new Map<string, SegmentSpec>();
  const line = new RegExp(`^\\d{3}\\s+${CHANGE}\\s*([CES]\\d{3}|\\d{4})\\s+(.*)$`);
  for (const block of blocks(text)) {
    const body = block.filter((l) => l.trim() !== "");
    const head = new RegExp(`${HEAD}([A-Z]{3})\\s+([A-Z].*?)\\s*(?:\\[[BIC]\\])?\\s*$`).exec(body[0] ?? "");
    if (!head) continue;
    const elements: (readonly [string, Status, number])[] = [];
    for (let i = 1; i < body.length;) {
      if (!line.test(body[i] ?? "")) {
        i++;
        continue;
      }
      const { text: joined, next } = joinWrapped(body, i, STATUS_TAIL);
      const m = line.exec(joined);
      const tail = STATUS_TAIL.exec(joined);
      if (m && tail) elements.push([m[1] as string, tail[1] as Status, tail[2] ? Number(tail[2]) : 1]);
      i = next;
    }
    out.set(head[1] as string, [titleCase(head[2] as string), elements]);
  }
  return out;
}

function titleCase(upper: string): string {
  return upper.charAt(0) + upper.slice(1).toLowerCase();
}

/** Reads "4.3.1 Segment table" of a message file (both layouts) into the compact structure. */
export function parseMessageStructure(text: string): CompactNode[] {
  const all = lines(text);
  let start = -1;
  all.forEach((l, i) => {
    if (/^4\.3\.1\s+Segment table/.test(l)) start = i;
  });
  if (start < 0) throw new Error("Message file has no segment table");
  const segment = new RegExp(
    `^\\d{4,5}\\s+${CHANGE}\\s*([A-Z]{3})\\s+.*?\\s([MC])\\s+(\\d+)\\s*([-+|]*)\\s*$`,
  );
  const group = new RegExp(
    `^\\d{4,5}\\s+${CHANGE}\\s*-+\\s*Segment group\\s+(\\d+)\\s*-+\\s*([MC])\\s+(\\d+)`,
  );
  const root: CompactNode[] = [];
  const stack: CompactNode[][] = [root];
  for (const l of all.slice(start + 1)) {
    const g = group.exec(l);
    if (g) {
      const children: CompactNode[] = [];
      (stack[stack.length - 1] as CompactNode[]).push([
        `SG${g[1] as string}`,
        g[2] as Status,
        Number(g[3]),
        children,
      ]);
      stack.push(children);
      continue;
    }
    const s = segment.exec(l);
    if (!s) continue;
    (stack[stack.length - 1] as CompactNode[]).push([s[1] as string, s[2] as Status, Number(s[3])]);
    const closes = (s[4] ?? "").split("").filter((c) => c === "+").length;
    for (let k = 0; k < closes && stack.length > 1; k++) stack.pop();
    if (s[1] === "UNT" && stack.length === 1) break;
  }
  return root;
}

/** Reads UNCL entries: element id → code → name. */
export function parseCodeLists(
  text: string,
  wanted: ReadonlySet<string>,
): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const block of blocks(text)) {
    let i = 0;
    while (i < block.length && (block[i] ?? "").trim() === "") i++;
    const head = new RegExp(`${HEAD}(\\d{4})\\s+(\\S.*?)\\s*(?:\\[[BIC]\\])?\\s*$`).exec(block[i] ?? "");
    if (!head || !wanted.has(head[1] as string)) continue;
    const codes: Record<string, string> = {};
    let mode: "meta" | "note" | "codes" = "meta";
    for (const raw of block.slice(i + 1)) {
      if (raw.trim() === "") {
        if (mode === "note") mode = "meta";
        continue;
      }
      // A change indicator sits in column 0; blank it so indentation tells codes from text.
      const line = raw.replace(/^[+*#|X-]{1,2}(?= )/, (m) => " ".repeat(m.length));
      const indent = line.length - line.trimStart().length;
      const body = line.trim();
      if (mode !== "codes") {
        if (/^(Desc|Note):/.test(body)) {
          mode = "note";
          continue;
        }
        if (/^Repr:/.test(body) || mode === "note") continue;
        mode = "codes";
      }
      if (indent > 8) continue;
      const m = /^(\S+)\s*(.*)$/.exec(body);
      if (m) codes[m[1] as string] = (m[2] as string).trim();
    }
    out.set(head[1] as string, codes);
  }
  return out;
}

function pick(files: Map<string, Uint8Array>, pattern: RegExp): { name: string; bytes: Uint8Array }[] {
  return [...files].filter(([name]) => pattern.test(name)).map(([name, bytes]) => ({ name, bytes }));
}

/**
 * Imports an official UNTDID release zip (the 1990s TRMD/TRSD/TRCD/TRED/UNCL layout or the
 * modern EDMD/EDSD/EDCD/EDED/UNCL one, nested zips included) into the compact format.
 * Throws when the archive is not a release: that is an operator error, not partner input.
 */
export function importDirectory(zipBytes: Uint8Array, options: ImportOptions = {}): CompactDirectory {
  const files = new Map<string, Uint8Array>();
  for (const entry of readZipDeep(zipBytes)) {
    const base = entry.name.split("/").pop()?.toUpperCase() ?? "";
    files.set(base, entry.bytes);
  }
  const segFile = pick(files, /^(TRSD|EDSD)\.\d\d[A-Z]$/)[0];
  if (!segFile) throw new Error("Not a UNTDID release: no TRSD/EDSD segment directory found");
  const release = (segFile.name.split(".")[1] ?? "").toUpperCase();
  const one = (pattern: RegExp, what: string): string => {
    const f = pick(files, pattern)[0];
    if (!f) throw new Error(`UNTDID release ${release} has no ${what}`);
    return releaseText(f.bytes);
  };
  const elementSpecs = parseElements(one(/^(TRED|EDED)\.\d\d[A-Z]$/, "element directory (TRED/EDED)"));
  const compositeSpecs = parseComposites(one(/^(TRCD|EDCD)\.\d\d[A-Z]$/, "composite directory (TRCD/EDCD)"));
  const segmentSpecs = parseSegments(releaseText(segFile.bytes));
  const messages: Record<string, CompactNode[]> = {};
  for (const type of options.messages ?? DEFAULT_MESSAGES) {
    const file = files.get(`${type}_D.${release}`);
    if (!file) throw new Error(`UNTDID release ${release} has no message ${type}`);
    messages[type] = parseMessageStructure(releaseText(file));
  }
  const codeText = pick(files, /^UNCL(-\d+)?\.\d\d[A-Z]$/)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((f) => releaseText(f.bytes))
    .join("\n" + "-".repeat(70) + "\n");
  return assembleDirectory({
    id: `D${release}`,
    source: `UNTDID ${release} release files (${segFile.name.startsWith("TR") ? "TRMD/TRSD/TRCD/TRED/UNCL" : "EDMD/EDSD/EDCD/EDED/UNCL"})`,
    messages,
    segments: segmentSpecs,
    composites: compositeSpecs,
    elements: elementSpecs,
    codes: (wanted) => parseCodeLists(codeText, wanted),
    codeNames: options.codeNames ?? true,
  });
}

export interface DirectoryParts {
  readonly id: string;
  readonly source: string;
  readonly messages: Record<string, CompactNode[]>;
  readonly segments: ReadonlyMap<string, SegmentSpec>;
  readonly composites: ReadonlyMap<string, CompositeSpec>;
  readonly elements: ReadonlyMap<string, ElementSpec>;
  readonly codes: (wanted: ReadonlySet<string>) => ReadonlyMap<string, Record<string, string>>;
  readonly codeNames: boolean;
}

function collectTags(nodes: readonly CompactNode[], into: Set<string>): void {
  for (const n of nodes) {
    if (n.length === 4) collectTags(n[3], into);
    else into.add(n[0]);
  }
}

/** Keeps only the segments, composites, elements and code lists the messages reach. */
export function assembleDirectory(parts: DirectoryParts): CompactDirectory {
  const tags = new Set<string>();
  for (const nodes of Object.values(parts.messages)) collectTags(nodes, tags);
  const segments: Record<string, SegmentSpec> = {};
  const composites: Record<string, CompositeSpec> = {};
  const elements: Record<string, ElementSpec> = {};
  const addElement = (id: string): void => {
    const spec = parts.elements.get(id);
    if (spec) elements[id] = spec;
  };
  for (const tag of [...tags].sort()) {
    // UNH/UNT/UNS are service segments of ISO 9735, not entries of the segment directory.
    const spec = parts.segments.get(tag);
    if (!spec) continue;
    segments[tag] = spec;
    for (const [id] of spec[1]) {
      const composite = parts.composites.get(id);
      if (composite) {
        composites[id] = composite;
        for (const [eid] of composite[1]) addElement(eid);
      } else addElement(id);
    }
  }
  const codes: Record<string, Record<string, string>> = {};
  const lists = parts.codes(new Set(Object.keys(elements)));
  for (const id of Object.keys(elements).sort()) {
    const list = lists.get(id);
    if (!list || Object.keys(list).length === 0) continue;
    codes[id] = parts.codeNames ? list : Object.fromEntries(Object.keys(list).map((k) => [k, ""]));
  }
  return {
    format: "hanse-edifact-directory/1",
    id: parts.id,
    source: parts.source,
    messages: parts.messages,
    segments,
    composites,
    elements,
    codes,
  };
}
