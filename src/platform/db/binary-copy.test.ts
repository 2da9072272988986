import { describe, expect, it } from "vitest";
import { BinaryCopyError, BinaryCopyParser, type CopyRow } from "./binary-copy.js";

const signature = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
const int16 = (v: number) => Buffer.from([(v >> 8) & 0xff, v & 0xff]);
const int32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};

/** A binary COPY stream as PostgreSQL documents it (header, tuples, trailer). */
function stream(rows: CopyRow[], extension = Buffer.alloc(0)): Buffer {
  const parts = [signature, int32(0), int32(extension.length), extension];
  for (const row of rows) {
    parts.push(int16(row.length));
    for (const field of row)
      parts.push(field === null ? int32(-1) : Buffer.concat([int32(field.length), field]));
  }
  parts.push(int16(-1));
  return Buffer.concat(parts);
}

const rows: CopyRow[] = [
  [int32(0), Buffer.from("first chunk")],
  [int32(1), null],
  [int32(2), Buffer.alloc(0)],
  [int32(3), Buffer.from([0, 0xff, 0x27, 0x5c])],
];

const asArrays = (parsed: CopyRow[]) => parsed.map((r) => r.map((f) => (f === null ? null : [...f])));

describe("BinaryCopyParser", () => {
  it("reads every tuple, NULL and empty fields included, from one piece", () => {
    const parser = new BinaryCopyParser();
    expect(asArrays(parser.push(stream(rows)))).toEqual(asArrays(rows));
    expect(parser.complete).toBe(true);
  });

  it("reads the same tuples whatever the pieces the stream is cut into (every cut point)", () => {
    const whole = stream(rows, Buffer.from("ext"));
    for (let cut = 0; cut <= whole.length; cut++) {
      const parser = new BinaryCopyParser();
      const parsed = [...parser.push(whole.subarray(0, cut)), ...parser.push(whole.subarray(cut))];
      expect(asArrays(parsed), `cut at ${cut}`).toEqual(asArrays(rows));
      expect(parser.complete).toBe(true);
    }
  });

  it("reads a stream fed one byte at a time", () => {
    const whole = stream(rows);
    const parser = new BinaryCopyParser();
    const parsed: CopyRow[] = [];
    for (let i = 0; i < whole.length; i++) parsed.push(...parser.push(whole.subarray(i, i + 1)));
    expect(asArrays(parsed)).toEqual(asArrays(rows));
  });

  it("is not complete before the trailer", () => {
    const whole = stream(rows);
    const parser = new BinaryCopyParser();
    expect(parser.push(whole.subarray(0, whole.length - 2))).toHaveLength(rows.length);
    expect(parser.complete).toBe(false);
  });

  it("refuses data that is not binary COPY, negative lengths and bytes after the trailer", () => {
    expect(() => new BinaryCopyParser().push(Buffer.from("id\tdata\n"))).toThrow(BinaryCopyError);
    const negative = Buffer.concat([signature, int32(0), int32(0), int16(1), int32(-7)]);
    expect(() => new BinaryCopyParser().push(negative)).toThrow(/length -7/);
    const trailing = Buffer.concat([stream([]), Buffer.from("x")]);
    expect(() => new BinaryCopyParser().push(trailing)).toThrow(/after its trailer/);
    const parser = new BinaryCopyParser();
    parser.push(stream([]));
    expect(() => parser.push(Buffer.from("x"))).toThrow(/after its trailer/);
  });
});
