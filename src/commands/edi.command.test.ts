import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command, CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import { generatedCorpus } from "../edifact/testing/generated-corpus.js";
import { PARTLY_BROKEN_ORDERS, REJECTED_ORDERS, VALID_ORDERS } from "../edifact/testing/sample.fixture.js";
import { registerEdiCommands } from "./edi.command.js";
import {
  absent,
  corpusDir,
  directoriesDir,
  hasCorpus,
  hasDirectories,
} from "../../test/support/shared-data.js";

async function run(args: string[]): Promise<{ out: string; err: string; exitCode: number }> {
  let out = "";
  let err = "";
  const program = new Command("hanse").exitOverride().configureOutput({
    writeOut: (s) => (out += s),
    writeErr: (s) => (err += s),
  });
  registerEdiCommands(program);
  try {
    await program.parseAsync(["edi", ...args], { from: "user" });
    return { out, err, exitCode: 0 };
  } catch (e) {
    if (e instanceof CommanderError) return { out, err, exitCode: e.exitCode };
    throw e;
  }
}

function file(name: string, content: string): string {
  const dir = mkdtempSync(join(tmpdir(), "hanse-edi-"));
  const path = join(dir, name);
  writeFileSync(path, content, "latin1");
  return path;
}

describe("hanse edi", () => {
  it("validate: exit 0 and 'no issues' for a valid interchange", async () => {
    const r = await run(["validate", file("ok.edi", VALID_ORDERS)]);
    expect(r.exitCode).toBe(0);
    expect(r.out).toContain("message 1 (ORDERS D:96A, directory D96A): accepted");
    expect(r.out).toContain("no issues");
  });

  it("validate: exit 1 with partner-readable issues and positions", async () => {
    const r = await run(["validate", file("bad.edi", PARTLY_BROKEN_ORDERS)]);
    expect(r.exitCode).toBe(1);
    expect(r.out).toContain("message 2 (ORDERS D:96A, directory D96A): rejected");
    expect(r.out).toMatch(
      /segment \d+ \(QTY\), message position 5, element 1, component 2, byte offset \d+: \[37 Invalid type of character\(s\)\]/,
    );
    expect(r.err).toContain("issue(s) found");
  });

  it("validate: a message rejected only with its interchange says so", async () => {
    const r = await run(["validate", file("rejected.edi", REJECTED_ORDERS)]);
    expect(r.exitCode).toBe(1);
    expect(r.out).toContain("message 1 (ORDERS D:96A, directory D96A): rejected with the interchange");
    const own = await run(["validate", file("bad.edi", PARTLY_BROKEN_ORDERS)]);
    expect(own.out).toMatch(
      /message 2 \(ORDERS D:96A, directory D96A\): rejected \(\d+ issue\(s\) of its own\)/,
    );
  });

  it("validate: exit 2 when the file cannot be read", async () => {
    const r = await run(["validate", join(tmpdir(), "does-not-exist.edi")]);
    expect(r.exitCode).toBe(2);
    expect(r.err).toContain("Cannot read");
  });

  it("validate --directory D25A judges the release", async () => {
    const r = await run(["validate", "--directory", "D25A", file("ok.edi", VALID_ORDERS)]);
    expect(r.exitCode).toBe(1);
    expect(r.out).toContain("[14 Value not supported in this position]");
  });

  it("contrl: prints the CONTRL we would send", async () => {
    const r = await run(["contrl", "--control-ref", "C1", file("bad.edi", PARTLY_BROKEN_ORDERS)]);
    expect(r.exitCode).toBe(0);
    expect(r.out).toMatch(/^UNB\+UNOC:3\+4012345500004:14\+5412345000013:14\+\d{6}:\d{4}\+C1'\n/);
    expect(r.out).toContain(
      "UNH+1+CONTRL:2:2:UN'\nUCI+IC2+5412345000013:14+4012345500004:14+7'\nUCM+2+ORDERS:D:96A:UN+4'\n",
    );
  });

  it("inspect: prints the segment tree with group names", async () => {
    const r = await run(["inspect", file("ok.edi", VALID_ORDERS)]);
    expect(r.out).toContain("SG2 NAD+BY+5412345000013::9'");
    expect(r.out).toContain("SG25 LIN+1++4000862141404:EN'");
    expect(r.out).toContain("SG25 QTY+21:48'");
  });

  describe("issue 24 item 4: the directory each message names in its UNH", () => {
    const generated = generatedCorpus();
    const named = (name: string): string =>
      Buffer.from(generated.find((c) => c.name === name)?.bytes ?? new Uint8Array()).toString("latin1");

    it.each(["orders-d25a-v3-valid", "orders-d25a-v4-valid", "ordrsp-d25a-v4-valid", "aperak-d25a-v3-valid"])(
      "validate: %s is judged by D.25A and valid, not rejected for its release",
      async (name) => {
        const r = await run(["validate", file(`${name}.edi`, named(name))]);
        expect(r.exitCode, r.out).toBe(0);
        expect(r.out).toContain("directory of each message from its UNH");
        expect(r.out).toMatch(/message 1 \((ORDERS|ORDRSP|APERAK) D:25A, directory D25A\): accepted/);
      },
    );

    it("validate --directory D96A still judges every message by D.96A", async () => {
      const r = await run([
        "validate",
        "--directory",
        "D96A",
        file("d25a.edi", named("orders-d25a-v3-valid")),
      ]);
      expect(r.exitCode).toBe(1);
      expect(r.out).toContain('Message release "25A" does not match directory D96A (96A)');
    });

    it("validate: a message naming a directory Hanse does not have is a finding, exit 1", async () => {
      const text = named("orders-d25a-v3-valid").replace("ORDERS:D:25A:UN", "ORDERS:D:01B:UN");
      const r = await run(["validate", file("d01b.edi", text)]);
      expect(r.exitCode).toBe(1);
      expect(r.out).toContain(
        "message 1 (ORDERS D:01B, no directory at hand): rejected (1 issue(s) of its own)",
      );
      expect(r.out).toContain(
        '[14 Value not supported in this position] Message directory "D:01B" of ORDERS is not available here (D96A, D25A, CONTRL 2:2, CONTRL 4:1 are)',
      );
      const tree = await run(["inspect", file("d01b.edi", text)]);
      expect(tree.out).toContain("note: message 1 (ORDERS D:01B): no directory at hand defines it");
    });

    it.each([
      ["3", "CONTRL 2:2"],
      ["4", "CONTRL 4:1"],
    ])("a CONTRL of syntax %s is validated and inspected against %s", async (version, id) => {
      const broken = generated.find((c) => c.name.startsWith("orders-d25a") && c.codes.length > 0);
      const source = file("broken.edi", Buffer.from(broken?.bytes ?? new Uint8Array()).toString("latin1"));
      const contrl = await run(["contrl", source, "--syntax-version", version]);
      expect(contrl.exitCode).toBe(0);
      expect(contrl.out).toContain("UCM+");
      const received = file("contrl.edi", contrl.out);
      const r = await run(["validate", received]);
      expect(r.exitCode, r.out).toBe(0);
      expect(r.out).toContain(`message 1 (CONTRL ${id.slice(7)}, directory ${id}): accepted`);
      const tree = await run(["inspect", received]);
      expect(tree.out).toMatch(/SG1 UCM\+/);
      expect(tree.out).toMatch(/SG2 UCS\+\d+/);
      const bad = await run([
        "validate",
        file("bad-contrl.edi", contrl.out.replace(/(UCI\+[^']*\+)7'/, "$19'")),
      ]);
      expect(bad.exitCode).toBe(1);
      expect(bad.out).toMatch(
        /\(UCI\), message position 2, element 4, byte offset \d+: \[12 Invalid value\]/,
      );
    });
  });

  const missing = !hasCorpus ? absent(corpusDir) : !hasDirectories ? absent(directoriesDir) : null;
  describe.skipIf(missing !== null)(`corpus and directories (${missing ?? "present"})`, () => {
    it("validate: a CONTRL received from a partner (corpus) is judged by CONTRL 4:1", async () => {
      const r = await run(["validate", join(corpusDir, "contrl-v41-edifabric-1.edi")]);
      expect(r.out).toContain("message 2 (CONTRL 4:1, directory CONTRL 4:1): rejected with the interchange");
      // The one finding is the envelope's (UNB S001 without 0002), not the CONTRL messages.
      expect(r.out.match(/\[\d+ /g)).toEqual(["[13 "]);
      const old = await run(["validate", join(corpusDir, "contrl-d3-jacobemcken-1.edi")]);
      expect(old.out).toContain('Message directory "D:3" of CONTRL is not available here');
    });

    it("--directories: an imported directory judges the messages of its release", async () => {
      const dirs = mkdtempSync(join(tmpdir(), "hanse-dirs-"));
      const imported = await run(["import-directory", join(directoriesDir, "d18a.zip"), "--out", dirs]);
      expect(imported.exitCode).toBe(0);
      const d18a = file("d18a.edi", VALID_ORDERS.replace("ORDERS:D:96A:UN", "ORDERS:D:18A:UN"));
      const without = await run(["validate", d18a]);
      expect(without.exitCode).toBe(1);
      expect(without.out).toContain("ORDERS D:18A, no directory at hand");
      const r = await run(["validate", d18a, "--directories", dirs]);
      expect(r.exitCode, r.out).toBe(0);
      expect(r.out).toContain("message 1 (ORDERS D:18A, directory D18A): accepted");
      const missing = await run(["validate", d18a, "--directories", join(dirs, "nope")]);
      expect(missing.exitCode).toBe(2);
      expect(missing.err).toContain("Cannot read directories folder");
    });

    it("validate gives a report with positions for every corpus file", async () => {
      const corpus = corpusDir;
      for (const name of readdirSync(corpus).filter((f) => f.endsWith(".edi"))) {
        const r = await run(["validate", join(corpus, name)]);
        expect([0, 1], name).toContain(r.exitCode);
        expect(r.out.split("\n")[0], name).toContain(name);
        if (r.exitCode === 1) expect(r.out, name).toMatch(/byte offset \d+: \[\d+ /);
      }
    });

    it("import-directory writes the compact format of D.18A", async () => {
      const out = mkdtempSync(join(tmpdir(), "hanse-dir-"));
      const r = await run(["import-directory", join(directoriesDir, "d18a.zip"), "--out", out]);
      expect(r.exitCode).toBe(0);
      const compact = JSON.parse(readFileSync(join(out, "d18a.json"), "utf8")) as {
        id: string;
        messages: Record<string, unknown>;
      };
      expect(compact.id).toBe("D18A");
      expect(Object.keys(compact.messages)).toEqual(["ORDERS", "ORDRSP", "APERAK"]);
      // What the importer wrote is usable at once: validate against it by its path.
      const d18a = file("d18a-orders.edi", VALID_ORDERS.replace("ORDERS:D:96A:UN", "ORDERS:D:18A:UN"));
      const judged = await run(["validate", d18a, "--directory", join(out, "d18a.json")]);
      expect(judged.exitCode, judged.out).toBe(0);
      expect(judged.out).toContain("directory D18A");
    });
  });

  it("--directory: an unknown name or an unreadable file is exit 2 with the reason", async () => {
    const input = file("ok.edi", VALID_ORDERS);
    const unknown = await run(["validate", input, "--directory", "D01B"]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.err).toContain("Unknown directory D01B");
    const missing = await run(["validate", input, "--directory", "/nonexistent/d01b.json"]);
    expect(missing.exitCode).toBe(2);
    expect(missing.err).toContain("Cannot load directory /nonexistent/d01b.json: ENOENT");
    const notDirectory = await run(["validate", input, "--directory", file("x.json", "{}")]);
    expect(notDirectory.exitCode).toBe(2);
  });

  it("contrl --syntax-version takes 3 or 4 only", async () => {
    const r = await run(["contrl", file("ok.edi", VALID_ORDERS), "--syntax-version", "7"]);
    expect(r.exitCode).toBe(2);
    expect(r.err).toContain("--syntax-version is 3 or 4");
  });
});

describe("issue 20 defect 2: hanse edi and an unusable UNA", () => {
  it("validate reports a UNA whose release character is the segment terminator, at once", async () => {
    const input = "UNA:+.' '" + "'".repeat(1024 * 1024) + "UNB+UNOA:3+A+B+991231:2359+X'UNZ+0+X'";
    const r = await run(["validate", file("una.edi", input)]);
    expect(r.exitCode).toBe(1);
    expect(r.out).toContain(
      `UNA, byte offset 3: [20 Character invalid as service character] UNA advises the same character ("'") as segment terminator and release character; the interchange cannot be read`,
    );
  });
});
