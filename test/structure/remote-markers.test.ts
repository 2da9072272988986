import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Issue 31: `scripts/ci-topology.sh topology` runs every e2e file against the topology unless its
// first line says why it runs in-process only. A file whose `createTestApp` takes settings or a
// clock of its own fails at once remotely, so it must say so (or skip itself in the remote mode):
// this fails in the ordinary suite, before the topology section of CI would.
const dir = new URL("../e2e/", import.meta.url);
const declared = /^\/\/ remote mode: in-process only: \S/;

describe("the e2e files' remote mode (test/support/remote-app.ts)", () => {
  it("every e2e file that gives createTestApp settings or a clock of its own declares in its first line that it runs in-process only, or skips itself remotely", () => {
    const undeclared = readdirSync(dir)
      .filter((name) => name.endsWith(".test.ts"))
      .filter((name) => {
        const text = readFileSync(new URL(name, dir), "utf8");
        const ownSettings = /createTestApp\(\{/.test(text);
        const skipsItself = /describe\.skipIf\(\s*inProcessOnly\(/.test(text);
        return ownSettings && !declared.test(text) && !skipsItself;
      });
    expect(undeclared).toEqual([]);
  });
});
