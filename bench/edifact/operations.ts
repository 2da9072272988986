/**
 * The operations the EDIFACT benchmark measures, shared by the driver (memory) and the
 * round workers (throughput).
 */
import { createHash } from "node:crypto";
import Module, { createRequire } from "node:module";
import { dirname, join } from "node:path";
import {
  buildOrdrsp,
  getDirectory,
  parseInterchange,
  serializeInterchange,
  tagOf,
  tokenize,
  validateInterchange,
  valueAt,
  type OrderLineResponse,
} from "../../src/edifact/index.js";

export type Operation = (input: Buffer) => unknown;

/** The floor any tokenizer pays: one pass finding every separator, honouring `?`. */
function bareScan(buf: Buffer): number {
  let tokens = 0;
  const n = buf.length;
  for (let i = 0; i < n; i++) {
    const b = buf[i];
    if (b === 0x3f) i++;
    else if (b === 0x2b || b === 0x3a || b === 0x27) tokens++;
  }
  return tokens;
}

const directory = getDirectory("D96A");

/**
 * The order lines to answer. A function of its own so that the parsed order (its token table
 * is ~2–3× the input) is garbage before the ORDRSP is built, as in a service that answers later.
 */
function orderLines(input: Buffer): OrderLineResponse[] {
  const parsed = parseInterchange(input).interchange;
  const message = parsed.messages[0];
  if (!message) throw new Error("no message");
  const lines: OrderLineResponse[] = [];
  let lineNumber = "";
  let id = "";
  for (let s = message.firstSegment; s <= message.lastSegment; s++) {
    const tag = tagOf(parsed.tokens, s);
    if (tag === "LIN") {
      lineNumber = valueAt(parsed.tokens, s, 1);
      id = valueAt(parsed.tokens, s, 3);
    } else if (tag === "QTY" && lineNumber !== "") {
      lines.push({
        lineNumber,
        action: "5",
        item: { id, type: "EN" },
        quantity: { value: valueAt(parsed.tokens, s, 1, 1) || "0" },
      });
      lineNumber = "";
    }
  }
  return lines;
}

function buildOrdrspFor(input: Buffer): Uint8Array {
  const lines = orderLines(input);
  return serializeInterchange(
    buildOrdrsp({
      directory,
      envelope: {
        syntaxIdentifier: "UNOC",
        syntaxVersion: 3,
        sender: { id: "4012345500004", qualifier: "14" },
        recipient: { id: "5412345000013", qualifier: "14" },
        controlRef: "R1",
        messageRef: "1",
        preparedAt: new Date(0),
      },
      documentNumber: "OR-1",
      responseType: "29",
      order: { documentNumber: "PO-BENCH" },
      lines,
    }),
  );
}

/**
 * ts-edifact requires `htmlparser2` at load time for its UNECE web-page importer, but lists it
 * only as a dev dependency, so a plain install cannot load it. Parsing never uses it: an empty
 * stand-in lets the package load (bench only, nothing else sees it).
 */
function standInForHtmlparser2(): void {
  const loader = Module as unknown as {
    _resolveFilename: (request: string, ...rest: unknown[]) => string;
  };
  const resolve = loader._resolveFilename.bind(loader);
  const id = "hanse-bench-htmlparser2-stand-in";
  loader._resolveFilename = (request, ...rest) =>
    request === "htmlparser2" ? id : resolve(request, ...rest);
  createRequire(import.meta.url).cache[id] = { id, filename: id, loaded: true, exports: {} } as NodeJS.Module;
}

/** Runs a peer with console output silenced (ts-edifact warns per segment it has no table for). */
function quietly<T>(fn: () => T): T {
  const { log, warn, error } = console;
  console.log = console.warn = console.error = () => undefined;
  try {
    return fn();
  } finally {
    Object.assign(console, { log, warn, error });
  }
}

interface Peer {
  readonly op: Operation | undefined;
  readonly note: string;
}

/** Loads a peer parser if it is installed (bench-only dev dependencies) and checks it on `sample`. */
async function peer(name: string, sample: Buffer): Promise<Peer> {
  try {
    if (name === "ts-edifact") standInForHtmlparser2();
    const mod = (await import(name)) as Record<string, unknown> & { default?: Record<string, unknown> };
    const api = (mod.Reader ? mod : mod.default) ?? {};
    const Reader = api.Reader as (new (specDir?: string) => { parse: (s: string) => unknown }) | undefined;
    if (!Reader) return { op: undefined, note: "no Reader export" };
    // ts-edifact looks for its message tables relative to the working directory unless told.
    const specDir =
      name === "ts-edifact"
        ? join(dirname(createRequire(import.meta.url).resolve(name)), "messageSpec")
        : undefined;
    const op: Operation = (input) => quietly(() => new Reader(specDir).parse(input.toString("latin1")));
    try {
      op(sample);
      return { op, note: "peer, full Reader" };
    } catch (e) {
      // Report the failure, and measure it on the input without the UNS segment it rejects.
      const withoutUns: Operation = (input) =>
        op(Buffer.from(input.toString("latin1").replace("UNS+S'", ""), "latin1"));
      withoutUns(sample);
      return {
        op: withoutUns,
        note: `peer; rejects the input (${(e as Error).message}), measured without UNS`,
      };
    }
  } catch (e) {
    return { op: undefined, note: `not usable: ${(e as Error).message}` };
  }
}

export interface NamedOperation {
  readonly label: string;
  readonly op: Operation | undefined;
  readonly note: string;
}

/**
 * Every measured operation, the baseline first; peers only when installed and working on
 * `sample`. `only` loads one operation (a round worker needs no other peer loaded).
 */
export async function loadOperations(sample: Buffer, only?: string): Promise<NamedOperation[]> {
  const operations: NamedOperation[] = [
    { label: "bare scan", op: bareScan, note: "baseline: every separator, release-aware" },
    { label: "sha-256", op: (b) => createHash("sha256").update(b).digest(), note: "node:crypto" },
    { label: "tokenize", op: (b) => tokenize(b), note: "" },
    {
      label: "parse+validate",
      op: (b) => validateInterchange(parseInterchange(b), { directory }),
      note: "D96A",
    },
    { label: "build+serialize ORDRSP", op: buildOrdrspFor, note: "parse order, ORDRSP of every line" },
  ];
  for (const name of ["edifact", "ts-edifact"]) {
    if (only !== undefined && only !== `npm ${name} Reader`) continue;
    const p = await peer(name, sample);
    operations.push({ label: `npm ${name} Reader`, op: p.op, note: p.note });
  }
  return only === undefined ? operations : operations.filter((o) => o.label === only);
}
