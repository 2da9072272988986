import {
  DEFAULT_SEPARATORS,
  isUnaAt,
  separatorBytes,
  UNA_LENGTH,
  unaSeparators,
  type SeparatorBytes,
} from "../syntax/separators.js";

/**
 * The envelope check of a streamed input (the exchange's synchronous upload check, rules/contract
 * §4): the bytes are exactly one interchange — they start with `UNA` or `UNB` (after an
 * optional UTF-8 BOM) and hold one `UNB` … `UNZ`. Fed chunk by chunk while the input streams,
 * so no payload is held; everything else is left to parseInterchange/validateInterchange. Also
 * captures UNB 0020. The UNA is read as the tokenizer reads it (separators.ts), but not judged:
 * service characters the tokenizer finds unusable are taken as they come, and the engine
 * reports them later.
 */
export interface InterchangeScanResult {
  ok: boolean;
  /** Why the body is not exactly one interchange (safe to show). */
  reason?: string;
  /** UNB 0020 when readable. */
  interchangeId?: string;
}

const BOM = [0xef, 0xbb, 0xbf];
const CR = 0x0d;
const LF = 0x0a;
const maxHeaderBytes = 2048;
/** Segment tags as three bytes packed into an integer: no string per segment. */
const TAG_UNB = 0x554e42;
const TAG_UNZ = 0x554e5a;
/** The tags fastForward() searches for, and their letters. */
const UNB = Buffer.from("UNB");
const UNZ = Buffer.from("UNZ");
const tagLetters = [0x55, 0x4e, 0x42, 0x5a];
/** ISO 9735's defaults until a UNA advises others (the repetition separator plays no part). */
const DEFAULT_BYTES = separatorBytes(DEFAULT_SEPARATORS);

/** How many release characters directly precede `end`, looking back no further than `from`. */
function releaseRun(bytes: Uint8Array, from: number, end: number, release: number): number {
  let k = end;
  while (k > from && bytes[k - 1] === release) k--;
  return end - k;
}

/** 1 for every byte value that step() takes as a tag byte: all but the `special` ones. */
function tagByteTable(special: number[]): Uint8Array {
  const table = new Uint8Array(256).fill(1);
  for (const b of special) table[b] = 0;
  return table;
}

export class InterchangeScanner {
  private prefix: number[] = [];
  private started = false;
  private failed: string | undefined;
  private terminator = DEFAULT_BYTES.terminator;
  /** -1: none (a space in UNA). */
  private release = DEFAULT_BYTES.release;
  private elementSep = DEFAULT_BYTES.element;
  private componentSep = DEFAULT_BYTES.component;
  private atSegmentStart = true;
  /** Bytes of the current segment's tag seen so far (0–3) and their packed value (while < 3). */
  private tagLength = 0;
  private tagCode = 0;
  private released = false;
  private unbCount = 0;
  private lastTag = -1;
  private afterUnz = false;
  private unb: number[] | undefined;
  private unbDone = false;
  private total = 0;
  /** See tagByteTable(); built once the separators are known. */
  private tagBytes: Uint8Array | undefined;
  /** See tagSearch(); decided once the separators are known. */
  private canSearchTags: boolean | undefined;
  /** fastForward() ran out of misses in the current piece: not searched again until the next. */
  private searchSpent = false;

  push(chunk: Uint8Array): void {
    // A Buffer view (no copy): its indexOf is a native byte search, Uint8Array's a slow loop.
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    const n = bytes.length;
    this.total += n;
    this.searchSpent = false;
    let i = 0;
    // Until UNA or UNB is recognised, bytes are collected one by one (a dozen at most).
    while (!this.started) {
      if (this.failed || i === n) return;
      this.prefix.push(bytes[i++] as number);
      this.begin();
    }
    while (i < n && !this.failed) {
      if (
        this.tagLength === 3 &&
        !this.released &&
        (!this.unb || this.unbDone) &&
        this.release !== this.terminator
      ) {
        i = this.scanSegments(bytes, i);
      } else if (this.atSegmentStart && (bytes[i] === CR || bytes[i] === LF)) {
        // Line breaks between segments (step() ignores them) are skipped in a tight loop: a
        // chunk boundary inside a long run of them must not send the rest byte by byte.
        while (i < n && (bytes[i] === CR || bytes[i] === LF)) i++;
      } else {
        // Rare states go byte by byte: a segment start that is not plain (an odd tag, a tag split
        // by a chunk boundary, after UNZ), a released byte, the UNB header being captured, or a
        // UNA whose release character is its terminator (which then never ends a segment).
        this.step(bytes[i++] as number);
      }
    }
  }

  /**
   * The hot path, entered inside a segment's data (tag read, nothing released, UNB header
   * captured, release character ≠ terminator). Runs through segment after segment as step()
   * would, while each next segment is plain — three tag bytes at once, not UNB, not after UNZ —
   * and returns where step() takes over. tagCode is not updated: it only matters while tagLength < 3.
   */
  private scanSegments(bytes: Buffer, i: number): number {
    const n = bytes.length;
    const { terminator, release } = this;
    const tagBytes = (this.tagBytes ??= tagByteTable([
      terminator,
      release,
      this.elementSep,
      this.componentSep,
    ]));
    // Most segments cannot matter: jump to the terminator before the first UNB or UNZ, or to the
    // chunk's last segment boundary, and read segments one by one from there.
    let t =
      this.lastTag !== TAG_UNZ && !this.searchSpent && this.tagSearch() ? this.fastForward(bytes, i) : i - 1;
    for (;;) {
      // In data only the release character and the terminator matter: jump to the next
      // terminator. It is released when an odd run of release characters precedes it (a run
      // starts unreleased: at i, or after a byte that is not a release character).
      while (t < i || releaseRun(bytes, i, t, release) % 2 === 1) {
        t = bytes.indexOf(terminator, t + 1);
        if (t === -1) {
          // The chunk may end between a release character and the byte it releases.
          this.released = releaseRun(bytes, i, n, release) % 2 === 1;
          return n;
        }
      }
      // The segment ends; line breaks before the next one are skipped.
      i = t + 1;
      while (i < n && (bytes[i] === CR || bytes[i] === LF)) i++;
      if (i + 3 > n) break; // a tag split by the chunk boundary
      const a = bytes[i] as number;
      const b = bytes[i + 1] as number;
      const c = bytes[i + 2] as number;
      const plain = tagBytes[a] === 1 && tagBytes[b] === 1 && tagBytes[c] === 1;
      const tag = (a << 16) | (b << 8) | c;
      if (!plain || tag === TAG_UNB || this.lastTag === TAG_UNZ) break;
      // The tag is read: tagLength stays 3 and the loop goes on in the new segment's data.
      this.lastTag = tag;
      i += 3;
      t = i - 1;
    }
    // Before the next segment's first byte: step() reads what comes next.
    this.endSegment();
    return i;
  }

  /**
   * Whether segments may be skipped by searching for `UN` tags: not when a service character is
   * one of the letters searched for, or a line break (which the search takes as layout).
   */
  private tagSearch(): boolean {
    return (this.canSearchTags ??= [this.terminator, this.release, this.elementSep, this.componentSep].every(
      (c, k) => !tagLetters.includes(c) && (k === 0 || (c !== CR && c !== LF)),
    ));
  }

  /**
   * From inside a segment's data at `i`: the unreleased terminator that ends the segment before the
   * first segment of the chunk whose tag is UNB or UNZ, else the chunk's last unreleased
   * terminator, else i - 1 (none). Only those two tags change the verdict, and `lastTag` only
   * counts at the end of the input, whose last segment the caller still reads; a segment's tag is
   * the three bytes after its terminator and any line breaks.
   */
  private fastForward(bytes: Buffer, i: number): number {
    const n = bytes.length;
    // Found tags that start no segment (text such as "UNBOXED") are checked here; past one per
    // 64 bytes the rest of the piece is read segment by segment instead, as without the search,
    // and not searched again: every re-entry after an odd segment would search the same text.
    let misses = 1 + ((n - i) >> 6);
    let nextB = bytes.indexOf(UNB, i);
    let nextZ = bytes.indexOf(UNZ, i);
    while (nextB !== -1 || nextZ !== -1) {
      const h = nextZ === -1 || (nextB !== -1 && nextB < nextZ) ? nextB : nextZ;
      let k = h - 1;
      while (k >= i && bytes[k] !== this.terminator && (bytes[k] === CR || bytes[k] === LF)) k--;
      if (k >= i && bytes[k] === this.terminator && releaseRun(bytes, i, k, this.release) % 2 === 0) return k;
      if (--misses < 0) {
        this.searchSpent = true;
        return i - 1;
      }
      if (h === nextB) nextB = bytes.indexOf(UNB, h + 1);
      else nextZ = bytes.indexOf(UNZ, h + 1);
    }
    for (
      let t = bytes.lastIndexOf(this.terminator, n - 1);
      t >= i;
      t = bytes.lastIndexOf(this.terminator, t - 1)
    ) {
      if (releaseRun(bytes, i, t, this.release) % 2 === 0) return t;
      if (t === 0) break;
    }
    return i - 1;
  }

  private begin(): void {
    const p = this.prefix;
    // Skip a BOM, then decide on the first three letters.
    const bomLength = p.length >= 1 && p[0] === BOM[0] ? 3 : 0;
    if (bomLength > 0 && p.length <= 3) {
      if (p.some((v, i) => v !== BOM[i])) this.failed = "The body does not start with UNA or UNB.";
      return;
    }
    const head = p.slice(bomLength);
    if (head.length < 3) return;
    if (isUnaAt(head, 0)) {
      if (head.length < UNA_LENGTH) return;
      // A space advises no release character (ISO 9735): no byte releases another.
      this.useSeparators(separatorBytes(unaSeparators(head, 0)));
      this.started = true;
      this.atSegmentStart = true;
      return;
    }
    if (String.fromCharCode(...head.slice(0, 3)) !== "UNB") {
      this.failed = "The body does not start with UNA or UNB.";
      return;
    }
    this.started = true;
    this.atSegmentStart = true;
    for (const b of head) this.step(b);
  }

  private useSeparators(sep: SeparatorBytes): void {
    this.terminator = sep.terminator;
    this.release = sep.release;
    this.elementSep = sep.element;
    this.componentSep = sep.component;
  }

  private step(b: number): void {
    if (this.atSegmentStart) {
      if (b === CR || b === LF) return;
      if (this.tagLength === 0 && this.afterUnz) {
        this.failed = "Data follows UNZ: the body holds more than one interchange.";
        return;
      }
    }
    if (this.unb && !this.unbDone) {
      if (this.unb.length < maxHeaderBytes) this.unb.push(b);
    }
    if (this.released) {
      this.released = false;
      this.atSegmentStart = false;
      return;
    }
    if (b === this.release) {
      // A release character ends a tag, as a separator does: a segment's tag is the bytes right
      // after its start, none of them released (so U?'NB is no UNB), as the hot path reads it.
      if (this.tagLength < 3) this.shortTag();
      this.released = true;
      this.atSegmentStart = false;
      return;
    }
    if (b === this.terminator) {
      this.endSegment();
      return;
    }
    if (this.tagLength < 3 && b !== this.elementSep && b !== this.componentSep) {
      this.tagCode = (this.tagCode << 8) | b;
      if (++this.tagLength === 3) this.onTag(this.tagCode);
    } else if (this.tagLength < 3) this.shortTag();
    this.atSegmentStart = false;
  }

  /** A tag shorter than three characters, padded with spaces. */
  private shortTag(): void {
    while (this.tagLength < 3) {
      this.tagCode = (this.tagCode << 8) | 0x20;
      this.tagLength++;
    }
    this.onTag(this.tagCode);
  }

  private onTag(tag: number): void {
    this.lastTag = tag;
    if (tag === TAG_UNB) {
      this.unbCount++;
      if (this.unbCount > 1) {
        this.failed = "The body holds more than one interchange (UNB).";
        return;
      }
      this.unb = [...Buffer.from("UNB")];
    }
  }

  private endSegment(): void {
    if (this.unb && !this.unbDone) this.unbDone = true;
    if (this.lastTag === TAG_UNZ) this.afterUnz = true;
    this.tagLength = 0;
    this.tagCode = 0;
    this.atSegmentStart = true;
  }

  /** The verdict once every byte was pushed. */
  finish(): InterchangeScanResult {
    if (this.failed) return { ok: false, reason: this.failed };
    if (this.total === 0) return { ok: false, reason: "The body is empty." };
    if (!this.started) return { ok: false, reason: "The body does not start with UNA or UNB." };
    if (this.unbCount === 0) return { ok: false, reason: "The body holds no UNB." };
    if (this.lastTag !== TAG_UNZ) return { ok: false, reason: "The interchange does not end with UNZ." };
    const interchangeId = this.readControlRef();
    return interchangeId ? { ok: true, interchangeId } : { ok: true };
  }

  /** UNB 0020: the fifth data element, release characters removed. */
  private readControlRef(): string | undefined {
    if (!this.unb) return undefined;
    const elements: number[][] = [[]];
    let released = false;
    let component = 0;
    for (const b of this.unb) {
      if (released) {
        if (component === 0) elements[elements.length - 1]?.push(b);
        released = false;
      } else if (b === this.release) released = true;
      else if (b === this.terminator) break;
      else if (b === this.elementSep) {
        elements.push([]);
        component = 0;
      } else if (b === this.componentSep) component++;
      else if (component === 0) elements[elements.length - 1]?.push(b);
    }
    const ref = elements[5];
    if (!ref || ref.length === 0) return undefined;
    const text = Buffer.from(ref).toString("latin1");
    return /^[\x20-\x7e]{1,35}$/.test(text) ? text : undefined;
  }
}

export function scanInterchange(bytes: Uint8Array): InterchangeScanResult {
  const scanner = new InterchangeScanner();
  scanner.push(bytes);
  return scanner.finish();
}
