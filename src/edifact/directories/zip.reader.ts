import { inflateRawSync } from "node:zlib";

/** One file of a zip archive, already inflated. */
export interface ZipEntry {
  readonly name: string;
  readonly bytes: Uint8Array;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

function u16(b: Uint8Array, at: number): number {
  return (b[at] as number) | ((b[at + 1] as number) << 8);
}

function u32(b: Uint8Array, at: number): number {
  return (u16(b, at) | (u16(b, at + 2) << 16)) >>> 0;
}

/**
 * Reads a zip archive from its central directory (stored and deflated entries; no zip64, no
 * encryption — UNTDID releases use neither). Throws on a damaged archive: unlike an
 * interchange, a directory release is operator input that must be complete.
 */
export function readZip(bytes: Uint8Array): ZipEntry[] {
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (u32(bytes, i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error("Not a zip archive: end of central directory not found");
  const count = u16(bytes, eocd + 10);
  let at = u32(bytes, eocd + 16);
  const entries: ZipEntry[] = [];
  const latin1 = new TextDecoder("latin1");
  for (let k = 0; k < count; k++) {
    if (u32(bytes, at) !== CENTRAL) throw new Error("Damaged zip archive: bad central directory entry");
    const method = u16(bytes, at + 10);
    const compressed = u32(bytes, at + 20);
    const nameLength = u16(bytes, at + 28);
    const extraLength = u16(bytes, at + 30);
    const commentLength = u16(bytes, at + 32);
    const local = u32(bytes, at + 42);
    const name = latin1.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith("/")) continue;
    if (u32(bytes, local) !== LOCAL) throw new Error(`Damaged zip archive: bad local header for ${name}`);
    const dataStart = local + 30 + u16(bytes, local + 26) + u16(bytes, local + 28);
    const data = bytes.subarray(dataStart, dataStart + compressed);
    if (method === 0) entries.push({ name, bytes: data });
    else if (method === 8) entries.push({ name, bytes: new Uint8Array(inflateRawSync(data)) });
    else throw new Error(`Unsupported zip compression method ${method} for ${name}`);
  }
  return entries;
}

/** Reads a zip and, recursively, the zips inside it (UNTDID releases nest one zip per part). */
export function readZipDeep(bytes: Uint8Array, prefix = ""): ZipEntry[] {
  const out: ZipEntry[] = [];
  for (const entry of readZip(bytes)) {
    const name = prefix + entry.name;
    if (/\.zip$/i.test(entry.name)) out.push(...readZipDeep(entry.bytes, `${name}/`));
    else out.push({ name, bytes: entry.bytes });
  }
  return out;
}
