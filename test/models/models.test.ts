/**
 * The protocol models (docs/protocols.md): scripts/check-models.sh checks each one exhaustively
 * with Spin and its broken variant, which must yield a counterexample. Skipped, saying why, when
 * spin or gcc is not installed, and when .ci/run has already checked them in its own section
 * (HANSE_MODELS_CHECKED=1), so CI runs the search once.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const has = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;
const missing = ["spin", "gcc"].filter((tool) => !has(tool));
const checkedByCi = process.env.HANSE_MODELS_CHECKED === "1";
const skipReason =
  missing.length > 0
    ? `the protocol models need ${missing.join(" and ")} (apt-get install -y spin gcc); not checked here`
    : checkedByCi
      ? "the protocol models were checked by .ci/run's models section"
      : undefined;
if (skipReason) console.warn(`test/models: skipped: ${skipReason}`);

/** Every model file, relative to the repository (src/modules/<module>/model/<name>.pml). */
function models(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".pml") && dirname(path).endsWith("/model"))
        found.push(relative(root, path));
    }
  };
  walk(join(root, "src"));
  return found.sort();
}

describe.skipIf(skipReason !== undefined)("protocol models (Spin, exhaustive)", () => {
  it("there is a model of each protocol of docs/protocols.md", () => {
    expect(models()).toEqual([
      "src/modules/entitlements/model/change-feed.pml",
      "src/modules/entitlements/model/webhook-delivery.pml",
      "src/modules/exchange/mailbox/model/mailbox.pml",
      "src/modules/exchange/model/uploads.pml",
      "src/modules/workflows/model/transition-requests.pml",
    ]);
  });

  for (const model of models()) {
    it(`${model} holds in every reachable state and its broken variant yields a counterexample`, () => {
      const run = spawnSync("scripts/check-models.sh", [model], { cwd: root, encoding: "utf8" });
      const out = `${run.stdout}${run.stderr}`;
      expect(out).toMatch(
        new RegExp(`${model.replace(/[.]/g, "\\.")} +model +states=\\S+ +time=\\S+ +errors=0\\b`),
      );
      expect(out).toMatch(
        new RegExp(`${model.replace(/[.]/g, "\\.")} +broken +states=\\S+ +time=\\S+ +errors=[1-9]`),
      );
      expect(out).toContain("counterexample: ");
      expect(run.status, out).toBe(0);
    }, 900_000);
  }
});
