/** Bytes per WebAssembly memory page. */
export const WASM_PAGE = 65536;

/** The part of a WebAssembly memory the engine uses (this project's TypeScript libraries omit the API). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}

/**
 * Instantiates one of the engine's modules, committed as base64 (nothing is read from disk),
 * with a fresh memory of at least `bytes` bytes that the module imports as `env.memory`.
 */
export function instantiate(
  base64: string,
  bytes: number,
): { readonly exports: Record<string, unknown>; readonly memory: WasmMemory } {
  // The global exists on every Node; only its type is missing from the libraries (see WasmApi).
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const module = new wasm.Module(Buffer.from(base64, "base64"));
  const memory = new wasm.Memory({ initial: Math.ceil(bytes / WASM_PAGE) });
  const instance = new wasm.Instance(module, { env: { memory } });
  return { exports: instance.exports, memory };
}
