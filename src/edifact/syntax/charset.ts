import { Buffer } from "node:buffer";

/** Syntax identifiers (UNB 0001) this engine decodes and checks. */
export const SYNTAX_IDENTIFIERS = ["UNOA", "UNOB", "UNOC", "UNOD", "UNOE", "UNOF", "UNOW", "UNOY"] as const;
export type SyntaxIdentifier = (typeof SYNTAX_IDENTIFIERS)[number];

export function isSyntaxIdentifier(value: string): value is SyntaxIdentifier {
  return (SYNTAX_IDENTIFIERS as readonly string[]).includes(value);
}

/**
 * Level A of ISO 9735: the ISO 646 basic table without lower case letters and without the
 * positions ISO 646 leaves to national variants (# $ @ [ \ ] ^ ` { | } ~). Level B adds a–z.
 */
const LEVEL_A = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,-()/='+:?!\"%&*;<>";
const LOWER = "abcdefghijklmnopqrstuvwxyz";

/** ISO 8859 parts whose 0xA0–0xFF positions are partly unassigned. */
const UNASSIGNED_8859_7 = [0xae, 0xd2, 0xff];

const TEXT_DECODER_LABEL: Partial<Record<SyntaxIdentifier, string>> = {
  UNOD: "iso-8859-2",
  UNOE: "iso-8859-5",
  UNOF: "iso-8859-7",
  UNOW: "utf-8",
  UNOY: "utf-8",
};

export type Decoder = (bytes: Uint8Array, start: number, end: number) => string;

/**
 * Bytes valid inside data for the repertoire (1 = valid). Unknown identifiers accept every
 * byte: their repertoire is not ours to judge, the UNB check already reports them.
 */
export function repertoireTable(id: string): Uint8Array {
  const table = new Uint8Array(256);
  const set = (chars: string): void => {
    for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  };
  switch (id) {
    case "UNOA":
      set(LEVEL_A);
      break;
    case "UNOB":
      set(LEVEL_A + LOWER);
      break;
    case "UNOC":
    case "UNOD":
    case "UNOE":
    case "UNOF":
      for (let b = 0x20; b < 0x7f; b++) table[b] = 1;
      for (let b = 0xa0; b <= 0xff; b++) table[b] = 1;
      if (id === "UNOF") for (const b of UNASSIGNED_8859_7) table[b] = 0;
      break;
    case "UNOW":
    case "UNOY":
      // Multi-byte sequences are checked as a whole by checkUtf8; C0 controls stay invalid.
      for (let b = 0x20; b <= 0xff; b++) table[b] = b === 0x7f ? 0 : 1;
      break;
    default:
      table.fill(1);
  }
  return table;
}

/** A decoder for the repertoire; UNOA/UNOB/UNOC and unknown identifiers decode as ISO 8859-1. */
export function decoderFor(id: string): Decoder {
  const label = TEXT_DECODER_LABEL[id as SyntaxIdentifier];
  if (label === undefined) {
    // One Buffer view per decoder, not per call: this is the hot path of materialisation.
    let source: Uint8Array | undefined;
    let view: Buffer | undefined;
    return (bytes, start, end) => {
      if (bytes !== source) {
        source = bytes;
        view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      }
      // Short values (codes, references, dates) are built directly: cheaper than the
      // native call, and V8 keeps strings under 13 characters flat.
      if (end - start <= 12) {
        let text = "";
        for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i] as number);
        return text;
      }
      return (view as Buffer).toString("latin1", start, end);
    };
  }
  const decoder = new TextDecoder(label);
  return (bytes, start, end) => decoder.decode(bytes.subarray(start, end));
}

/** Offset of the first malformed UTF-8 sequence, or -1. */
export function findInvalidUtf8(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  while (i < end) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || i + k >= end || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/** Result of encoding one string into a repertoire. */
export type EncodeResult = { ok: true; bytes: Uint8Array } | { ok: false; index: number };

const reverseTables = new Map<string, Map<number, number>>();

function reverseTable(id: SyntaxIdentifier): Map<number, number> {
  let table = reverseTables.get(id);
  if (table) return table;
  table = new Map();
  const label = TEXT_DECODER_LABEL[id];
  const valid = repertoireTable(id);
  const decoder = label ? new TextDecoder(label) : undefined;
  for (let b = 0; b < 256; b++) {
    if (valid[b] !== 1) continue;
    const ch = decoder ? decoder.decode(Uint8Array.of(b)) : String.fromCharCode(b);
    table.set(ch.codePointAt(0) as number, b);
  }
  reverseTables.set(id, table);
  return table;
}

const byteTables = new Map<string, Int16Array>();

/**
 * The reverse table as an array over UTF-16 code units (byte, or -1 when the repertoire lacks
 * the character), for encoding without a map lookup per character. Not for UNOW/UNOY.
 */
export function repertoireBytes(id: SyntaxIdentifier): Int16Array {
  let bytes = byteTables.get(id);
  if (!bytes) {
    bytes = new Int16Array(0x10000).fill(-1);
    for (const [code, b] of reverseTable(id)) if (code < 0x10000) bytes[code] = b;
    byteTables.set(id, bytes);
  }
  return bytes;
}

/** Encodes text in the repertoire, reporting the first character it cannot carry. */
export function encodeText(id: SyntaxIdentifier, text: string): EncodeResult {
  if (id === "UNOW" || id === "UNOY") {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c === 0x7f) return { ok: false, index: i };
    }
    return { ok: true, bytes: new TextEncoder().encode(text) };
  }
  const table = reverseTable(id);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const b = table.get(text.charCodeAt(i));
    if (b === undefined) return { ok: false, index: i };
    out[i] = b;
  }
  return { ok: true, bytes: out };
}
