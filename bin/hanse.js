#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so `npx hanse` works right after `npm install`.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
