import { isDirectoryResolver, type DirectoryResolver } from "./directories/directory.resolver.js";
import type { Directory, MessageDef } from "./directories/directory.types.js";
import type { MessageIdentifier, ParsedInterchange, ParseResult } from "./envelope/interchange.types.js";
import { tagOf } from "./envelope/segment.reader.js";
import { printable } from "./issue.format.js";
import type { EdifactIssue } from "./issue.types.js";
import { decoderFor } from "./syntax/charset.js";
import { StructureWalker } from "./validation/structure.validator.js";

/**
 * One thing wrong with an interchange, as an operator reads it: the ISO 9735 syntax error code
 * (0085) of an interchange- or message-level issue, or the APERAK error code of an application
 * error, where it sits and what it means in plain words.
 */
export interface Finding {
  readonly level: "interchange" | "message" | "application";
  readonly code: string;
  readonly message: string;
  /** UNH 0062 of the message it concerns, null for the interchange's envelope. */
  readonly messageReference: string | null;
  /** Tag of the segment it concerns. */
  readonly segment: string | null;
  /** 1-based position of that segment in the interchange (UNA not counted). */
  readonly position: number | null;
  /** Element position ("2", or "2:1" for a component); null when about a whole segment. */
  readonly element: string | null;
}

/** A validator or parser issue as a finding (a group-level issue counts as interchange-level). */
export function issueFinding(parsed: ParsedInterchange, issue: EdifactIssue): Finding {
  const message = issue.messageIndex === undefined ? undefined : parsed.messages[issue.messageIndex];
  return {
    level: issue.level === "message" ? "message" : "interchange",
    code: String(issue.code),
    message: printable(issue.text),
    messageReference: message?.ref ?? null,
    segment: issue.tag === undefined ? null : printable(issue.tag),
    position: issue.segmentIndex >= 0 ? issue.segmentIndex + 1 : null,
    element:
      issue.element === undefined
        ? null
        : issue.component === undefined
          ? String(issue.element)
          : `${String(issue.element)}:${String(issue.component)}`,
  };
}

/** One segment of an inspected interchange. */
export interface InspectedSegment {
  /** 1-based position in the interchange (UNA not counted). */
  readonly position: number;
  readonly tag: string;
  /** 0 interchange envelope, 1 group envelope, 2 message level, one more per segment group. */
  readonly depth: number;
  /** The innermost segment group ("SG2"), "?" where the message's structure has no place for the segment, else null. */
  readonly group: string | null;
  /** The segment as written, terminator included, decoded under the interchange's character set. */
  readonly text: string;
  readonly findings: Finding[];
}

export interface InterchangeInspection {
  readonly segments: InspectedSegment[];
  /** Findings tied to no segment of the interchange. */
  readonly findings: Finding[];
  readonly notes: string[];
}

export interface InspectOptions {
  /** One directory for every message, or a resolver giving each message the one its UNH names. */
  readonly directory: Directory | DirectoryResolver;
  /** Findings to place on the segments (default: the parse issues). */
  readonly findings?: readonly Finding[];
  /** At most this many segments are listed (a note says when more were left out). */
  readonly maxSegments?: number;
}

function directoryOf(choice: Directory | DirectoryResolver, id: MessageIdentifier): Directory | undefined {
  return isDirectoryResolver(choice) ? choice.forMessage(id) : choice;
}

/**
 * The segment tree of an interchange: every segment with its depth and segment group (walked
 * against the message's directory), its findings, and notes on what could not be judged. Pure;
 * `hanse edi inspect` prints it and the operator's segment views answer it as JSON.
 */
export function inspectInterchange(parsed: ParseResult, options: InspectOptions): InterchangeInspection {
  const ic = parsed.interchange;
  const t = ic.tokens;
  const decode = decoderFor(ic.header?.syntax.identifier ?? "UNOC");
  const inMessage = new Map<number, MessageDef | undefined>();
  const notes: string[] = [];
  for (const m of ic.messages) {
    const { type, version, release } = m.identifier;
    const def = directoryOf(options.directory, m.identifier)?.messages.get(type);
    if (!def) notes.push(`message ${m.ref} (${type} ${version}:${release}): no directory at hand defines it`);
    for (let s = m.firstSegment; s <= m.lastSegment; s++) inMessage.set(s, def);
  }
  const bySegment = new Map<number, Finding[]>();
  const loose: Finding[] = [];
  for (const finding of options.findings ?? parsed.issues.map((issue) => issueFinding(ic, issue))) {
    const at = finding.position;
    if (at === null || at < 1 || at > ic.segmentCount) {
      loose.push(finding);
      continue;
    }
    const list = bySegment.get(at - 1);
    if (list) list.push(finding);
    else bySegment.set(at - 1, [finding]);
  }
  const count = Math.min(ic.segmentCount, options.maxSegments ?? ic.segmentCount);
  const segments: InspectedSegment[] = [];
  let walker: StructureWalker | undefined;
  for (let s = 0; s < count; s++) {
    const tag = tagOf(t, s);
    let depth = 0;
    let group: string | null = null;
    if (inMessage.has(s)) {
      if (tag === "UNH") {
        const def = inMessage.get(s);
        walker = def ? new StructureWalker(def) : undefined;
      }
      const matched = walker?.accept(tag, s);
      const path = matched ? (walker?.path() ?? []) : ["?"];
      depth = 2 + path.length;
      group = path[path.length - 1] ?? null;
    } else if (tag === "UNG" || tag === "UNE") depth = 1;
    const end = Math.min((t.segEnd[s] as number) + 1, t.bytes.length);
    segments.push({
      position: s + 1,
      tag,
      depth,
      group,
      text: decode(t.bytes, t.segStart[s] as number, end),
      findings: bySegment.get(s) ?? [],
    });
  }
  if (count < ic.segmentCount) {
    notes.push(`only the first ${String(count)} of ${String(ic.segmentCount)} segments are listed`);
    for (let s = count; s < ic.segmentCount; s++) loose.push(...(bySegment.get(s) ?? []));
  }
  return { segments, findings: loose, notes };
}
