/**
 * Builds the engine's compact directory definitions (src/edifact/directories/data/*.json).
 *
 *   npx tsx scripts/build-directories.ts [DIRECTORIES]
 *
 * DIRECTORIES defaults to the official releases that test/support/shared-data.ts names
 * (HANSE_TEST_DIRECTORIES_DIR).
 *
 * D96A comes from the official UNTDID D.96A release zip through the same importer users run
 * (`hanse edi import-directory`). D25A: no official D.25A release was available, so it is
 * built from the D.24A directory as converted to XML by the pydifact project (structures,
 * segments, composites, elements, codes of ORDERS/ORDRSP/APERAK) — see docs/edifact.md.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { directoriesDir } from "../test/support/shared-data.js";
import type { CompactDirectory, CompactNode, Status } from "../src/edifact/directories/directory.types.js";
import {
  DEFAULT_MESSAGES,
  assembleDirectory,
  importDirectory,
} from "../src/edifact/directories/untdid.importer.js";

interface XmlNode {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlNode[];
}

function decodeEntities(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** A minimal XML reader for the pydifact files: elements and attributes, no text content. */
function parseXml(text: string): XmlNode {
  const root: XmlNode = { name: "#root", attrs: {}, children: [] };
  const stack: XmlNode[] = [root];
  const tag = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+\s*=\s*"[^"]*")*)\s*(\/?)>/g;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    const [, closing, name = "", rawAttrs = "", selfClosing] = m;
    if (closing) {
      stack.pop();
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of rawAttrs.matchAll(/([\w:.-]+)\s*=\s*"([^"]*)"/g))
      attrs[a[1] as string] = decodeEntities(a[2] as string);
    const node: XmlNode = { name, attrs, children: [] };
    (stack[stack.length - 1] as XmlNode).children.push(node);
    if (!selfClosing) stack.push(node);
  }
  return root;
}

function readXml(dir: string, file: string): XmlNode {
  const doc = parseXml(readFileSync(join(dir, file), "utf8"));
  const top = doc.children[0];
  if (!top) throw new Error(`${file}: no document element`);
  return top;
}

/** "DocumentNameCode" → "Document name code". */
function words(camel: string): string {
  const spaced = camel.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2");
  return spaced.charAt(0) + spaced.slice(1).toLowerCase();
}

/**
 * Elements whose codes UNCL leaves to another standard, listing only additions to it: checking
 * against the few listed values would reject valid data. (UNCL D.18A has no 6411 entry at all.)
 */
const EXTERNAL_CODE_LISTS: Readonly<Record<string, string>> = { "6411": "UN/ECE Recommendation 20" };

const status = (attrs: Readonly<Record<string, string>>): Status => (attrs.required === "true" ? "M" : "C");

type SegmentElements = readonly (readonly [string, Status, number])[];

/**
 * Where the pydifact conversion lost part of a segment, checked against the official D.06A and
 * D.18A releases (the latter is among the official releases of HANSE_TEST_DIRECTORIES_DIR) and
 * UNECE's segment pages: PCI lost its composite C210 (marks and labels, ten repetitions of 7102),
 * which every release since D.96A places between 4233 and the package status element. The composite
 * itself is in the conversion. (C502 and C829 are shorter there than in D.18A too, but consistently
 * in the segments and the composites, as later directories changed them; they are taken as
 * converted.)
 */
const SEGMENT_CORRECTIONS: Readonly<Record<string, (elements: SegmentElements) => SegmentElements>> = {
  PCI: (elements) =>
    elements.some(([id]) => id === "C210")
      ? elements
      : [...elements.slice(0, 1), ["C210", "C", 1] as const, ...elements.slice(1)],
};

function structure(nodes: readonly XmlNode[]): CompactNode[] {
  const out: CompactNode[] = [];
  for (const n of nodes) {
    const max = Number(n.attrs.maxrepeat ?? "1");
    if (n.name === "segment") out.push([n.attrs.id ?? "", status(n.attrs), max]);
    else if (n.name === "group") out.push([n.attrs.id ?? "", status(n.attrs), max, structure(n.children)]);
  }
  return out;
}

/**
 * The pydifact conversion keeps only an element's maximum length, so a fixed-length element
 * (`n3`) reads as variable (`n..3`). Where the official D.18A release defines the element with
 * the same representation and that length as fixed, the fixed length is taken from it.
 */
function fixedLengthsFrom(
  official: CompactDirectory,
  elements: Map<string, readonly [string, string]>,
): string[] {
  const fixed: string[] = [];
  for (const [id, [name, representation]] of elements) {
    const known = official.elements[id]?.[1];
    if (
      known !== undefined &&
      !known.includes("..") &&
      representation === known.replace(/^([a-z]+)/, "$1..")
    ) {
      elements.set(id, [name, known]);
      fixed.push(`${id} ${known}`);
    }
  }
  return fixed;
}

function buildFromPydifact(dir: string, id: string, source: string, official?: CompactDirectory) {
  const messages: Record<string, CompactNode[]> = {};
  for (const type of DEFAULT_MESSAGES)
    messages[type] = structure(readXml(dir, `${type.toLowerCase()}.xml`).children);
  const elements = new Map<string, readonly [string, string]>();
  const codeLists = new Map<string, Record<string, string>>();
  for (const e of readXml(dir, "data_elements.xml").children) {
    const eid = e.attrs.id ?? "";
    // The conversion keeps only the maximum length, so every element reads as variable length.
    elements.set(eid, [words(e.attrs.name ?? eid), `${e.attrs.type ?? "an"}..${e.attrs.maxlength ?? "35"}`]);
    const codes = e.children.filter((c) => c.name === "code");
    if (codes.length > 0 && !(eid in EXTERNAL_CODE_LISTS))
      codeLists.set(eid, Object.fromEntries(codes.map((c) => [c.attrs.id ?? "", c.attrs.title ?? ""])));
  }
  if (official)
    console.log(`fixed lengths from ${official.id}: ${fixedLengthsFrom(official, elements).join(", ")}`);
  const composites = new Map<string, readonly [string, readonly (readonly [string, Status])[]]>();
  for (const c of readXml(dir, "composite_data_elements.xml").children) {
    composites.set(c.attrs.id ?? "", [
      words(c.attrs.name ?? ""),
      c.children.map((e) => [e.attrs.id ?? "", status(e.attrs)] as const),
    ]);
  }
  const segments = new Map<string, readonly [string, readonly (readonly [string, Status, number])[]]>();
  for (const s of readXml(dir, "segments.xml").children) {
    segments.set(s.attrs.id ?? "", [
      words(s.attrs.name ?? ""),
      s.children.map((e) => [e.attrs.id ?? "", status(e.attrs), Number(e.attrs.repeat ?? "1")] as const),
    ]);
  }
  for (const [tag, correct] of Object.entries(SEGMENT_CORRECTIONS)) {
    const segment = segments.get(tag);
    if (segment) segments.set(tag, [segment[0], correct(segment[1])]);
  }
  return assembleDirectory({
    id,
    source,
    messages,
    segments,
    composites,
    elements,
    codes: () => codeLists,
    codeNames: true,
  });
}

function main(): void {
  const shared = resolve(process.argv[2] ?? directoriesDir);
  const out = join(import.meta.dirname, "../src/edifact/directories/data");
  const d96a = join(shared, "d96a.zip");
  const d24a = join(shared, "d24a-pydifact");
  const d18a = join(shared, "d18a.zip");
  if (!existsSync(d96a) || !existsSync(d24a) || !existsSync(d18a)) {
    console.error(
      `Directory material not found under ${shared} (need d96a.zip, d18a.zip and d24a-pydifact/)`,
    );
    process.exitCode = 2;
    return;
  }
  const written = [
    importDirectory(readFileSync(d96a)),
    buildFromPydifact(
      d24a,
      "D25A",
      "D.24A directory (UNECE) as converted to XML by the pydifact project; no official D.25A release was available",
      importDirectory(readFileSync(d18a)),
    ),
  ];
  for (const dir of written) {
    const file = join(out, `${dir.id.toLowerCase()}.json`);
    writeFileSync(file, JSON.stringify(dir) + "\n");
    console.log(
      `${file}: ${Object.keys(dir.segments).length} segments, ${Object.keys(dir.codes).length} code lists`,
    );
  }
}

main();
