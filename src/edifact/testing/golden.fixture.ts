// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- tests read fixtures; the library itself does no I/O
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";

/** Compares bytes with a golden file; `UPDATE_GOLDEN=1` (re)writes it after a deliberate change. */
export function expectGolden(dir: string, name: string, actual: Uint8Array): void {
  const file = join(dir, "__golden__", name);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(file, actual);
  if (!existsSync(file))
    throw new Error(`Golden file ${file} is missing; run with UPDATE_GOLDEN=1 to create it`);
  expect(Buffer.from(actual).toString("latin1")).toBe(readFileSync(file).toString("latin1"));
  expect(Buffer.compare(Buffer.from(actual), readFileSync(file))).toBe(0);
}
