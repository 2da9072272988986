#!/usr/bin/env node
// Runs the built JavaScript in dist/ (`npm run build`; `npm start` builds first).
import { existsSync } from "node:fs";

const main = new URL("../dist/main.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write("hanse is not built yet: run `npm run build` in its directory first\n");
  process.exit(1);
}
await import(main.href);
