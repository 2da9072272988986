import { existsSync, statSync } from "node:fs";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeDirectory } from "./local-files.js";

describe("makeDirectory (mkdir -p that never hangs)", async () => {
  const root = await mkdtemp(join(tmpdir(), "hanse-dirs-"));
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("makes every missing level, and accepts a directory that exists", async () => {
    const path = join(root, "a", "b", "c");
    await makeDirectory(path);
    expect(statSync(path).isDirectory()).toBe(true);
    await expect(makeDirectory(path)).resolves.toBeUndefined();
  });

  it("applies the mode to the levels it makes", async () => {
    const path = join(root, "private", "inner");
    await makeDirectory(path, 0o700);
    expect(statSync(path).mode & 0o777).toBe(0o700);
  });

  it("fails with ENOTDIR or EEXIST when a file is in the way", async () => {
    const file = join(root, "file");
    await writeFile(file, "x");
    await expect(makeDirectory(file)).rejects.toMatchObject({ code: "EEXIST" });
    await expect(makeDirectory(join(file, "below"))).rejects.toMatchObject({ code: "ENOTDIR" });
  });

  it("fails with ENOENT below a dangling symlink (node's recursive mkdir never settles there)", async () => {
    const link = join(root, "dangling");
    await symlink(join(root, "nowhere"), link);
    await expect(makeDirectory(join(link, "out", "deeper"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it.skipIf(!existsSync("/proc/self"))("fails with ENOENT under /proc", async () => {
    await expect(makeDirectory("/proc/hanse-test/out")).rejects.toMatchObject({ code: "ENOENT" });
  });
});
