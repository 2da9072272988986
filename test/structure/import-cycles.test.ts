import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../src");

/** Every source file of `src/` (tests aside) and the files it imports relatively, type imports included. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
        const text = readFileSync(path, "utf8");
        const targets = [...text.matchAll(/\bfrom\s+"(\.{1,2}\/[^"]+)"/g)].map((m) =>
          normalize(join(dirname(path), m[1] ?? "")).replace(/\.js$/, ".ts"),
        );
        graph.set(path, targets);
      }
    }
  };
  walk(root);
  return graph;
}

/** The groups of files that import each other in a ring (strongly connected components of 2+). */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      for (;;) {
        const w = stack.pop() as string;
        onStack.delete(w);
        group.push(w);
        if (w === v) break;
      }
      if (group.length > 1) cycles.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe("structure: no import cycles in src/ (issue 23)", () => {
  it("finds a planted cycle, type imports included", () => {
    const planted = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(importCycles(planted)).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it("no two source files of src/ import each other, directly or around a ring", () => {
    const cycles = importCycles(importGraph()).map((group) => group.map((file) => relative(root, file)));
    expect(cycles).toEqual([]);
  });
});
