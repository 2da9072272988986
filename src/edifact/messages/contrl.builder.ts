import type { MessageEnvelope, ParsedInterchange, PartyId, Segment } from "../envelope/interchange.types.js";
import { valueAt } from "../envelope/segment.reader.js";
import type { EdifactIssue } from "../issue.types.js";
import type { ValidationReport } from "../validation/interchange.validator.js";
import { EdifactBuildError, seg, wrapMessage, type OutboundEnvelope } from "./outbound.js";
import type { Interchange } from "../envelope/interchange.types.js";

/**
 * `receiptOnly`: a CONTRL that confirms receipt only (UCI action 8), reporting no validation
 * result — for partners who agreed on receipt notices. The partner exchange never sends one
 * (rules/contract §4: it always reports the syntax check, action 7 or 4).
 */
export interface ContrlOptions {
  readonly receiptOnly?: boolean;
}

/** UCI/UCF/UCM 0083 action codes this engine sends. */
export const ContrlAction = { rejected: "4", acknowledged: "7", received: "8" } as const;

const INTERCHANGE_TAGS = new Set(["UNA", "UNB", "UNZ"]);
const GROUP_TAGS = new Set(["UNG", "UNE"]);
const MESSAGE_TAGS = new Set(["UNH", "UNT"]);
const MAX_UCS = 999;
const MAX_UCD = 99;

/**
 * A received value repeated in UCI/UCF/UCM, cut to its length in the CONTRL message (issue 20):
 * a hostile 4 MB reference must not be copied into the answer, and the answer stays valid.
 */
const clip = (value: string, max: number): string => (value.length <= max ? value : value.slice(0, max));

function party(p: PartyId): string[] {
  return [
    clip(p.id, 35),
    clip(p.qualifier ?? "", 4),
    clip(p.internalId ?? "", 35),
    clip(p.internalSubId ?? "", 35),
  ];
}

/** S011: element position, component position and (syntax 4) occurrence. */
function s011(issue: EdifactIssue, syntaxVersion: number): string[] {
  if (issue.element === undefined) return [""];
  const out = [String(issue.element), issue.component !== undefined ? String(issue.component) : ""];
  if (syntaxVersion >= 4 && issue.occurrence !== undefined) out.push(String(issue.occurrence));
  return out;
}

/** 0085, 0013 and S011 of an issue reported in UCI/UCF/UCM itself. */
function errorElements(issue: EdifactIssue | undefined, tags: ReadonlySet<string>, v: number): string[][] {
  if (!issue) return [];
  const tag = issue.tag !== undefined && tags.has(issue.tag) ? issue.tag : "";
  return [[String(issue.code)], [tag], tag !== "" ? s011(issue, v) : [""]];
}

function messageResponse(message: MessageEnvelope, issues: readonly EdifactIssue[], v: number): Segment[] {
  const id = message.identifier;
  const envelopeIssue = issues.find((i) => i.scope === "envelope");
  const out: Segment[] = [
    seg(
      "UCM",
      clip(message.ref, 14),
      [
        clip(id.type, 6),
        clip(id.version, 3),
        clip(id.release, 3),
        clip(id.agency, 2),
        clip(id.association ?? "", 6),
      ],
      "4",
      ...errorElements(envelopeIssue, MESSAGE_TAGS, v),
    ),
  ];
  // One UCS per erroneous segment, by position; a segment-level code goes into UCS itself.
  const bySegment = new Map<number, EdifactIssue[]>();
  for (const i of issues) {
    if (i.scope === "envelope" || i.position === undefined) continue;
    const list = bySegment.get(i.position) ?? [];
    list.push(i);
    bySegment.set(i.position, list);
  }
  const positions = [...bySegment.keys()].sort((a, b) => a - b).slice(0, MAX_UCS);
  for (const position of positions) {
    const list = bySegment.get(position) ?? [];
    const segmentIssue = list.find((i) => i.scope === "segment");
    out.push(seg("UCS", String(position), segmentIssue ? String(segmentIssue.code) : ""));
    for (const i of list.filter((x) => x.scope === "element").slice(0, MAX_UCD)) {
      out.push(seg("UCD", String(i.code), s011(i, v)));
    }
  }
  return out;
}

/**
 * Builds the CONTRL answering a received interchange (ISO 9735 syntax 3: CONTRL 2:2, syntax
 * 4: CONTRL 4:1): UCI 4 when the interchange is rejected, else UCI 7 with a UCM 4 (and its
 * UCS/UCD) for every rejected message. Sender and recipient are the envelope's (ours, then the
 * partner's); UCI names the received interchange as it was received.
 */
export function buildContrl(
  parsed: ParsedInterchange,
  report: ValidationReport,
  env: OutboundEnvelope,
  options: ContrlOptions = {},
): Interchange {
  const header = parsed.header;
  if (!header) throw new EdifactBuildError("A CONTRL needs the received UNB; the input has none");
  const v = env.syntaxVersion;
  const uci = (action: string, ...errors: string[][]): Segment =>
    seg("UCI", clip(header.controlRef, 14), party(header.sender), party(header.recipient), action, ...errors);
  if (options.receiptOnly)
    return wrapMessage(env, { identifier: contrlIdentifier(v), segments: [uci(ContrlAction.received)] });
  const interchangeIssue = report.issues.find((i) => i.level === "interchange");
  const segments: Segment[] = [
    uci(
      report.interchangeAccepted ? ContrlAction.acknowledged : ContrlAction.rejected,
      ...errorElements(interchangeIssue, INTERCHANGE_TAGS, v),
    ),
  ];
  // Issues by message and the first issue of each group, found in one pass each: a CONTRL for
  // thousands of broken messages must not cost messages × issues.
  const byMessage = new Map<number, readonly EdifactIssue[]>();
  for (const verdict of report.messages) byMessage.set(verdict.index, verdict.issues);
  const ownIssues = (m: MessageEnvelope): readonly EdifactIssue[] => byMessage.get(m.index) ?? [];
  const groupIssues = new Map<number, EdifactIssue>();
  for (const i of report.issues) {
    if (i.level === "group" && i.groupIndex !== undefined && !groupIssues.has(i.groupIndex)) {
      groupIssues.set(i.groupIndex, i);
    }
  }
  for (const m of parsed.messages) {
    if (m.groupIndex !== undefined) continue;
    const issues = ownIssues(m);
    if (issues.length > 0) segments.push(...messageResponse(m, issues, v));
  }
  const t = parsed.tokens;
  for (const g of parsed.groups) {
    const groupIssue = groupIssues.get(g.index);
    const rejected = g.messageIndexes
      .map((i) => parsed.messages[i] as MessageEnvelope)
      .filter((m) => ownIssues(m).length > 0);
    if (!groupIssue && rejected.length === 0) continue;
    const s = g.firstSegment;
    segments.push(
      seg(
        "UCF",
        clip(g.ref, 14),
        [clip(valueAt(t, s, 2, 0), 35), clip(valueAt(t, s, 2, 1), 4)],
        [clip(valueAt(t, s, 3, 0), 35), clip(valueAt(t, s, 3, 1), 4)],
        groupIssue ? ContrlAction.rejected : ContrlAction.acknowledged,
        ...errorElements(groupIssue, GROUP_TAGS, v),
      ),
    );
    for (const m of rejected) segments.push(...messageResponse(m, ownIssues(m), v));
  }
  return wrapMessage(env, { identifier: contrlIdentifier(v), segments });
}

/** CONTRL 2:2 for syntax 3, 4:1 for syntax 4. */
const contrlIdentifier = (v: number) =>
  v >= 4
    ? { type: "CONTRL", version: "4", release: "1", agency: "UN" }
    : { type: "CONTRL", version: "2", release: "2", agency: "UN" };
