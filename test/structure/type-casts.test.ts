import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Issue 36 item 4: the types hold across modules without casts. A cast that silences the checker
// (`as never`, `as unknown as`) is allowed in the server's and the client's code only where a
// comment right above it says why the checker cannot see what holds (a library's missing type, a
// JSON import); a transaction passed to another part takes its slice through `tablesOf`.
const roots = ["../../src/", "../../packages/client/src/"].map((path) => new URL(path, import.meta.url));
const cast = /\bas never\b|\bas unknown as\b/;

function sourceFiles(dir: URL): URL[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return sourceFiles(new URL(`${entry.name}/`, dir));
    const isSource = entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts");
    return isSource ? [new URL(entry.name, dir)] : [];
  });
}

/** `name:line` of every cast in `text` without a comment on one of the three lines above it. */
function unexplainedCasts(text: string, name: string): string[] {
  const lines = text.split("\n");
  return lines.flatMap((line, index) => {
    if (!cast.test(line) || line.trimStart().startsWith("//") || line.trimStart().startsWith("*")) return [];
    const explained = lines.slice(Math.max(0, index - 3), index).some((above) => /^\s*(\/\/|\*)/.test(above));
    return explained ? [] : [`${name}:${index + 1}`];
  });
}

describe("casts in the server's and the client's code", () => {
  it("every `as never` and `as unknown as` outside tests has a comment right above it that says why", () => {
    const files = roots.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => unexplainedCasts(readFileSync(file, "utf8"), file.pathname));
    expect(found).toEqual([]);
  });

  it("the check finds a cast without a comment and accepts one with its reason above", () => {
    const code = ["const a = 1;", "const b = 2;", "const c = 3;", "const x = y as unknown as Z;"];
    expect(unexplainedCasts(code.join("\n"), "f.ts")).toEqual(["f.ts:4"]);
    expect(unexplainedCasts(["run(trx as never);"].join("\n"), "g.ts")).toEqual(["g.ts:1"]);
    const explained = ["// the library's type omits it", "const x = y as unknown as Z;"];
    expect(unexplainedCasts(explained.join("\n"), "h.ts")).toEqual([]);
  });
});
