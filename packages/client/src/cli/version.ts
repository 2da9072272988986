import { readFileSync } from "node:fs";

/** The client package's version (`hanse --version`), from its package.json (src/ and dist/ sit beside it). */
export const clientVersion: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;
