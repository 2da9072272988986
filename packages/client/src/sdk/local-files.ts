import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
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

/**
 * The parsed JSON of a file the program keeps (state, credentials): undefined when it does not
 * exist, `invalid()` thrown when it is not JSON (the caller's message, never the content).
 */
export async function readJsonFile(path: string, invalid: () => Error): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid();
  }
}

/**
 * Replaces `path` atomically: the text goes to a new temporary file beside it (mode 0600 unless
 * said otherwise), is flushed to disk, and is renamed over `path`, so a reader or a process killed
 * at any moment sees the previous content or the new one, never part of it. The directory is
 * flushed too (where the platform allows), so the rename itself survives a power loss.
 */
export async function writeFileAtomic(path: string, text: string, mode = 0o600): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const file = await open(temporary, "wx", mode);
    try {
      await file.chmod(mode); // exactly `mode`, whatever the umask
      await file.writeFile(text, "utf8");
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(dirname(path));
}

async function syncDirectory(path: string): Promise<void> {
  let directory;
  try {
    directory = await open(path, "r");
    await directory.sync();
  } catch {
    // Some platforms cannot open or flush a directory; the rename is still atomic there.
  } finally {
    await directory?.close();
  }
}
