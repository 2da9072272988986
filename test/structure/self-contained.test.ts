import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Issue 36 item 6: the repository is self-contained. The rules the code follows are stated in
 * docs/rules/ (the customer's interface and contract, with the customer's numbering), and code,
 * tests and docs cite them there (`rules/contract §7`, `rules/interface C rule 3`; see
 * docs/rules/README.md), never the customer's files beside the clone. Only
 * test/support/shared-data.ts knows where the customer's corpus and the directory releases are.
 */
const root = join(import.meta.dirname, "../..");
const scanned = [
  "src",
  "packages",
  "test",
  "bench",
  "scripts",
  "examples",
  "docs",
  "README.md",
  "CHANGELOG.md",
];
const notScanned = new Set([
  "test/structure/self-contained.test.ts", // names what it looks for
]);
const binary = /\.(png|jpe?g|gif|ico|zip|wasm|gz|tgz|woff2?)$/;

function files(): string[] {
  const out: string[] = [];
  for (const start of scanned) {
    const full = join(root, start);
    const entries = start.endsWith(".md")
      ? [full]
      : readdirSync(full, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => join(e.parentPath, e.name));
    for (const path of entries) {
      const name = relative(root, path).split("\\").join("/");
      if (/(^|\/)(node_modules|dist)\//.test(name) || binary.test(name) || notScanned.has(name)) continue;
      out.push(name);
    }
  }
  return out.sort();
}

/** The § numbers of docs/rules/contract.md and the area rules of docs/rules/interface.md. */
export function rulesIndex(contract: string, iface: string) {
  return {
    sections: new Set([...contract.matchAll(/^#+ §(\d+[a-z]?)\. /gm)].map((m) => m[1] ?? "")),
    areas: new Set([...iface.matchAll(/^### ([A-D])\. /gm)].map((m) => m[1] ?? "")),
    rules: new Set(
      [...iface.matchAll(/^- \*\*([A-D]) rule (\d+)\.\*\*/gm)].map((m) => `${m[1]} rule ${m[2]}`),
    ),
    headings: new Set([...iface.matchAll(/^## (\S+)/gm)].map((m) => m[1] ?? "")),
  };
}

const continuation = String.raw`\s*(?:\*|\/\/|#)?\s*`; // a citation wrapped onto the next comment line

/** What in one file points outside the repository, or cites a rule docs/rules does not have. */
export function findings(name: string, text: string, index: ReturnType<typeof rulesIndex>): string[] {
  const out: string[] = [];
  const lines = text.split("\n");
  const lineOf = (offset: number): number => text.slice(0, offset).split("\n").length;
  const report = (offset: number, what: string): void => {
    out.push(`${name}:${lineOf(offset)}: ${what}`);
  };
  const inRules = name.startsWith("docs/rules/");
  const outside: [RegExp, string][] = [
    [/CONTRACT\.md/g, "names the customer's CONTRACT.md (cite docs/rules/contract.md: rules/contract §n)"],
    [new RegExp(`CONTRACT${continuation}§`, "g"), "cites CONTRACT §n (write rules/contract §n)"],
    [/\bspec (?:part )?[A-D]\b/g, "cites the customer's spec (write rules/interface X rule n)"],
    [/\bDESIGN\.md\b/g, "names the design guide beside the clone (state the point in docs/architecture.md)"],
  ];
  if (!inRules) {
    outside.push([
      /(?<!rules\/)\binterface\.md/g,
      "names the customer's interface.md (cite docs/rules/interface.md)",
    ]);
  }
  if (name !== "test/support/shared-data.ts") {
    outside.push([
      /\.\.\/shared\b/g,
      "names ../shared (test/support/shared-data.ts is the one place that knows it)",
    ]);
  }
  for (const [pattern, what] of outside) {
    for (const m of text.matchAll(pattern)) {
      const line = lines[lineOf(m.index) - 1] ?? "";
      // README and docs may explain the default of the test settings, on the line that names them.
      const explainsSetting = /HANSE_TEST_(CORPUS|DIRECTORIES)_DIR/.test(line) && /\.md$/.test(name);
      if (m[0].startsWith("../shared") && explainsSetting) continue;
      report(m.index, what);
    }
  }
  for (const m of text.matchAll(new RegExp(`rules/contract(?![.\\w/])${continuation}(§\\d+[a-z]?)?`, "g"))) {
    const section = m[1]?.slice(1);
    if (section === undefined) report(m.index, "rules/contract without a § number");
    else if (!index.sections.has(section)) report(m.index, `rules/contract §${section}: no such section`);
  }
  const ruleList = String.raw`(\d+)((?:\s*(?:,|and|–|-)\s*\d+)*)`;
  for (const m of text.matchAll(
    new RegExp(`rules/interface(?![.\\w/])${continuation}(?:([A-D])\\b(?: rules? ${ruleList})?|(\\S+))`, "g"),
  )) {
    const [, area, first, more, other] = m;
    if (area === undefined) {
      const word = (other ?? "").replace(/[^\w].*$/, "");
      if (!index.headings.has(word))
        report(m.index, `rules/interface ${other ?? ""}: no such area or section`);
      continue;
    }
    if (!index.areas.has(area)) report(m.index, `rules/interface ${area}: no such area`);
    const numbers =
      first === undefined ? [] : [first, ...[...(more ?? "").matchAll(/\d+/g)].map((n) => n[0])];
    for (const n of numbers) {
      if (!index.rules.has(`${area} rule ${n}`))
        report(m.index, `rules/interface ${area} rule ${n}: no such rule`);
    }
  }
  return out;
}

const index = rulesIndex(
  readFileSync(join(root, "docs/rules/contract.md"), "utf8"),
  readFileSync(join(root, "docs/rules/interface.md"), "utf8"),
);

describe("the repository is self-contained (issue 36 item 6, docs/rules/README.md)", () => {
  it("docs/rules has the customer's numbering: §0–§8 and §2a, areas A–D with their rules", () => {
    expect([...index.sections].sort()).toEqual(["0", "1", "2", "2a", "3", "4", "5", "6", "7", "8"]);
    expect([...index.areas]).toEqual(["A", "B", "C", "D"]);
    expect(index.rules.size).toBe(7 + 5 + 5 + 6);
  });

  it("no file points outside the repository, and every rules/contract and rules/interface citation exists", () => {
    const found = files().flatMap((name) => findings(name, readFileSync(join(root, name), "utf8"), index));
    expect(found).toEqual([]);
  });

  it("the checks catch the customer's files, ../shared and citations of rules that do not exist", () => {
    const bad = [
      "see CONTRACT §7 and CONTRACT.md",
      "/* as CONTRACT\n * §4 says */",
      "spec C rule 2; spec/interface.md; spec part D",
      'join(root, "../shared/corpus")',
      "rules/contract §9, rules/contract §2b, rules/contract alone",
      "rules/interface E; rules/interface C rule 6; rules/interface B rules 1 and 9; rules/interface Appendix",
    ].join("\n");
    expect(
      findings("src/x.ts", bad, index).map((f) => f.replace(/^src\/x\.ts:\d+: /, "").split(" (")[0]),
    ).toEqual([
      "names the customer's CONTRACT.md",
      "cites CONTRACT §n",
      "cites CONTRACT §n",
      "cites the customer's spec",
      "cites the customer's spec",
      "names the customer's interface.md",
      "names ../shared",
      "rules/contract §9: no such section",
      "rules/contract §2b: no such section",
      "rules/contract without a § number",
      "rules/interface E;: no such area or section",
      "rules/interface C rule 6: no such rule",
      "rules/interface B rule 9: no such rule",
      "rules/interface Appendix: no such area or section",
    ]);
    const good = [
      "rules/contract §1, §7; rules/contract\n * §4; [contract](rules/contract.md)",
      "rules/interface C rules 1–2, rules/interface B rules 2 and 5, rules/interface A rule 6",
      "rules/interface D; rules/interface C's paths; rules/interface Errors, partner exchange; rules/interface Limits",
      "`HANSE_TEST_CORPUS_DIR` (default `../shared/corpus`)",
    ].join("\n");
    expect(findings("docs/x.md", good, index)).toEqual([]);
  });
});
