import { repertoireBytes, type SyntaxIdentifier } from "../syntax/charset.js";

const CHUNK = 64 * 1024;

/**
 * Collects the serializer's output in fixed 64 KiB chunks and joins them once at the end, so
 * writing a large interchange holds its bytes about twice, not a list of segment strings plus
 * their concatenation plus its encoding. Text is encoded into the interchange's repertoire as
 * it is written; a character the repertoire lacks is remembered (`unencodable`) rather than
 * thrown at once, so that the caller can keep the error order of whole-text encoding.
 */
export class ByteSink {
  /** Full chunks, each cut to what was written into it. */
  private readonly chunks: Uint8Array[] = [];
  private written = 0;
  private current = new Uint8Array(CHUNK);
  private at = 0;
  private readonly utf8: boolean;
  /** Code unit → byte, -1 when the repertoire lacks it (not used for UTF-8). */
  private readonly table: Int16Array | undefined;
  private readonly encoder = new TextEncoder();
  unencodable = false;

  constructor(id: SyntaxIdentifier) {
    this.utf8 = id === "UNOW" || id === "UNOY";
    this.table = this.utf8 ? undefined : repertoireBytes(id);
  }

  private flush(): void {
    // Only what was written: `encodeInto` stops before a multi-byte character that does not fit,
    // leaving an unused (zero) tail, which issue 20 found as NUL bytes in the output.
    this.chunks.push(this.current.subarray(0, this.at));
    this.written += this.at;
    this.current = new Uint8Array(CHUNK);
    this.at = 0;
  }

  /** Writes bytes that are not text of the repertoire (segment suffixes). */
  raw(text: string): void {
    for (let i = 0; i < text.length; i++) {
      if (this.at === CHUNK) this.flush();
      this.current[this.at++] = text.charCodeAt(i) & 0xff;
    }
  }

  /** Writes text encoded in the repertoire (what `encodeText` would give for it). */
  text(text: string): void {
    if (this.utf8) {
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c < 0x20 || c === 0x7f) this.unencodable = true;
      }
      let rest = text;
      for (;;) {
        const { read, written } = this.encoder.encodeInto(rest, this.current.subarray(this.at));
        this.at += written;
        if (read === rest.length) return;
        rest = rest.slice(read);
        this.flush();
      }
    }
    const table = this.table as Int16Array;
    for (let i = 0; i < text.length; i++) {
      const b = table[text.charCodeAt(i)] as number;
      if (b < 0) this.unencodable = true;
      if (this.at === CHUNK) this.flush();
      this.current[this.at++] = b & 0xff;
    }
  }

  /** Everything written, as one array. */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.written + this.at);
    let offset = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    out.set(this.current.subarray(0, this.at), offset);
    return out;
  }
}
