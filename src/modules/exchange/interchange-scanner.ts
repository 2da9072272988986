/**
 * The synchronous upload check (CONTRACT §4): the body is exactly one interchange — it starts
 * with `UNA` or `UNB` (after an optional UTF-8 BOM) and holds one `UNB` … `UNZ`. Fed chunk by
 * chunk while the upload streams, so no payload is held; everything else is left to the
 * EDIFACT engine and reported through CONTRL/APERAK. Also captures UNB 0020.
 */
export interface ScanResult {
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

export class InterchangeScanner {
  private prefix: number[] = [];
  private started = false;
  private failed: string | undefined;
  private terminator = 0x27; // '
  private release = 0x3f; // ?
  private elementSep = 0x2b; // +
  private componentSep = 0x3a; // :
  private unaLeft = 0;
  private atSegmentStart = true;
  /** Bytes of the current segment's tag seen so far (0–3) and their packed value. */
  private tagLength = 0;
  private tagCode = 0;
  private released = false;
  private unbCount = 0;
  private lastTag = -1;
  private afterUnz = false;
  private unb: number[] | undefined;
  private unbDone = false;
  private total = 0;

  push(bytes: Uint8Array): void {
    const n = bytes.length;
    let release = -2; // position of the next release character at or after i; -2: not looked up
    let i = 0;
    while (i < n) {
      if (this.failed) return;
      if (this.started && !this.released) {
        if (this.atSegmentStart) {
          // Line breaks between segments are skipped (as step() would, one by one).
          let j = i;
          while (j < n && (bytes[j] === CR || bytes[j] === LF)) j++;
          this.total += j - i;
          i = j;
          if (i === n) return;
        } else if (this.tagLength === 3 && (!this.unb || this.unbDone)) {
          // Inside a segment's data only the release character and the terminator matter:
          // jump to the nearer one with a native search instead of stepping every byte.
          if (release !== -1 && release < i) release = bytes.indexOf(this.release, i);
          const terminator = bytes.indexOf(this.terminator, i);
          const next =
            terminator === -1 ? release : release === -1 ? terminator : Math.min(release, terminator);
          if (next === -1) {
            this.total += n - i;
            return;
          }
          this.total += next - i;
          i = next;
        }
      }
      const b = bytes[i] as number;
      i++;
      this.total++;
      if (!this.started) {
        this.prefix.push(b);
        this.begin();
        continue;
      }
      this.step(b);
    }
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
    const start = String.fromCharCode(...head.slice(0, 3));
    if (start === "UNA") {
      if (head.length < 9) return;
      this.componentSep = head[3] as number;
      this.elementSep = head[4] as number;
      this.release = head[6] as number;
      this.terminator = head[8] as number;
      this.started = true;
      this.atSegmentStart = true;
      return;
    }
    if (start !== "UNB") {
      this.failed = "The body does not start with UNA or UNB.";
      return;
    }
    this.started = true;
    this.atSegmentStart = true;
    for (const b of head) this.step(b);
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
    } else if (this.tagLength < 3) {
      // A tag shorter than three characters, padded with spaces.
      while (this.tagLength < 3) {
        this.tagCode = (this.tagCode << 8) | 0x20;
        this.tagLength++;
      }
      this.onTag(this.tagCode);
    }
    this.atSegmentStart = false;
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
  finish(): ScanResult {
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

export function scanInterchange(bytes: Uint8Array): ScanResult {
  const scanner = new InterchangeScanner();
  scanner.push(bytes);
  return scanner.finish();
}
