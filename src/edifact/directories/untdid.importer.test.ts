// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- tests read fixtures; the library itself does no I/O
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { getCompactDirectory } from "./directory.registry.js";
import { loadDirectory } from "./directory.loader.js";
import { importDirectory, parseMessageStructure } from "./untdid.importer.js";
import { readZipDeep } from "./zip.reader.js";
import { absent, directoriesDir, hasDirectories } from "../../../test/support/shared-data.js";

/** A minimal zip writer for tests (stored or deflated entries). */
function zip(entries: { name: string; data: Uint8Array; deflate?: boolean }[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const body = e.deflate ? deflateRawSync(e.data) : Buffer.from(e.data);
    const name = Buffer.from(e.name, "latin1");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(e.deflate ? 8 : 0, 8);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(e.deflate ? 8 : 0, 10);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

describe("zip reader", () => {
  it("reads stored and deflated entries, and zips nested in zips", () => {
    const inner = zip([{ name: "TRSD.96A", data: Buffer.from("segments"), deflate: true }]);
    const outer = zip([
      { name: "README.TXT", data: Buffer.from("hello") },
      { name: "TRSD.ZIP", data: inner, deflate: true },
    ]);
    expect(readZipDeep(outer).map((e) => [e.name, Buffer.from(e.bytes).toString()])).toEqual([
      ["README.TXT", "hello"],
      ["TRSD.ZIP/TRSD.96A", "segments"],
    ]);
  });

  it("refuses bytes that are not a zip", () => {
    expect(() => importDirectory(Buffer.from("not a zip at all, not even close"))).toThrow(/zip/);
  });
});

describe("segment table reader", () => {
  it("nests groups from the closing corners of both layouts", () => {
    const table = [
      "4.3.1  Segment table",
      "00010   UNH Message header                           M   1     ",
      "00020       ---- Segment group 1  ------------------ C   9----------------+",
      "00030   RFF Reference                                M   1                |",
      "00040       ---- Segment group 2  ------------------ C   5---------------+|",
      "00050   DTM Date/time/period                         C   5---------------++",
      "00060   UNT Message trailer                          M   1     ",
    ].join("\n");
    expect(parseMessageStructure(table)).toEqual([
      ["UNH", "M", 1],
      [
        "SG1",
        "C",
        9,
        [
          ["RFF", "M", 1],
          ["SG2", "C", 5, [["DTM", "C", 5]]],
        ],
      ],
      ["UNT", "M", 1],
    ]);
  });
});

describe.skipIf(!hasDirectories)(
  `official releases (${hasDirectories ? directoriesDir : absent(directoriesDir)})`,
  () => {
    it("imports the modern D.18A layout (EDMD/EDSD/EDCD/EDED/UNCL) into ORDERS definitions", () => {
      const compact = importDirectory(readFileSync(join(directoriesDir, "d18a.zip")));
      const dir = loadDirectory(compact);
      expect(dir.id).toBe("D18A");
      const orders = dir.messages.get("ORDERS");
      expect(orders?.structure.slice(0, 3)).toEqual([
        { kind: "segment", tag: "UNH", status: "M", max: 1 },
        { kind: "segment", tag: "BGM", status: "M", max: 1 },
        { kind: "segment", tag: "DTM", status: "M", max: 35 },
      ]);
      const bgm = dir.segments.get("BGM");
      expect(bgm?.elements.map((e) => e.def.id)).toEqual(["C002", "C106", "1225", "4343", "1373", "3453"]);
      const nad = dir.segments.get("NAD");
      const c059 = nad?.elements[4]?.def;
      expect(c059?.kind === "composite" && c059.components[0]?.element.format).toEqual({
        type: "an",
        min: 1,
        max: 256,
      });
      expect(dir.segments.get("LIN")?.elements[2]?.def.kind).toBe("composite");
      const c = compact.codes;
      expect(c["1225"]?.["29"]).toBe("Accepted without amendment");
      expect(Object.keys(c["1229"] ?? {})).toContain("7");
      expect(Object.keys(c["7143"] ?? {})).toContain("SRV");
    });

    it("reproduces the committed D96A definitions from the official D.96A release", () => {
      const imported = importDirectory(readFileSync(join(directoriesDir, "d96a.zip")));
      expect(imported).toEqual(getCompactDirectory("D96A"));
    });
  },
);
