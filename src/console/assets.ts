import { readdir, readFile } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The console's browser files: one folder next to this module, in src/ as in a compiled dist/. */
export const assetsDirectory = fileURLToPath(new URL("./assets/", import.meta.url));

const mediaTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

export interface Asset {
  body: Buffer;
  type: string;
}

/** Every file of the assets folder by its path under it (`pages/uploads.js`), read once at start. */
export async function loadAssets(directory = assetsDirectory): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    const type = mediaTypes[extname(entry.name)];
    if (!entry.isFile() || !type) continue;
    const path = join(entry.parentPath, entry.name);
    assets.set(relative(directory, path).split(sep).join("/"), { body: await readFile(path), type });
  }
  return assets;
}
