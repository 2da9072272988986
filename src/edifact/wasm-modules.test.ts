// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- the test reads the committed module; the library itself does no I/O
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { assemble, generatedModuleSource, targetUrl, wasmModules } from "../../scripts/wasm-modules.js";

describe("the engine's WebAssembly modules", () => {
  for (const source of wasmModules) {
    it(`${source.target} is what ${source.wat} assembles to (run \`npm run build:wasm\` after changing the .wat)`, async () => {
      const committed = readFileSync(targetUrl(source), "utf8");
      expect(committed).toBe(generatedModuleSource(source, await assemble(source)));
    });
  }
});
