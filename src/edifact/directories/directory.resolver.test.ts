import { describe, expect, it } from "vitest";
import { parseInterchange } from "../envelope/interchange.parser.js";
import { buildContrl } from "../messages/contrl.builder.js";
import { serializeInterchange } from "../messages/serializer.js";
import { generatedCorpus } from "../testing/generated-corpus.js";
import { validateInterchange } from "../validation/interchange.validator.js";
import { getCompactDirectory, getDirectory } from "./directory.registry.js";
import { loadDirectory } from "./directory.loader.js";
import { directoryResolver } from "./directory.resolver.js";

const codesOf = (bytes: Uint8Array | string, resolver = directoryResolver()): number[] => {
  const input = typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes;
  const report = validateInterchange(parseInterchange(input), { directory: resolver });
  return [...new Set(report.issues.map((i) => i.code))].sort((a, b) => a - b);
};

/** The interchange without the first segment `segment` matches, its UNT count kept right. */
const without = (text: string, segment: RegExp): string =>
  text.replace(segment, "").replace(/UNT\+(\d+)/, (_, n: string) => `UNT+${Number(n) - 1}`);

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("latin1");

describe("issue 24 item 4: each message is judged by the directory its UNH names", () => {
  const corpus = generatedCorpus();

  it.each(corpus.map((c) => [c.name, c] as const))(
    "%s: the same findings as against its own directory",
    (_, c) => {
      // The one case that judges a D.96A message by D.25A on purpose is valid by its own.
      expect(codesOf(c.bytes), c.why).toEqual(c.name.includes("-on-") ? [] : c.codes);
    },
  );

  it("a D.96A and a D.25A message in one interchange are each valid", () => {
    const d96a = latin1(corpus.find((c) => c.name === "orders-d96a-v3-valid")?.bytes ?? new Uint8Array());
    const d25a = latin1(corpus.find((c) => c.name === "orders-d25a-v3-valid")?.bytes ?? new Uint8Array());
    const message = (text: string, ref: string): string =>
      (/UNH\+.*?UNT\+\d+\+1'/s.exec(text)?.[0] ?? "")
        .replace(/^UNH\+1\+/, `UNH+${ref}+`)
        .replace(/UNT\+(\d+)\+1'$/, `UNT+$1+${ref}'`);
    const head = d96a.slice(0, d96a.indexOf("UNH+"));
    const ref = /UNB\+[^']*\+([^+']+)'/.exec(head)?.[1] ?? "";
    const both = `${head}${message(d96a, "1")}${message(d25a, "2")}UNZ+2+${ref}'`;
    const report = validateInterchange(parseInterchange(Buffer.from(both, "latin1")), {
      directory: directoryResolver(),
    });
    expect(report.issues).toEqual([]);
    expect(report.messages.map((m) => [m.ref, m.accepted])).toEqual([
      ["1", true],
      ["2", true],
    ]);
  });

  it("a message of a directory not at hand gets one UNH finding that names what is", () => {
    const d25a = latin1(corpus.find((c) => c.name === "orders-d25a-v3-valid")?.bytes ?? new Uint8Array());
    const report = validateInterchange(
      parseInterchange(Buffer.from(d25a.replace("ORDERS:D:25A:UN", "ORDERS:D:01B:UN"), "latin1")),
      {
        directory: directoryResolver(),
      },
    );
    expect(report.issues.map((i) => [i.code, i.tag, i.element, i.component, i.text])).toEqual([
      [
        14,
        "UNH",
        2,
        2,
        'Message directory "D:01B" of ORDERS is not available here (D96A, D25A, CONTRL 2:2, CONTRL 4:1 are)',
      ],
    ]);
  });

  it("an imported directory replaces the built-in one of its release", () => {
    const imported = loadDirectory({ ...getCompactDirectory("D25A"), source: "official D.25A release" });
    const resolver = directoryResolver([imported]);
    const id = { type: "ORDERS", version: "D", release: "25A", agency: "UN" };
    expect(resolver.forMessage(id)).toBe(imported);
    expect(directoryResolver().forMessage(id)).toBe(getDirectory("D25A"));
    expect(resolver.available).toEqual(["D96A", "D25A", "CONTRL 2:2", "CONTRL 4:1"]);
  });

  describe("CONTRL received from a partner is validated against its service message", () => {
    const broken = corpus.find((c) => c.name.startsWith("orders-d25a") && c.codes.length > 0);
    const contrl = (syntaxVersion: 3 | 4): string => {
      const parsed = parseInterchange(broken?.bytes ?? new Uint8Array());
      const report = validateInterchange(parsed, { directory: directoryResolver() });
      const header = parsed.interchange.header;
      if (!header) throw new Error("the generated case has a UNB");
      const answer = buildContrl(parsed.interchange, report, {
        syntaxIdentifier: "UNOC",
        syntaxVersion,
        sender: header.recipient,
        recipient: header.sender,
        controlRef: "C1",
        messageRef: "1",
        preparedAt: new Date(Date.UTC(2026, 0, 15, 10, 0)),
      });
      return latin1(serializeInterchange(answer));
    };

    it.each([3, 4] as const)("syntax %i: what the engine sends is valid, with UCM and UCS/UCD", (v) => {
      const text = contrl(v);
      expect(text).toContain(v === 4 ? "CONTRL:4:1:UN" : "CONTRL:2:2:UN");
      expect(text).toMatch(/UCM\+.*UCS\+\d+/);
      expect(codesOf(text)).toEqual([]);
    });

    it.each([3, 4] as const)(
      "syntax %i: an unknown action, a missing UCI, a UCD without its UCS are findings",
      (v) => {
        const text = contrl(v);
        expect(codesOf(text.replace(/(UCI\+[^']*\+)7'/, "$19'"))).toEqual([12]);
        expect(codesOf(without(text, /UCI\+[^']*'/))).toEqual([13]);
        expect(codesOf(without(text, /UCS\+\d+\+?\d*'/))).toEqual([15]);
      },
    );

    it("syntax 4 takes the occurrence in S011, syntax 3 does not", () => {
      const v4 = contrl(4).replace(/UCD\+(\d+)\+(\d+)(:\d*)?'/, "UCD+$1+$2:1:2'");
      expect(codesOf(v4)).toEqual([]);
      const v3 = contrl(3).replace(/UCD\+(\d+)\+(\d+)(:\d*)?'/, "UCD+$1+$2:1:2'");
      expect(codesOf(v3)).toEqual([16]);
    });
  });
});
