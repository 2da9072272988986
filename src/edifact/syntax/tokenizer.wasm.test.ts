import { describe, expect, it } from "vitest";
import { assembleTokenizer } from "../../../scripts/tokenizer-wasm.js";
import { tokenizerWasmBase64 } from "./tokenizer.wasm.js";

describe("the tokenizer's WebAssembly module", () => {
  it("is what tokenizer.wat assembles to (run `npm run build:wasm` after changing the .wat)", async () => {
    const assembled = Buffer.from(await assembleTokenizer());
    expect(Buffer.from(tokenizerWasmBase64, "base64").equals(assembled)).toBe(true);
  });
});
