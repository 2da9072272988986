/**
 * Assembles the engine's WebAssembly sources (src/edifact/syntax/tokenizer.wat and
 * src/edifact/validation/segment-check.wat) into the TypeScript modules the engine imports
 * (no file is read at run time).
 *
 *   npm run build:wasm
 *
 * A test (src/edifact/wasm-modules.test.ts) assembles each .wat again and fails when the
 * committed module differs, so the two cannot drift apart.
 */
import { writeFileSync } from "node:fs";
import { assemble, generatedModuleSource, targetUrl, wasmModules } from "./wasm-modules.js";

for (const source of wasmModules) {
  const target = targetUrl(source);
  writeFileSync(target, generatedModuleSource(source, await assemble(source)));
  console.log(`wrote ${target.pathname}`);
}
