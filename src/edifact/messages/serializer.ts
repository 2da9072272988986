import type {
  Group,
  Interchange,
  Message,
  MessageReference,
  PartyId,
  Segment,
} from "../envelope/interchange.types.js";
import { encodeText, isSyntaxIdentifier, repertoireBytes, type SyntaxIdentifier } from "../syntax/charset.js";
import { defaultSeparators, needsUna, type Separators } from "../syntax/separators.js";
import { ByteSink } from "./byte-sink.js";

export interface SerializeOptions {
  /** Characters the repertoire cannot carry: `transliterate` (default) or `throw`. */
  readonly unrepresentable?: "transliterate" | "throw";
  /** Written after each segment terminator; "" (default) writes one continuous line. */
  readonly segmentSuffix?: "" | "\n" | "\r\n";
}

/** Thrown for a model that cannot be written (e.g. text outside the repertoire with `throw`). */
export class EdifactSerializeError extends Error {
  override readonly name = "EdifactSerializeError";
}

/** How many of `items` are left when trailing empty ones are omitted, as ISO 9735 requires. */
function withoutTrailingEmpty(items: readonly string[]): number {
  let end = items.length;
  while (end > 0 && items[end - 1] === "") end--;
  return end;
}

/**
 * Per repertoire and separators: 1 for a UTF-16 code unit that is written as it is (the
 * repertoire carries it and it is no service character), so that most values need neither an
 * encoding check nor escaping (`Writer.value`). Built once per combination; separators can come
 * from a partner's UNA, so at most `maxPlainTables` (64 KiB each) are kept.
 */
const plainTables = new Map<string, Uint8Array>();
const maxPlainTables = 32;

function plainTable(id: SyntaxIdentifier, special: ReadonlySet<string>): Uint8Array {
  const key = `${id}${[...special].join("")}`;
  let plain = plainTables.get(key);
  if (plain) return plain;
  plain = new Uint8Array(0x10000);
  if (id === "UNOW" || id === "UNOY") {
    for (let c = 0x20; c < 0x10000; c++) plain[c] = c === 0x7f ? 0 : 1;
  } else {
    const bytes = repertoireBytes(id);
    for (let c = 0; c < 0x10000; c++) plain[c] = (bytes[c] as number) >= 0 ? 1 : 0;
  }
  for (const ch of special) plain[ch.charCodeAt(0)] = 0;
  if (plainTables.size >= maxPlainTables) plainTables.clear();
  plainTables.set(key, plain);
  return plain;
}

function transliterate(id: SyntaxIdentifier, text: string): string {
  let out = text.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  if (id === "UNOA") out = out.toUpperCase();
  let result = "";
  for (const ch of out) result += encodeText(id, ch).ok ? ch : ".";
  return result;
}

/**
 * Writes segments straight into a ByteSink: each segment's text is built and encoded at once
 * and becomes garbage, instead of all of them being kept, joined and encoded at the end.
 */
class Writer {
  private readonly special: Set<string>;
  private readonly plain: Uint8Array;
  readonly sink: ByteSink;
  private readonly suffix: string;

  constructor(
    private readonly sep: Separators,
    private readonly id: SyntaxIdentifier,
    private readonly options: SerializeOptions,
  ) {
    this.sink = new ByteSink(id);
    this.suffix = options.segmentSuffix ?? "";
    this.special = new Set([sep.component, sep.element, sep.terminator]);
    if (sep.release !== " ") this.special.add(sep.release);
    if (sep.repetition !== " ") this.special.add(sep.repetition);
    this.plain = plainTable(id, this.special);
  }

  /** A value as written: as it is when every character is plain, else checked and escaped. */
  private value(text: string): string {
    const plain = this.plain;
    let i = 0;
    while (i < text.length && plain[text.charCodeAt(i)] === 1) i++;
    return i === text.length ? text : this.escaped(text);
  }

  /** Transliterates (or refuses) what the repertoire lacks and releases service characters. */
  private escaped(text: string): string {
    let v = text;
    if (!encodeText(this.id, v).ok) {
      if (this.options.unrepresentable === "throw") {
        throw new EdifactSerializeError(`"${text}" cannot be written in ${this.id}`);
      }
      v = transliterate(this.id, v);
    }
    let out = "";
    for (const ch of v) {
      if (this.special.has(ch)) {
        if (this.sep.release === " ") {
          throw new EdifactSerializeError(
            `"${text}" contains a service character and no release character is set`,
          );
        }
        out += this.sep.release;
      }
      out += ch;
    }
    return out;
  }

  private element(components: readonly string[]): string {
    const end = withoutTrailingEmpty(components);
    let out = "";
    for (let i = 0; i < end; i++) {
      if (i > 0) out += this.sep.component;
      out += this.value(components[i] as string);
    }
    return out;
  }

  segment(segment: Segment): void {
    const written = segment.elements.map((components, i) => {
      const first = this.element(components);
      const more = segment.repeats?.[i] ?? [];
      if (more.length === 0) return first;
      // Syntax 3 has no repetition separator (UNA position 5 is reserved): joining with a space
      // would change the data, and parse(serialize(x)) would no longer be x.
      if (this.sep.repetition === " ") {
        throw new EdifactSerializeError(
          `${segment.tag} repeats element ${String(i + 1)}, which syntax version 3 cannot express`,
        );
      }
      return [first, ...more.map((r) => this.element(r))].join(this.sep.repetition);
    });
    const end = withoutTrailingEmpty(written);
    let text = this.value(segment.tag);
    for (let i = 0; i < end; i++) text += this.sep.element + (written[i] as string);
    this.line(text + this.sep.terminator);
  }

  /**
   * Writes one segment (or UNA) and the suffix after it. Line breaks are layout outside the
   * repertoire: a suffix inside the text is written as is, as encoding the lines apart did.
   */
  line(text: string): void {
    const suffix = this.suffix;
    if (suffix === "") {
      this.sink.text(text);
      return;
    }
    text.split(suffix).forEach((piece, i) => {
      if (i > 0) this.sink.raw(suffix);
      this.sink.text(piece);
    });
    this.sink.raw(suffix);
  }
}

function partyElement(p: PartyId | undefined): string[] {
  if (!p) return [""];
  return [p.id, p.qualifier ?? "", p.internalId ?? "", p.internalSubId ?? ""];
}

function referenceElement(r: MessageReference | undefined): string[] {
  return r ? [r.id, r.version ?? "", r.release ?? "", r.agency ?? ""] : [""];
}

function messageSegments(w: Writer, m: Message, version: number): number {
  const id = m.identifier;
  if (
    version < 4 &&
    (id.codeListVersion ?? id.subFunction ?? m.subset ?? m.implementationGuideline ?? m.scenario) !==
      undefined
  ) {
    throw new EdifactSerializeError(
      `Message ${m.ref}: UNH S009 0110/0113 and S016–S018 exist from syntax version 4 on`,
    );
  }
  w.segment({
    tag: "UNH",
    elements: [
      [m.ref],
      [
        id.type,
        id.version,
        id.release,
        id.agency,
        id.association ?? "",
        id.codeListVersion ?? "",
        id.subFunction ?? "",
      ],
      [m.commonAccessRef ?? ""],
      m.transferStatus ? [m.transferStatus.sequence, m.transferStatus.firstAndLast ?? ""] : [""],
      referenceElement(m.subset),
      referenceElement(m.implementationGuideline),
      referenceElement(m.scenario),
    ],
  });
  let count = 2;
  for (const s of m.segments) {
    w.segment(s);
    count++;
  }
  w.segment({ tag: "UNT", elements: [[String(count)], [m.ref]] });
  return count;
}

function groupSegments(w: Writer, g: Group, version: number): void {
  w.segment({
    tag: "UNG",
    elements: [
      [g.groupId ?? ""],
      partyElement(g.sender),
      partyElement(g.recipient),
      [g.date ?? "", g.time ?? ""],
      [g.ref],
      [g.agency ?? ""],
      g.messageVersion
        ? [g.messageVersion.version, g.messageVersion.release, g.messageVersion.association ?? ""]
        : [""],
      [g.password ?? ""],
    ],
  });
  for (const m of g.messages) messageSegments(w, m, version);
  w.segment({ tag: "UNE", elements: [[String(g.messages.length)], [g.ref]] });
}

/**
 * Writes an interchange: UNA when the separators are not the version's defaults, UNB…UNZ with
 * control counts computed here, every value escaped with the release character and encoded in
 * the repertoire of UNB 0001.
 */
export function serializeInterchange(ic: Interchange, options: SerializeOptions = {}): Uint8Array {
  const version = ic.syntax.version;
  const sep = ic.separators ?? defaultSeparators(version);
  const idText = ic.syntax.identifier;
  if (!isSyntaxIdentifier(idText)) throw new EdifactSerializeError(`Unsupported syntax identifier ${idText}`);
  const w = new Writer(sep, idText, options);
  if (needsUna(sep, version)) {
    w.line(`UNA${sep.component}${sep.element}${sep.decimal}${sep.release}${sep.repetition}${sep.terminator}`);
  }
  w.segment({
    tag: "UNB",
    elements: [
      [idText, String(version), ic.syntax.serviceCodeListVersion ?? "", ic.syntax.characterEncoding ?? ""],
      partyElement(ic.sender),
      partyElement(ic.recipient),
      [ic.date, ic.time],
      [ic.controlRef],
      ic.recipientReference ? [ic.recipientReference.password, ic.recipientReference.qualifier ?? ""] : [""],
      [ic.applicationRef ?? ""],
      [ic.priority ?? ""],
      [ic.ackRequested ? "1" : ""],
      [ic.agreementId ?? ""],
      [ic.test ? "1" : ""],
    ],
  });
  const groups = ic.groups ?? [];
  for (const g of groups) groupSegments(w, g, version);
  for (const m of ic.messages) messageSegments(w, m, version);
  w.segment({
    tag: "UNZ",
    elements: [[String(groups.length > 0 ? groups.length : ic.messages.length)], [ic.controlRef]],
  });
  // Values were made representable above; what is left unencodable are service characters.
  if (w.sink.unencodable)
    throw new EdifactSerializeError("Service characters cannot be written in the repertoire");
  return w.sink.bytes();
}
