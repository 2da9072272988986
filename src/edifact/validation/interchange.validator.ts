import { isDirectoryResolver, type DirectoryResolver } from "../directories/directory.resolver.js";
import type { Directory } from "../directories/directory.types.js";
import { elementContext } from "../envelope/interchange.parser.js";
import type { MessageEnvelope, ParsedInterchange, ParseResult } from "../envelope/interchange.types.js";
import { tagOf } from "../envelope/segment.reader.js";
import { CappedList, shown, tooManyIssues, type EdifactIssue } from "../issue.types.js";
import { ErrorCode } from "../syntax/error-codes.js";
import type { TokenTable } from "../syntax/tokenizer.js";
import * as tags from "../syntax/tag-id.js";
import { directoryProgram, nodeSegments } from "./directory.program.js";
import { checkSegmentElements, type ElementCheckContext, type ElementProblem } from "./element.validator.js";
import { FastWalk } from "./segment-check.js";
import { quickContext, segmentLooksValid } from "./segment.precheck.js";
import { NOT_ACCEPTED, StructureWalker } from "./structure.validator.js";

// Module constants for what the per-segment loop uses: under tsx, every read of an imported
// binding is a getter call, which costs more than the work of the loop itself.
const segmentTagId = tags.segmentTagId;
const TAG_UNH = tags.TAG_UNH;
const TAG_UNT = tags.TAG_UNT;
const REJECTED = NOT_ACCEPTED;
const looksValid = segmentLooksValid;

type Writable<T> = { -readonly [K in keyof T]: T[K] };

export interface ValidateOptions {
  /**
   * One directory for every message, or a resolver that gives each message the directory its
   * UNH names (a message whose directory it does not have gets one UNH finding, code 14).
   */
  readonly directory: Directory | DirectoryResolver;
  /** Message types accepted in this exchange (default: every message of the directory). */
  readonly messageTypes?: readonly string[];
  /**
   * `association` (default): a message whose UNH carries an association assigned code
   * (S009 0057, e.g. EANCOM's EAN008) follows that association's guideline, whose code
   * subsets and extensions (`50E`, `SRV` in D.96A) the UN directory does not hold, so its
   * code values are not checked against UN lists; format and length still are. `strict`:
   * every coded element of every message is checked against the directory's lists.
   */
  readonly codeLists?: "association" | "strict";
}

export interface MessageVerdict {
  readonly index: number;
  readonly ref: string;
  readonly type: string;
  readonly accepted: boolean;
  readonly issues: readonly EdifactIssue[];
}

export interface ValidationReport {
  /** Every issue of the interchange, parse issues included, in input order. */
  readonly issues: readonly EdifactIssue[];
  /** False when the interchange itself must be rejected (UCI action 4). */
  readonly interchangeAccepted: boolean;
  readonly messages: readonly MessageVerdict[];
  /** Group index → accepted. */
  readonly groupsAccepted: readonly boolean[];
}

/** A UNH message identifier this directory cannot judge (S009 component `component`). */
function unhIssue(
  out: CappedList<EdifactIssue>,
  t: TokenTable,
  message: MessageEnvelope,
  component: number,
  text: string,
): void {
  out.push({
    level: "message",
    messageIndex: message.index,
    code: ErrorCode.valueNotSupportedInPosition,
    scope: "envelope",
    tag: "UNH",
    segmentIndex: message.firstSegment,
    offset: t.segStart[message.firstSegment] as number,
    element: 2,
    component,
    text,
  });
}

function validateMessage(
  parsed: ParsedInterchange,
  message: MessageEnvelope,
  options: ValidateOptions,
  ctx: ElementCheckContext,
  out: CappedList<EdifactIssue>,
): void {
  const t = parsed.tokens;
  const id = message.identifier;
  const choice = options.directory;
  let dir: Directory;
  if (isDirectoryResolver(choice)) {
    const own = choice.forMessage(id);
    if (!own) {
      unhIssue(
        out,
        t,
        message,
        2,
        `Message directory "${shown(id.version)}:${shown(id.release)}" of ${shown(id.type)} is not available here (${choice.available.join(", ")} are)`,
      );
      return;
    }
    dir = own;
  } else dir = choice;
  const def = dir.messages.get(id.type);
  if (!def || (options.messageTypes !== undefined && !options.messageTypes.includes(id.type))) {
    const allowed = options.messageTypes ?? [...dir.messages.keys()];
    unhIssue(
      out,
      t,
      message,
      1,
      `Message type "${shown(id.type)}" is not supported here (${allowed.join(", ")} of ${dir.id} are)`,
    );
    return;
  }
  // A message of another release is not judged by this directory's layout: one issue, not fifty.
  if (id.version !== dir.version) {
    unhIssue(
      out,
      t,
      message,
      2,
      `Message version "${shown(id.version)}" does not match directory ${dir.id} (${dir.version})`,
    );
    return;
  }
  if (id.release !== dir.release) {
    unhIssue(
      out,
      t,
      message,
      3,
      `Message release "${shown(id.release)}" does not match directory ${dir.id} (${dir.release})`,
    );
    return;
  }
  if (id.agency !== "UN") unhIssue(out, t, message, 4, `Controlling agency "${shown(id.agency)}" is not UN`);

  const checkCodes = options.codeLists === "strict" || id.association === undefined;
  // Written out: an object spread here cost ~0.8 µs a message, and left a slow shape behind.
  const elementCtx: ElementCheckContext = {
    tokens: ctx.tokens,
    utf8: ctx.utf8,
    decimalMarks: ctx.decimalMarks,
    checkCodes,
  };
  const quick = quickContext(elementCtx);
  const program = directoryProgram(dir);
  const segments = nodeSegments(program, def);
  const walker = new StructureWalker(def);
  const problems: ElementProblem[] = [];
  const last = message.lastSegment;
  const fast = FastWalk.for(t, last, quick, program, def);
  // Per segment: tag id from the bytes, one step of the structure tables, the allocation-free
  // quick check; only a segment the quick check doubts gets the full, wording check. The
  // WebAssembly walk does the first three for every usual segment and leaves the rest here.
  for (let s = message.firstSegment; s <= last; s++) {
    if (fast) {
      s = fast.run(walker, s);
      if (s > last) break;
    }
    const tagId = segmentTagId(t, s);
    const node = walker.acceptId(tagId, s);
    if (node === REJECTED) walker.unexpected(tagOf(t, s), s);
    if (node < 0 || tagId === TAG_UNH || tagId === TAG_UNT) continue;
    const segment = segments[node];
    if (!segment || looksValid(quick, segment, s)) continue;
    const tag = tagOf(t, s);
    problems.length = 0;
    checkSegmentElements(elementCtx, s, segment.def, problems);
    for (const p of problems) {
      // Written out: object spreads here cost a runtime call each.
      const issue: Writable<EdifactIssue> = {
        level: "message",
        messageIndex: message.index,
        code: p.code,
        scope: "element",
        tag,
        segmentIndex: s,
        position: s - message.firstSegment + 1,
        element: p.element,
        offset: p.offset,
        text: `${tag}: ${p.text}`,
      };
      if (p.component !== undefined) issue.component = p.component;
      if (p.occurrence !== undefined) issue.occurrence = p.occurrence;
      out.push(issue);
    }
  }
  walker.finish(message.lastSegment, message.hasTrailer ? undefined : "UNT");
  if (walker.problems.truncated) out.truncated = true;
  for (const p of walker.problems.items) {
    out.push({
      level: "message",
      messageIndex: message.index,
      code: p.code,
      scope: "segment",
      tag: tagOf(t, p.segment),
      segmentIndex: p.segment,
      position: p.segment - message.firstSegment + 1,
      offset: t.segStart[p.segment] as number,
      text: p.text,
    });
  }
}

/**
 * Validates a parsed interchange against a directory: message identifiers, segment group
 * structure and data elements. Returns the parse issues too, so the report is complete.
 */
export function validateInterchange(result: ParseResult, options: ValidateOptions): ValidationReport {
  const parsed = result.interchange;
  const list = new CappedList(result.issues);
  const ctx = elementContext(
    parsed.tokens,
    parsed.header?.syntax.version ?? parsed.tokens.syntaxVersion ?? 3,
  );
  for (const message of parsed.messages) {
    if (list.truncated) break;
    validateMessage(parsed, message, options, ctx, list);
  }
  const issues = list.items;
  // The parser's own list may end with the same verdict already.
  if (list.truncated && !issues.some((i) => i.code === 18 && i.segmentIndex === -1)) {
    issues.push(tooManyIssues(parsed.tokens.bytes.length));
  }
  issues.sort((a, b) => a.offset - b.offset);

  // One pass sorts the issues to their level: an interchange of many broken messages (a hostile
  // upload of thousands of bare UNH segments) must not cost messages × issues.
  let interchangeIssue = false;
  const groupsWithIssues = new Set<number>();
  const byMessage = new Map<number, EdifactIssue[]>();
  for (const issue of issues) {
    if (issue.level === "interchange") interchangeIssue = true;
    else if (issue.level === "group" && issue.groupIndex !== undefined)
      groupsWithIssues.add(issue.groupIndex);
    else if (issue.level === "message" && issue.messageIndex !== undefined) {
      const own = byMessage.get(issue.messageIndex);
      if (own) own.push(issue);
      else byMessage.set(issue.messageIndex, [issue]);
    }
  }
  const interchangeAccepted =
    parsed.header !== undefined && parsed.interchangeCount === 1 && !interchangeIssue;
  const groupsAccepted = parsed.groups.map((g) => interchangeAccepted && !groupsWithIssues.has(g.index));
  const messages = parsed.messages.map((m): MessageVerdict => {
    const own = byMessage.get(m.index) ?? [];
    const groupOk = m.groupIndex === undefined || groupsAccepted[m.groupIndex] === true;
    return {
      index: m.index,
      ref: m.ref,
      type: m.identifier.type,
      accepted: interchangeAccepted && groupOk && own.length === 0,
      issues: own,
    };
  });
  return { issues, interchangeAccepted, messages, groupsAccepted };
}
