import { mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** One `mkdir`; an existing directory counts as made. */
async function makeOne(path: string, mode: number | undefined): Promise<void> {
  try {
    await mkdir(path, mode === undefined ? {} : { mode });
  } catch (error) {
    if (errorCode(error) === "EEXIST" && (await stat(path)).isDirectory()) return;
    throw error;
  }
}

/**
 * `mkdir -p` that fails instead of hanging. Node's `mkdir(…, { recursive: true })` never settles
 * when a parent exists but answers ENOENT for any child — every path under `/proc`, a dangling
 * symlink — because it keeps going back to create the parent (it spins in a libuv thread). This
 * walks up once per ENOENT, then down, and rethrows when a directory still cannot be made after
 * its parent exists.
 */
export async function makeDirectory(path: string, mode?: number): Promise<void> {
  try {
    await makeOne(path, mode);
    return;
  } catch (error) {
    const parent = dirname(path);
    if (errorCode(error) !== "ENOENT" || parent === path) throw error;
    await makeDirectory(parent, mode);
  }
  await makeOne(path, mode);
}
