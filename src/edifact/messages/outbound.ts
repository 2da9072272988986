import type { Directory, SimpleElementDef } from "../directories/directory.types.js";
import type { Interchange, Message, PartyId, Segment } from "../envelope/interchange.types.js";
import type { SyntaxIdentifier } from "../syntax/charset.js";
import type { PartyRef } from "./business.types.js";
import type { Separators } from "../syntax/separators.js";

/** Identities, syntax and references of one outbound interchange; the caller owns them all. */
export interface OutboundEnvelope {
  readonly syntaxIdentifier: SyntaxIdentifier;
  readonly syntaxVersion: 3 | 4;
  /** Our own identification: the UNB sender. */
  readonly sender: PartyId;
  /** The partner's identification: the UNB recipient. */
  readonly recipient: PartyId;
  /** UNB/UNZ 0020 (the caller generates it, unique per partner). */
  readonly controlRef: string;
  /** UNH/UNT 0062 of the one message inside. */
  readonly messageRef: string;
  /** Preparation time, written in UTC; the library never reads a clock. */
  readonly preparedAt: Date;
  readonly separators?: Separators;
  readonly test?: boolean;
}

/** Thrown when a builder's input cannot make a valid message (a programming error). */
export class EdifactBuildError extends Error {
  override readonly name = "EdifactBuildError";
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** UNB S004: YYMMDD before syntax 4, CCYYMMDD from syntax 4 on; HHMM. */
export function unbDateTime(at: Date, syntaxVersion: number): { date: string; time: string } {
  const year = at.getUTCFullYear();
  const date = `${syntaxVersion >= 4 ? pad(year, 4) : pad(year % 100)}${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())}`;
  return { date, time: `${pad(at.getUTCHours())}${pad(at.getUTCMinutes())}` };
}

/** DTM C507 value in format 203 (CCYYMMDDHHMM). */
export function dtm203(at: Date): string {
  return `${pad(at.getUTCFullYear(), 4)}${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())}${pad(at.getUTCHours())}${pad(at.getUTCMinutes())}`;
}

/** A segment from its elements; component arrays are kept, not copied (builders pass fresh ones). */
export function seg(tag: string, ...elements: (string | readonly string[])[]): Segment {
  return { tag, elements: elements.map((e) => (typeof e === "string" ? [e] : e)) };
}

/** Wraps one message into an interchange from the envelope's sender to its recipient. */
export function wrapMessage(env: OutboundEnvelope, message: Omit<Message, "ref">): Interchange {
  const { date, time } = unbDateTime(env.preparedAt, env.syntaxVersion);
  return {
    syntax: { identifier: env.syntaxIdentifier, version: env.syntaxVersion },
    ...(env.separators ? { separators: env.separators } : {}),
    sender: env.sender,
    recipient: env.recipient,
    date,
    time,
    controlRef: env.controlRef,
    ...(env.test ? { test: true } : {}),
    messages: [{ ...message, ref: env.messageRef }],
  };
}

/** Splits free text into the up to five 4440 components (an..70 each) of FTX C108. */
export function textComponents(text: string, size = 70, max = 5): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length && out.length < max; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

/**
 * NAD C082 of a party: its id and the agency of its code list (default 9, GS1), as the
 * directory takes them; no NAD when the directory does not take the id itself (C082 needs it).
 */
export function nad(directory: Directory, qualifier: string, p: PartyRef): Segment | undefined {
  const id = copiedValue(directory, "NAD", "3039", p.id);
  if (id === "") return undefined;
  return seg("NAD", qualifier, [id, "", copiedValue(directory, "NAD", "3055", p.agency ?? "9")]);
}

/** Characters of a string as EDIFACT counts them: a surrogate pair is one. */
function characters(value: string): number {
  let n = value.length;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) n--;
  }
  return n;
}

const simpleElements = new WeakMap<Directory, Map<string, SimpleElementDef | null>>();

/** The definition of simple element `id` in segment `tag` of the directory (directly or in a composite). */
function simpleElement(directory: Directory, tag: string, id: string): SimpleElementDef | undefined {
  let byKey = simpleElements.get(directory);
  if (!byKey) simpleElements.set(directory, (byKey = new Map<string, SimpleElementDef | null>()));
  const key = `${tag}/${id}`;
  let def = byKey.get(key);
  if (def === undefined) {
    def = null;
    for (const ref of directory.segments.get(tag)?.elements ?? []) {
      const found =
        ref.def.kind === "simple"
          ? ref.def.id === id && ref.def
          : ref.def.components.find((c) => c.element.id === id)?.element;
      if (found) {
        def = found;
        break;
      }
    }
    byKey.set(key, def);
  }
  return def ?? undefined;
}

/**
 * A value copied from a received message into an outbound one (issue 20 defect 7): kept when
 * element `id` of segment `tag` in the outbound message's directory takes it (its code list, if
 * it has one; its length; digits for `n`), otherwise left out (""). The order was validated
 * leniently (an association's guideline may extend the UN code lists, e.g. EANCOM), while the
 * answer is a plain UN message that must be valid against its own directory.
 */
export function copiedValue(directory: Directory, tag: string, id: string, value: string): string {
  if (value === "") return value;
  const def = simpleElement(directory, tag, id);
  if (!def) return value;
  const f = def.format;
  const length = characters(value);
  if (length > f.max || length < f.min) return "";
  if (f.type === "n" && !/^-?\d+([.,]\d+)?$/.test(value)) return "";
  if (f.type === "a" && /\d/.test(value)) return "";
  if (def.codes && !def.codes.values.has(value)) return "";
  return value;
}
