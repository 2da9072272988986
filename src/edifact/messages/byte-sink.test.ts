import { describe, expect, it } from "vitest";
import { parseInterchange } from "../envelope/interchange.parser.js";
import { toInterchange } from "../envelope/interchange.model.js";
import type { Interchange } from "../envelope/interchange.types.js";
import type { SyntaxIdentifier } from "../syntax/charset.js";
import { serializeInterchange } from "./serializer.js";

/** Characters each repertoire carries, of every UTF-8 length the repertoire has. */
const CHARACTERS: Record<SyntaxIdentifier, string[]> = {
  UNOA: ["A"],
  UNOB: ["a"],
  UNOC: ["A", "é"],
  UNOD: ["A", "ł"],
  UNOE: ["A", "Ж"],
  UNOF: ["A", "Ω"],
  UNOW: ["A", "é", "€", "😀"],
  UNOY: ["A", "é", "€", "😀"],
};

const interchange = (id: SyntaxIdentifier, text: string): Interchange => ({
  syntax: { identifier: id, version: 4 },
  sender: { id: "A" },
  recipient: { id: "B" },
  date: "20250101",
  time: "1200",
  controlRef: "1",
  messages: [
    {
      ref: "1",
      identifier: { type: "ORDERS", version: "D", release: "96A", agency: "UN" },
      segments: [{ tag: "FTX", elements: [["AAI"], [""], [""], [text]] }],
    },
  ],
});

describe("issue 20 defect 3: the serializer writes no NUL bytes across its 64 KiB chunks", () => {
  for (const [id, characters] of Object.entries(CHARACTERS) as [SyntaxIdentifier, string[]][]) {
    for (const character of characters) {
      // 70,000 characters cross at least one chunk boundary; the padding moves where.
      for (const padding of [0, 1, 2, 3]) {
        const bytes = new TextEncoder().encode(character).length;
        it(`${id}: "${character}" (${bytes} byte(s) in UTF-8) × 70,000 after ${padding} padding character(s)`, () => {
          const text = "P".repeat(padding) + character.repeat(70_000);
          const ic = interchange(id, text);
          const out = serializeInterchange(ic);
          expect(out.indexOf(0)).toBe(-1);
          const parsed = parseInterchange(out);
          expect(parsed.issues).toEqual([]);
          expect(toInterchange(parsed.interchange)?.messages).toEqual(ic.messages);
        });
      }
    }
  }

  it("UNOY: every UTF-8 length mixed, one long value per component", () => {
    const text = "A€é😀".repeat(20_000);
    const ic = interchange("UNOY", text);
    const out = serializeInterchange(ic);
    expect(out.indexOf(0)).toBe(-1);
    expect(toInterchange(parseInterchange(out).interchange)?.messages).toEqual(ic.messages);
  });
});
