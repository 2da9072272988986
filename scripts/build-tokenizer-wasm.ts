/**
 * Assembles the tokenizer's WebAssembly hot loop (src/edifact/syntax/tokenizer.wat) into
 * src/edifact/syntax/tokenizer.wasm.ts, which the engine imports (no file is read at run time).
 *
 *   npm run build:wasm
 *
 * A test (tokenizer.wasm.test.ts) assembles the .wat again and fails when the committed module
 * differs, so the two cannot drift apart.
 */
import { writeFileSync } from "node:fs";
import { assembleTokenizer, generatedModuleSource } from "./tokenizer-wasm.js";

const target = new URL("../src/edifact/syntax/tokenizer.wasm.ts", import.meta.url);
writeFileSync(target, generatedModuleSource(await assembleTokenizer()));
console.log(`wrote ${target.pathname}`);
