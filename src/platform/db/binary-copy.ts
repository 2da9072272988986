/**
 * PostgreSQL's binary COPY format (`COPY … TO … (FORMAT binary)`), read incrementally: every field
 * arrives as its raw bytes (a bytea value as itself, an integer big-endian), so large values cross
 * from the database without the text round trip that every other result column takes through the
 * drivers (hex or base64 encoded by the server, decoded to a string and back to bytes here).
 *
 * Layout: an 11-byte signature, a 32-bit flags field, a 32-bit header extension length and the
 * extension; then tuples, each a 16-bit field count and per field a 32-bit length (-1 for NULL)
 * and the bytes; then a trailer, a field count of -1. All integers are big-endian.
 */

/** One tuple: its fields' bytes, null for NULL. */
export type CopyRow = (Buffer | null)[];

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
/** Signature, flags and header extension length. */
const HEADER_BYTES = SIGNATURE.length + 8;

export class BinaryCopyError extends Error {
  override readonly name = "BinaryCopyError";
}

/**
 * Feed it the stream's pieces in order (`push`), wherever they were cut; it answers the tuples
 * completed so far. Fields are views of the pieces (no copy) unless a tuple spans two pieces.
 */
export class BinaryCopyParser {
  /** Bytes of an incomplete header or tuple, waiting for the next piece. */
  private rest: Buffer | undefined;
  private headerRead = false;
  private trailerRead = false;

  /** True once the trailer has been read: the stream is complete. */
  get complete(): boolean {
    return this.trailerRead;
  }

  push(piece: Buffer): CopyRow[] {
    if (this.trailerRead) {
      if (piece.length === 0) return [];
      throw new BinaryCopyError("binary COPY data after its trailer");
    }
    const buf = this.rest ? Buffer.concat([this.rest, piece]) : piece;
    this.rest = undefined;
    let pos = 0;
    if (!this.headerRead) {
      const end = headerEnd(buf);
      if (end < 0) {
        this.rest = buf;
        return [];
      }
      pos = end;
      this.headerRead = true;
    }
    const rows: CopyRow[] = [];
    while (pos < buf.length) {
      if (pos + 2 > buf.length) break;
      const count = buf.readInt16BE(pos);
      if (count === -1) {
        this.trailerRead = true;
        if (pos + 2 !== buf.length) throw new BinaryCopyError("binary COPY data after its trailer");
        return rows;
      }
      if (count < 0) throw new BinaryCopyError(`binary COPY tuple with ${count} fields`);
      const row = tupleAt(buf, pos + 2, count);
      if (!row) break;
      rows.push(row.fields);
      pos = row.end;
    }
    if (pos < buf.length) this.rest = buf.subarray(pos);
    return rows;
  }
}

/** Offset just past the header, or -1 when `buf` does not hold all of it yet. */
function headerEnd(buf: Buffer): number {
  const signature = Math.min(buf.length, SIGNATURE.length);
  if (!buf.subarray(0, signature).equals(SIGNATURE.subarray(0, signature))) {
    throw new BinaryCopyError("not binary COPY data (signature)");
  }
  if (buf.length < HEADER_BYTES) return -1;
  const extension = buf.readInt32BE(SIGNATURE.length + 4);
  if (extension < 0) throw new BinaryCopyError("binary COPY header extension of negative length");
  const end = HEADER_BYTES + extension;
  return buf.length < end ? -1 : end;
}

/** The tuple whose fields start at `pos`, or undefined when `buf` ends inside it. */
function tupleAt(buf: Buffer, pos: number, count: number): { fields: CopyRow; end: number } | undefined {
  const fields: CopyRow = [];
  for (let i = 0; i < count; i++) {
    if (pos + 4 > buf.length) return undefined;
    const length = buf.readInt32BE(pos);
    pos += 4;
    if (length === -1) {
      fields.push(null);
      continue;
    }
    if (length < 0) throw new BinaryCopyError(`binary COPY field of length ${length}`);
    if (pos + length > buf.length) return undefined;
    fields.push(buf.subarray(pos, pos + length));
    pos += length;
  }
  return { fields, end: pos };
}
