// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- the test reads the committed module; the library itself does no I/O
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { assemble, generatedModuleSource, targetUrl, wasmModules } from "../../scripts/wasm-modules.js";
import {
  BYTE_CLASS,
  expandWat,
  MESSAGE_IMAGE_FIELDS,
  MESSAGE_IMAGE_INTS,
  TOKENIZER_MEMORY,
  TOKENIZER_STATE,
  VALUE_SLOT,
  watConstants,
} from "./wasm-layout.js";

const template = (wat: string): string => readFileSync(new URL(`../../${wat}`, import.meta.url), "utf8");

describe("the engine's WebAssembly modules", () => {
  for (const source of wasmModules) {
    it(`${source.target} is what ${source.wat} assembles to with the numbers of wasm-layout.ts (run \`npm run build:wasm\` after changing either)`, async () => {
      const committed = readFileSync(targetUrl(source), "utf8");
      expect(committed).toBe(generatedModuleSource(source, await assemble(source)));
    });

    it(`${source.wat} takes its addresses and encodings from the table, not from numbers of its own`, () => {
      const text = template(source.wat);
      // No absolute address written as a number: the state slots and regions are all named.
      expect(text).not.toMatch(/\((?:i32|i64|f64|v128)\.(?:load|store)\w* \(i32\.const \d/);
      // No number that the table names, where it is distinctive enough to recognise (from 256 on).
      const code = text.replace(/;;.*$/gm, "");
      const literals = new Set(
        [...code.matchAll(/\b(0x[0-9a-f]+|\d+)\b/gi)].map((m) => Number(m[1])).filter((n) => n >= 256),
      );
      const named = [...watConstants()].filter(([, value]) => literals.has(value));
      expect(named, "write these as {{name}}").toEqual([]);
    });
  }

  it("a name the table lacks does not assemble", () => {
    expect(() => expandWat("(i32.const {{state.nope}})")).toThrow("unknown layout constant {{state.nope}}");
    expect(expandWat("(i32.load (i32.const {{state.start}}))")).toBe(
      `(i32.load (i32.const ${TOKENIZER_MEMORY.state + 4 * TOKENIZER_STATE.start}))`,
    );
  });

  it("the table is consistent: regions in order and apart, slots inside the state, fields inside their records", () => {
    // tokenizer.wat tests class `data` with eqz, and a fresh class table is zero-filled data.
    expect(BYTE_CLASS.data).toBe(0);
    const m = TOKENIZER_MEMORY;
    expect(m.nibblesLow).toBeGreaterThanOrEqual(m.classes + 256);
    expect(m.nibblesHigh).toBeGreaterThanOrEqual(m.nibblesLow + 16);
    expect(m.state).toBeGreaterThanOrEqual(m.nibblesHigh + 16);
    expect(Math.max(...Object.values(TOKENIZER_STATE))).toBeLessThan(m.stateSlots);
    expect(m.input).toBeGreaterThanOrEqual(m.state + 4 * m.stateSlots);
    expect(m.window % 16).toBe(0);
    const regions = [m.input + m.window + 16, m.ts, m.ti, m.se, m.st, m.bl, m.ri, m.bytes];
    expect([...regions].sort((a, b) => a - b)).toEqual(regions);
    expect(MESSAGE_IMAGE_INTS).toBeGreaterThanOrEqual(MESSAGE_IMAGE_FIELDS.length);
    expect(1 << VALUE_SLOT.shift).toBe(4 * VALUE_SLOT.ints);
  });
});
