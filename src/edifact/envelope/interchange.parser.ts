import { CappedList, shown, tooManyIssues, type EdifactIssue, type IssueLevel } from "../issue.types.js";
import { isSyntaxIdentifier } from "../syntax/charset.js";
import { ErrorCode } from "../syntax/error-codes.js";
import { optionalServiceByte } from "../syntax/separators.js";
import * as tags from "../syntax/tag-id.js";
import { tokComp, tokElem, tokenize, tokenText, tokRep, type TokenTable } from "../syntax/tokenizer.js";
import {
  checkSegmentElements,
  type ElementCheckContext,
  type ElementProblem,
} from "../validation/element.validator.js";
import { quickContext, segmentLooksValid, type QuickContext } from "../validation/segment.precheck.js";
import { compileSegment } from "../validation/segment.program.js";
import type {
  GroupEnvelope,
  InterchangeHeader,
  MessageEnvelope,
  MessageIdentifier,
  ParsedInterchange,
  ParseResult,
  PartyId,
} from "./interchange.types.js";
import { tagOf, valueAt } from "./segment.reader.js";
import { serviceSegment } from "./service-segments.js";

// Module constants for the per-segment envelope walk: under tsx every read of an imported
// binding is a getter call.
const segmentTagId = tags.segmentTagId;
const TAG_UNA = tags.TAG_UNA;
const TAG_UNB = tags.TAG_UNB;
const TAG_UNE = tags.TAG_UNE;
const TAG_UNG = tags.TAG_UNG;
const TAG_UNH = tags.TAG_UNH;
const TAG_UNT = tags.TAG_UNT;
const TAG_UNZ = tags.TAG_UNZ;

export interface ParseOptions {
  /** Forces the character repertoire instead of reading it from UNB. */
  readonly syntaxIdentifier?: string;
}

/** Context every checker needs to read values of the input. */
export function elementContext(t: TokenTable, syntaxVersion: number): ElementCheckContext {
  const utf8 = t.syntaxIdentifier === "UNOW" || t.syntaxIdentifier === "UNOY";
  const advised = t.separators.decimal.charCodeAt(0);
  // Syntax 4 (ISO 9735-1, 10.2) lets the receiver accept either decimal mark.
  const decimalMarks = syntaxVersion >= 4 ? [0x2e, 0x2c] : [advised];
  return { tokens: t, utf8, decimalMarks };
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Sets an optional field only when it has a value: the model leaves absent fields out. An
 * assignment, not a conditional spread: each spread is a runtime call (~80 ns), and a parse
 * made twenty of them.
 */
function setOptional<T extends object>(target: T, key: keyof T & string, value: string): void {
  if (value !== "") (target as Record<string, unknown>)[key] = value;
}

/** Components kept per element by `firstOccurrences` (UNB's composites have at most 6). */
const COMPONENTS = 8;

/**
 * The values of the segment's first occurrences, element e component c at e * COMPONENTS + c,
 * read in one pass (the header asks for twenty of them; `valueAt` would scan for each).
 */
function firstOccurrences(t: TokenTable, seg: number, elements: number): string[] {
  const values = new Array<string>((elements + 1) * COMPONENTS).fill("");
  const end = t.segToken[seg + 1] as number;
  for (let k = (t.segToken[seg] as number) + 1; k < end; k++) {
    const e = tokElem(t, k);
    if (e > elements) break;
    const c = tokComp(t, k);
    if (tokRep(t, k) === 0 && c < COMPONENTS) values[e * COMPONENTS + c] = tokenText(t, k);
  }
  return values;
}

/** A value read by `firstOccurrences`. */
function value(v: readonly string[], element: number, component = 0): string {
  return v[element * COMPONENTS + component] as string;
}

function party(v: readonly string[], element: number): PartyId {
  const id: PartyId = { id: value(v, element) };
  setOptional(id, "qualifier", value(v, element, 1));
  setOptional(id, "internalId", value(v, element, 2));
  setOptional(id, "internalSubId", value(v, element, 3));
  return id;
}

function readHeader(t: TokenTable, seg: number): InterchangeHeader {
  const v = firstOccurrences(t, seg, 11);
  const versionText = value(v, 1, 1);
  const password = value(v, 6);
  const syntax: InterchangeHeader["syntax"] = {
    identifier: value(v, 1),
    version: /^\d$/.test(versionText) ? Number(versionText) : 0,
  };
  setOptional(syntax, "serviceCodeListVersion", value(v, 1, 2));
  setOptional(syntax, "characterEncoding", value(v, 1, 3));
  const header: Writable<InterchangeHeader> = {
    syntax,
    sender: party(v, 2),
    recipient: party(v, 3),
    date: value(v, 4),
    time: value(v, 4, 1),
    controlRef: value(v, 5),
  };
  if (password !== "") {
    const reference: { password: string; qualifier?: string } = { password };
    setOptional(reference, "qualifier", value(v, 6, 1));
    header.recipientReference = reference;
  }
  setOptional(header, "applicationRef", value(v, 7));
  setOptional(header, "priority", value(v, 8));
  if (value(v, 9) === "1") header.ackRequested = true;
  setOptional(header, "agreementId", value(v, 10));
  if (value(v, 11) === "1") header.test = true;
  return header;
}

function validDate(date: string, time: string): boolean {
  const d = date.length === 8 ? date.slice(2) : date;
  const month = Number(d.slice(2, 4));
  const day = Number(d.slice(4, 6));
  const hour = Number(time.slice(0, 2));
  const minute = Number(time.slice(2, 4));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 24 && minute <= 59;
}

interface OpenMessage {
  index: number;
  first: number;
  ref: string;
}

interface OpenGroup {
  index: number;
  first: number;
  ref: string;
  messages: number[];
}

/** The entry of `ranges` (ascending and disjoint, as messages and groups close) holding `seg`. */
function rangeHolding<T extends { readonly firstSegment: number; readonly lastSegment: number }>(
  ranges: readonly T[],
  seg: number,
): T | undefined {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const range = ranges[middle] as T;
    if (seg < range.firstSegment) high = middle - 1;
    else if (seg > range.lastSegment) low = middle + 1;
    else return range;
  }
  return undefined;
}

type NewIssue = Omit<EdifactIssue, "offset"> & { offset?: number };

/**
 * The state of one envelope walk. A class rather than closures inside `parseInterchange`: the
 * helpers are made once, not per call (under tsx each closure also costs a `__name` property
 * definition, a fifth of parsing a small interchange).
 */
class EnvelopeWalk {
  readonly issues = new CappedList<EdifactIssue>();
  readonly messages: MessageEnvelope[] = [];
  readonly groups: GroupEnvelope[] = [];
  readonly n: number;
  version: number;
  ctx: ElementCheckContext;
  quick: QuickContext;
  openMessage: OpenMessage | undefined;
  openGroup: OpenGroup | undefined;
  outsideReported = false;

  constructor(readonly t: TokenTable) {
    this.n = t.segmentCount;
    this.version = t.syntaxVersion ?? 3;
    this.ctx = elementContext(t, this.version);
    this.quick = quickContext(this.ctx);
  }

  /** Syntax version from UNB: the element rules of the service segments follow it. */
  useVersion(version: number): void {
    if (version === this.version) return;
    this.version = version;
    this.ctx = elementContext(this.t, version);
    this.quick = quickContext(this.ctx);
  }

  add(issue: NewIssue): void {
    const t = this.t;
    const seg = issue.segmentIndex;
    this.issues.push({
      offset: seg >= 0 && seg < this.n ? (t.segStart[seg] as number) : t.bytes.length,
      ...issue,
    });
  }

  checkService(seg: number, tag: string, level: IssueLevel, extra: Partial<EdifactIssue>): void {
    const def = serviceSegment(tag, this.version);
    // The allocation-free quick check clears the usual, valid service segment at once.
    if (!def || segmentLooksValid(this.quick, compileSegment(def), seg)) return;
    const problems: ElementProblem[] = [];
    checkSegmentElements(this.ctx, seg, def, problems);
    for (const p of problems) {
      this.add({
        code: p.code,
        level,
        scope: "envelope",
        tag,
        segmentIndex: seg,
        element: p.element,
        ...(p.component !== undefined ? { component: p.component } : {}),
        ...(p.occurrence !== undefined ? { occurrence: p.occurrence } : {}),
        text: `${tag}: ${p.text}`,
        ...extra,
        offset: p.offset,
      });
    }
  }

  /** An issue in UNB (segment 0), element and component 1-based. */
  headerIssue(code: number, element: number, component: number, text: string): void {
    this.add({
      code,
      level: "interchange",
      scope: "envelope",
      tag: "UNB",
      segmentIndex: 0,
      element,
      component,
      text,
    });
  }

  reportOutside(s: number, text: string): void {
    if (this.outsideReported) return;
    this.outsideReported = true;
    this.add({
      code: ErrorCode.invalidOccurrenceOutside,
      level: "interchange",
      scope: "envelope",
      tag: tagOf(this.t, s),
      segmentIndex: s,
      text,
    });
  }

  closeMessage(last: number, trailer: number | undefined): void {
    const m = this.openMessage;
    if (!m) return;
    const t = this.t;
    this.openMessage = undefined;
    const v = firstOccurrences(t, m.first, 3);
    const identifier: MessageIdentifier = {
      type: value(v, 2, 0),
      version: value(v, 2, 1),
      release: value(v, 2, 2),
      agency: value(v, 2, 3),
    };
    setOptional(identifier, "association", value(v, 2, 4));
    setOptional(identifier, "codeListVersion", value(v, 2, 5));
    setOptional(identifier, "subFunction", value(v, 2, 6));
    const envelope: Writable<MessageEnvelope> = {
      index: m.index,
      ref: m.ref,
      identifier,
      firstSegment: m.first,
      lastSegment: trailer ?? last,
      hasTrailer: trailer !== undefined,
    };
    setOptional(envelope, "commonAccessRef", value(v, 3));
    const groupIndex = this.openGroup?.index;
    if (groupIndex !== undefined) envelope.groupIndex = groupIndex;
    this.messages.push(envelope);
    if (trailer === undefined) {
      this.add({
        code: ErrorCode.missing,
        level: "message",
        scope: "envelope",
        tag: "UNT",
        segmentIndex: last,
        messageIndex: m.index,
        offset: t.segEnd[last] ?? t.bytes.length,
        text: `Message ${shown(m.ref)} has no message trailer UNT`,
      });
      return;
    }
    this.checkService(trailer, "UNT", "message", { messageIndex: m.index });
    const count = valueAt(t, trailer, 1);
    const actual = trailer - m.first + 1;
    if (/^\d+$/.test(count) && Number(count) !== actual) {
      this.add({
        code: ErrorCode.controlCountMismatch,
        level: "message",
        scope: "envelope",
        tag: "UNT",
        segmentIndex: trailer,
        element: 1,
        messageIndex: m.index,
        text: `UNT counts ${count} segments but message ${shown(m.ref)} has ${actual} (UNH and UNT included)`,
      });
    }
    const ref = valueAt(t, trailer, 2);
    if (ref !== "" && ref !== m.ref) {
      this.add({
        code: ErrorCode.referencesDoNotMatch,
        level: "message",
        scope: "envelope",
        tag: "UNT",
        segmentIndex: trailer,
        element: 2,
        messageIndex: m.index,
        text: `UNT reference "${shown(ref)}" does not match UNH reference "${shown(m.ref)}"`,
      });
    }
  }

  closeGroup(last: number, trailer: number | undefined): void {
    const g = this.openGroup;
    if (!g) return;
    const t = this.t;
    this.openGroup = undefined;
    this.groups.push({
      index: g.index,
      ref: g.ref,
      firstSegment: g.first,
      lastSegment: trailer ?? last,
      hasTrailer: trailer !== undefined,
      messageIndexes: g.messages,
    });
    if (trailer === undefined) {
      this.add({
        code: ErrorCode.missing,
        level: "group",
        scope: "envelope",
        tag: "UNE",
        segmentIndex: last,
        groupIndex: g.index,
        offset: t.segEnd[last] ?? t.bytes.length,
        text: `Group ${shown(g.ref)} has no group trailer UNE`,
      });
      return;
    }
    this.checkService(trailer, "UNE", "group", { groupIndex: g.index });
    if (g.messages.length === 0) {
      this.add({
        code: ErrorCode.lowerLevelEmpty,
        level: "group",
        scope: "envelope",
        tag: "UNE",
        segmentIndex: trailer,
        groupIndex: g.index,
        text: `Group ${shown(g.ref)} holds no message`,
      });
    }
    const count = valueAt(t, trailer, 1);
    if (/^\d+$/.test(count) && Number(count) !== g.messages.length) {
      this.add({
        code: ErrorCode.controlCountMismatch,
        level: "group",
        scope: "envelope",
        tag: "UNE",
        segmentIndex: trailer,
        element: 1,
        groupIndex: g.index,
        text: `UNE counts ${count} messages but group ${shown(g.ref)} has ${g.messages.length}`,
      });
    }
    const ref = valueAt(t, trailer, 2);
    if (ref !== "" && ref !== g.ref) {
      this.add({
        code: ErrorCode.referencesDoNotMatch,
        level: "group",
        scope: "envelope",
        tag: "UNE",
        segmentIndex: trailer,
        element: 2,
        groupIndex: g.index,
        text: `UNE reference "${shown(ref)}" does not match UNG reference "${shown(g.ref)}"`,
      });
    }
  }
}

/**
 * Parses exactly one interchange: tokenizes, reads UNA/UNB/UNG/UNH/UNT/UNE/UNZ and checks
 * their counts, references and element layout. Never throws; problems are issues.
 */
export function parseInterchange(bytes: Uint8Array, options: ParseOptions = {}): ParseResult {
  const t = tokenize(bytes, options.syntaxIdentifier ? { syntaxIdentifier: options.syntaxIdentifier } : {});
  const walk = new EnvelopeWalk(t);
  const { messages, groups } = walk;
  const issues = walk.issues.items;
  const n = walk.n;
  let headerSegment: number | undefined;
  let header: InterchangeHeader | undefined;
  let version = t.syntaxVersion ?? 3;
  if (n > 0 && tagOf(t, 0) === "UNB") {
    headerSegment = 0;
    header = readHeader(t, 0);
    if (header.syntax.version >= 1 && header.syntax.version <= 4) version = header.syntax.version;
  } else {
    walk.add({
      code: ErrorCode.missing,
      level: "interchange",
      scope: "envelope",
      tag: "UNB",
      segmentIndex: n > 0 ? 0 : -1,
      text:
        n === 0
          ? t.unaUnusable
            ? "The interchange was not read: its UNA service string advice is unusable"
            : "The input holds no interchange: no segments were found"
          : `The input does not start with an interchange header UNB (found "${tagOf(t, 0)}")`,
    });
  }
  walk.useVersion(version);

  if (header && headerSegment !== undefined) {
    walk.checkService(headerSegment, "UNB", "interchange", {});
    if (!isSyntaxIdentifier(header.syntax.identifier)) {
      walk.headerIssue(
        ErrorCode.syntaxVersionNotSupported,
        1,
        1,
        `Syntax identifier "${shown(header.syntax.identifier)}" is not supported (UNOA, UNOB, UNOC, UNOD, UNOE, UNOF, UNOW, UNOY are)`,
      );
    }
    const versionText = valueAt(t, 0, 1, 1);
    if (versionText !== "" && (header.syntax.version < 1 || header.syntax.version > 4)) {
      walk.headerIssue(
        ErrorCode.syntaxVersionNotSupported,
        1,
        2,
        `Syntax version "${shown(versionText)}" is not supported (1 to 4 are)`,
      );
    }
    const expectedDate = version >= 4 ? 8 : 6;
    if (
      header.date.length === expectedDate &&
      header.time.length === 4 &&
      !validDate(header.date, header.time)
    ) {
      walk.headerIssue(
        ErrorCode.invalidValue,
        4,
        1,
        `UNB date/time ${shown(header.date)}:${shown(header.time)} is not a calendar date and time`,
      );
    }
  }

  let trailerSegment: number | undefined;
  let interchangeCount = header ? 1 : 0;
  let ended = false;
  let ungSeen = false;
  let loneMessageSeen = false;
  const refsSeen = new Map<string, Set<string>>();
  const groupRefs = new Set<string>();

  const segStart = t.segStart;
  const release = optionalServiceByte(t.separators.release);
  for (let s = headerSegment === undefined ? 0 : 1; s < n; s++) {
    // This loop visits every segment. A tag starting with neither U nor the release character
    // cannot decode to a service tag: only an open message matters for it.
    const first = bytes[segStart[s] as number];
    if (first !== 0x55 && first !== release && !ended) {
      if (!walk.openMessage) walk.reportOutside(s, `Segment ${tagOf(t, s)} outside a message`);
      continue;
    }
    // Numeric tag ids: decoding each tag would dominate the loop.
    const tag = segmentTagId(t, s);
    if (ended) {
      if (tag === TAG_UNB || tag === TAG_UNA) interchangeCount++;
      // Data after the trailer belongs to no interchange: never silently dropped.
      else if (interchangeCount <= 1)
        walk.reportOutside(s, `Segment ${tagOf(t, s)} after the interchange trailer`);
      continue;
    }
    switch (tag) {
      case TAG_UNB:
      case TAG_UNA:
        interchangeCount++;
        walk.closeMessage(s - 1, undefined);
        walk.closeGroup(s - 1, undefined);
        ended = true;
        break;
      case TAG_UNG: {
        walk.closeMessage(s - 1, undefined);
        walk.closeGroup(s - 1, undefined);
        ungSeen = true;
        const ref = valueAt(t, s, 5);
        const index = groups.length;
        walk.openGroup = { index, first: s, ref, messages: [] };
        walk.checkService(s, "UNG", "group", { groupIndex: index });
        if (groupRefs.has(ref)) {
          walk.add({
            code: ErrorCode.duplicateDetected,
            level: "group",
            scope: "envelope",
            tag: "UNG",
            segmentIndex: s,
            element: 5,
            groupIndex: index,
            text: `Group reference "${shown(ref)}" is used twice in the interchange`,
          });
        }
        groupRefs.add(ref);
        break;
      }
      case TAG_UNE:
        walk.closeMessage(s - 1, undefined);
        if (walk.openGroup) walk.closeGroup(s, s);
        else walk.reportOutside(s, "UNE without UNG");
        break;
      case TAG_UNH: {
        walk.closeMessage(s - 1, undefined);
        const index = messages.length;
        const ref = valueAt(t, s, 1);
        walk.openMessage = { index, first: s, ref };
        if (walk.openGroup) walk.openGroup.messages.push(index);
        else loneMessageSeen = true;
        walk.checkService(s, "UNH", "message", { messageIndex: index });
        const scope = walk.openGroup ? `g${walk.openGroup.ref}` : "";
        const seen = refsSeen.get(scope) ?? new Set<string>();
        refsSeen.set(scope, seen);
        if (seen.has(ref)) {
          walk.add({
            code: ErrorCode.duplicateDetected,
            level: "message",
            scope: "envelope",
            tag: "UNH",
            segmentIndex: s,
            element: 1,
            messageIndex: index,
            text: `Message reference "${shown(ref)}" is used twice`,
          });
        }
        seen.add(ref);
        break;
      }
      case TAG_UNT:
        if (walk.openMessage) walk.closeMessage(s, s);
        else walk.reportOutside(s, "UNT without UNH");
        break;
      case TAG_UNZ:
        walk.closeMessage(s - 1, undefined);
        walk.closeGroup(s - 1, undefined);
        trailerSegment = s;
        ended = true;
        break;
      default:
        if (!walk.openMessage) walk.reportOutside(s, `Segment ${tagOf(t, s)} outside a message`);
    }
  }
  if (!ended) {
    walk.closeMessage(n - 1, undefined);
    walk.closeGroup(n - 1, undefined);
  }

  let trailer: ParsedInterchange["trailer"];
  if (trailerSegment === undefined) {
    if (header) {
      walk.add({
        code: ErrorCode.missing,
        level: "interchange",
        scope: "envelope",
        tag: "UNZ",
        segmentIndex: n - 1,
        offset: t.bytes.length,
        text: "The interchange has no interchange trailer UNZ",
      });
    }
  } else {
    walk.checkService(trailerSegment, "UNZ", "interchange", {});
    trailer = { count: valueAt(t, trailerSegment, 1), controlRef: valueAt(t, trailerSegment, 2) };
    if (header && messages.length === 0 && groups.length === 0) {
      walk.add({
        code: ErrorCode.lowerLevelEmpty,
        level: "interchange",
        scope: "envelope",
        tag: "UNZ",
        segmentIndex: trailerSegment,
        text: "The interchange holds no message",
      });
    }
    const expected = groups.length > 0 ? groups.length : messages.length;
    if (/^\d+$/.test(trailer.count) && Number(trailer.count) !== expected) {
      walk.add({
        code: ErrorCode.controlCountMismatch,
        level: "interchange",
        scope: "envelope",
        tag: "UNZ",
        segmentIndex: trailerSegment,
        element: 1,
        text: `UNZ counts ${trailer.count} ${groups.length > 0 ? "groups" : "messages"} but the interchange has ${expected}`,
      });
    }
    if (header && trailer.controlRef !== "" && trailer.controlRef !== header.controlRef) {
      walk.add({
        code: ErrorCode.referencesDoNotMatch,
        level: "interchange",
        scope: "envelope",
        tag: "UNZ",
        segmentIndex: trailerSegment,
        element: 2,
        text: `UNZ reference "${shown(trailer.controlRef)}" does not match UNB reference "${shown(header.controlRef)}"`,
      });
    }
  }
  if (ungSeen && loneMessageSeen) {
    walk.add({
      code: ErrorCode.groupsAndMessagesMixed,
      level: "interchange",
      scope: "envelope",
      segmentIndex: 0,
      text: "The interchange mixes functional groups and messages outside groups",
    });
  }
  if (interchangeCount > 1) {
    walk.add({
      code: ErrorCode.invalidOccurrenceOutside,
      level: "interchange",
      scope: "envelope",
      tag: "UNB",
      segmentIndex: trailerSegment !== undefined ? trailerSegment + 1 : n - 1,
      text: `The input holds ${interchangeCount} interchanges; exactly one is accepted per upload`,
    });
  }

  for (const ti of t.issues) {
    const seg = ti.segment;
    const message = rangeHolding(messages, seg);
    const groupIndex = rangeHolding(groups, seg)?.index ?? -1;
    // Segment -1 is UNA; one past the last segment (a summary at the end of the input) has no tag.
    const tag = seg < 0 ? "UNA" : seg < n ? tagOf(t, seg) : undefined;
    // A character problem inside a message's data is the message's; in UNH/UNT too (envelope).
    const inBody = message !== undefined && tag !== "UNH" && tag !== "UNT";
    const level: IssueLevel = message
      ? "message"
      : groupIndex >= 0 && (tag === "UNG" || tag === "UNE")
        ? "group"
        : "interchange";
    // Written out: conditional object spreads cost a runtime call each (issue 20: 22 µs an
    // issue in the validator's equivalent loop).
    const issue: Writable<EdifactIssue> = {
      code: ti.code,
      level,
      scope: inBody && ti.element > 0 ? "element" : inBody ? "segment" : "envelope",
      text: ti.text,
      offset: ti.offset,
      segmentIndex: seg,
    };
    if (tag !== undefined) issue.tag = tag;
    if (ti.element > 0) {
      issue.element = ti.element;
      issue.component = ti.component + 1;
    }
    if (ti.occurrence > 0) issue.occurrence = ti.occurrence + 1;
    if (message) {
      issue.messageIndex = message.index;
      issue.position = seg - message.firstSegment + 1;
    } else if (groupIndex >= 0) issue.groupIndex = groupIndex;
    walk.issues.push(issue);
  }
  if (walk.issues.truncated) issues.push(tooManyIssues(t.bytes.length));
  issues.sort((a, b) => a.offset - b.offset);

  messages.sort((a, b) => a.index - b.index);
  const interchange: Writable<ParsedInterchange> = {
    tokens: t,
    separators: t.separators,
    groups,
    messages,
    interchangeCount,
    segmentCount: n,
  };
  if (header) interchange.header = header;
  if (headerSegment !== undefined) interchange.headerSegment = headerSegment;
  if (trailerSegment !== undefined) interchange.trailerSegment = trailerSegment;
  if (trailer) interchange.trailer = trailer;
  return { interchange, issues };
}
