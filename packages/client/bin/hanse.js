#!/usr/bin/env node
// The command-line client: the built JavaScript in dist/ (`npm run build` in a checkout; the
// published package ships it). Node's compile cache keeps later starts fast.
import { existsSync } from "node:fs";
import module from "node:module";

const main = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write("@hanse/client is not built: run `npm run build` in the Hanse checkout first\n");
  process.exit(1);
}
module.enableCompileCache?.();
await import(main.href);
