import {
  ErrorCode,
  LineAction,
  ResponseType,
  buildAperak,
  buildContrl,
  buildOrdrsp,
  getCompactDirectory,
  issueFinding,
  loadDirectory,
  messageSegments,
  parseInterchange,
  serializeInterchange,
  validateInterchange,
  type ApplicationError,
  type Directory,
  type EdifactIssue,
  type Finding,
  type Interchange,
  type OrderLineResponse,
  type OutboundEnvelope,
  type ParseResult,
  type ParsedInterchange,
  type PartyRef,
  type Segment,
  type ValidationReport,
  formatIssue,
} from "../../../edifact/index.js";
import type { Profile } from "../profile.js";

/**
 * Code values the exchange accepts beyond the UN directories: rules/contract §4 names `SRV` (GS1 GTIN)
 * as a `LIN` item number type, which UN code list 7143 holds only from later directories on
 * (D.96A has `EN` but not `SRV`), and requires APERAK with BGM 1001 `313`, which D.96A's list
 * lacks (added later). Everything else is validated as the directory publishes it.
 */
const exchangeCodeAdditions: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "7143": { SRV: "GS1 Global Trade Item Number (GTIN)" },
  "1001": { "313": "Application error message" },
};

const exchangeDirectories = new Map<Profile["directory"], Directory>();

/** The directory a profile's interchanges are validated and answered in, with the additions above. */
export function exchangeDirectory(id: Profile["directory"]): Directory {
  let directory = exchangeDirectories.get(id);
  if (!directory) {
    const compact = getCompactDirectory(id);
    const codes = { ...compact.codes };
    for (const [element, values] of Object.entries(exchangeCodeAdditions)) {
      codes[element] = { ...values, ...codes[element] };
    }
    directory = loadDirectory({ ...compact, codes });
    exchangeDirectories.set(id, directory);
  }
  return directory;
}

/** What the exchange reads from one syntactically accepted ORDERS message. */
export interface OrderInfo {
  messageRef: string;
  documentNumber: string;
  date?: string;
  buyer?: PartyRef;
  supplier?: PartyRef;
  lines: OrderLine[];
}

interface OrderLine {
  lineNumber: string;
  itemId: string;
  itemType: string;
  quantity: string;
  unit?: string;
  /** 1-based position of its LIN segment in the interchange. */
  position: number;
}

export interface Analysis {
  parsed: ParseResult;
  report: ValidationReport;
  interchangeId: string | undefined;
  /** Accepted ORDERS messages in input order. */
  orders: OrderInfo[];
  rejected: boolean;
  hasSyntaxErrors: boolean;
  ackRequested: boolean;
}

export type OutboundType = "CONTRL" | "APERAK" | "ORDRSP";

export interface PlannedMessage {
  type: OutboundType;
  /** UNH 0062 of the inbound message it answers; null for a CONTRL (it answers the interchange). */
  answers: string | null;
  build(envelope: OutboundEnvelope): Interchange;
}

/**
 * At most this many findings are stored with an upload (the validator lists up to 10,000
 * issues); when there are more, one last finding says how many were left out.
 */
export const MAX_STORED_FINDINGS = 1000;

function capFindings(findings: Finding[]): Finding[] {
  if (findings.length <= MAX_STORED_FINDINGS) return findings;
  const left = findings.length - (MAX_STORED_FINDINGS - 1);
  return [
    ...findings.slice(0, MAX_STORED_FINDINGS - 1),
    {
      level: "interchange",
      code: "18",
      message: `${String(left)} more findings are not listed`,
      messageReference: null,
      segment: null,
      position: null,
      element: null,
    },
  ];
}

const gtinTypes = new Set(["SRV", "EN"]);

const el = (segment: Segment, element: number, component = 0): string =>
  segment.elements[element]?.[component] ?? "";

/** At most this many document numbers of one interchange are kept for the operator's search. */
export const MAX_DOCUMENT_NUMBERS = 1000;
/** A document number longer than this (BGM 1004 is an..35; some partners send more) is not kept. */
export const MAX_DOCUMENT_NUMBER_LENGTH = 70;

/**
 * The document numbers (BGM 1004) of every message of the interchange, whatever its type or
 * verdict, distinct, in message order (rules/contract §8: the operator finds an upload by any of them).
 */
export function documentNumbers(ic: ParsedInterchange): string[] {
  const found = new Set<string>();
  for (const envelope of ic.messages) {
    if (found.size >= MAX_DOCUMENT_NUMBERS) break;
    const bgm = messageSegments(ic, envelope).find((s) => s.tag === "BGM");
    const number = bgm ? el(bgm, 1).trim() : "";
    if (number && number.length <= MAX_DOCUMENT_NUMBER_LENGTH) found.add(number);
  }
  return [...found];
}

/** `firstPosition`: the 1-based position of the first segment (the one after UNH) in the interchange. */
function readOrder(messageRef: string, segments: readonly Segment[], firstPosition: number): OrderInfo {
  const order: OrderInfo = { messageRef, documentNumber: "", lines: [] };
  let current: OrderLine | undefined;
  for (const [index, s] of segments.entries()) {
    switch (s.tag) {
      case "BGM":
        if (!order.documentNumber) order.documentNumber = el(s, 1);
        break;
      case "DTM":
        if (!current && el(s, 0) === "137" && el(s, 0, 2) === "102" && /^\d{8}$/.test(el(s, 0, 1))) {
          order.date = el(s, 0, 1);
        }
        break;
      case "NAD": {
        const party: PartyRef = { id: el(s, 1), ...(el(s, 1, 2) ? { agency: el(s, 1, 2) } : {}) };
        if (!party.id) break;
        if (el(s, 0) === "BY" && !order.buyer) order.buyer = party;
        if (el(s, 0) === "SU" && !order.supplier) order.supplier = party;
        break;
      }
      case "LIN":
        current = {
          lineNumber: el(s, 0) || String(order.lines.length + 1),
          itemId: el(s, 2),
          itemType: el(s, 2, 1),
          quantity: "",
          position: firstPosition + index,
        };
        order.lines.push(current);
        break;
      case "QTY":
        if (current && !current.quantity && (el(s, 0) === "21" || el(s, 0) === "")) {
          current.quantity = el(s, 0, 1);
          if (el(s, 0, 2)) current.unit = el(s, 0, 2);
        }
        break;
      case "UNS":
        current = undefined;
        break;
    }
  }
  return order;
}

/** Parses and validates an uploaded interchange under a profile (pure, no I/O). */
export function analyseInterchange(bytes: Uint8Array, profile: Profile): Analysis {
  const parsed = parseInterchange(bytes);
  const report = validateInterchange(parsed, {
    directory: exchangeDirectory(profile.directory),
    messageTypes: ["ORDERS"],
  });
  const ic = parsed.interchange;
  const orders: OrderInfo[] = [];
  for (const verdict of report.messages) {
    const envelope = ic.messages[verdict.index];
    if (!report.interchangeAccepted || !verdict.accepted || verdict.type !== "ORDERS" || !envelope) continue;
    orders.push(readOrder(envelope.ref, messageSegments(ic, envelope), envelope.firstSegment + 2));
  }
  const allMessagesRejected = report.messages.length > 0 && report.messages.every((m) => !m.accepted);
  return {
    parsed,
    report,
    interchangeId: ic.header?.controlRef,
    orders,
    rejected: !report.interchangeAccepted || allMessagesRejected,
    hasSyntaxErrors: report.issues.length > 0 || !report.interchangeAccepted,
    ackRequested: ic.header?.ackRequested === true,
  };
}

/** GTINs the catalog check needs to know about. */
export const orderedGtins = (analysis: Analysis): string[] => [
  ...new Set(
    analysis.orders.flatMap((o) =>
      o.lines.filter((l) => gtinTypes.has(l.itemType) && l.itemId).map((l) => l.itemId),
    ),
  ),
];

/** Catalog facts per GTIN: the states of the tenant's `product` entities carrying it. */
export type Catalog = ReadonlyMap<string, readonly string[]>;

/** An application error of an order line as a finding on its LIN (element 3: the item number). */
const applicationFinding = (order: OrderInfo, line: OrderLine, error: ApplicationError): Finding => ({
  level: "application",
  code: error.code,
  message: error.text,
  messageReference: order.messageRef,
  segment: "LIN",
  position: line.position,
  element: "3",
});

function judgeLines(order: OrderInfo, profile: Profile, catalog: Catalog) {
  const errors: ApplicationError[] = [];
  const findings: Finding[] = [];
  const lines: OrderLineResponse[] = order.lines.map((line) => {
    const quantity = { value: line.quantity || "0", ...(line.unit ? { unit: line.unit } : {}) };
    const item = { id: line.itemId, type: line.itemType };
    if (profile.orderValidation === "none")
      return { lineNumber: line.lineNumber, action: LineAction.accepted, item, quantity };
    const isGtin = gtinTypes.has(line.itemType) && line.itemId !== "";
    const states = isGtin ? catalog.get(line.itemId) : undefined;
    const accepted = states?.includes("published") === true;
    const error: ApplicationError | undefined = !isGtin
      ? {
          code: "GTIN",
          text: `Line ${line.lineNumber} carries no GTIN (LIN item number SRV/EN)`,
          lineNumber: line.lineNumber,
        }
      : !states
        ? { code: "GTIN", text: `GTIN ${line.itemId} is not in the catalogue`, lineNumber: line.lineNumber }
        : undefined;
    if (error) {
      errors.push(error);
      findings.push(applicationFinding(order, line, error));
    }
    return {
      lineNumber: line.lineNumber,
      action: accepted ? LineAction.accepted : LineAction.notAccepted,
      item,
      quantity,
    };
  });
  return { lines, errors, findings };
}

/** UNB data element position of the interchange control reference (0020). */
const controlRefElement = 5;

/**
 * The finding of an upload rejected as a duplicate (rules/contract §8): syntax error 26 on UNB 0020,
 * naming the earlier upload.
 */
export function duplicateFinding(duplicateOf: string, headerPosition: number | null): Finding {
  return {
    level: "interchange",
    code: String(ErrorCode.duplicateDetected),
    message: `Duplicate interchange: upload ${duplicateOf} of this connection was processed with the same UNB sender, recipient and control reference`,
    messageReference: null,
    segment: "UNB",
    position: headerPosition,
    element: String(controlRefElement),
  };
}

/**
 * The plan of a duplicate interchange (rules/contract §8): only a CONTRL rejecting the interchange
 * (UCI action 4, 0085 = 26 on UNB 0020), when the profile sends CONTRL on errors (`always`,
 * `on-error`, or `on-request` with UNB 0031 = 1); never an APERAK or ORDRSP.
 */
export function planDuplicate(analysis: Analysis, profile: Profile): PlannedMessage[] {
  const ic = analysis.parsed.interchange;
  const contrl = profile.responses.contrl;
  if (!ic.header || (contrl === "on-request" && !analysis.ackRequested)) return [];
  const issue: EdifactIssue = {
    code: ErrorCode.duplicateDetected,
    level: "interchange",
    scope: "envelope",
    text: "Duplicate interchange",
    offset: 0,
    segmentIndex: ic.headerSegment ?? 0,
    tag: "UNB",
    element: controlRefElement,
  };
  const report: ValidationReport = {
    issues: [issue],
    interchangeAccepted: false,
    messages: [],
    groupsAccepted: [],
  };
  return [{ type: "CONTRL", answers: null, build: (envelope) => buildContrl(ic, report, envelope) }];
}

/**
 * The outbound messages of one upload, in mailbox order: at most one CONTRL, then one APERAK per
 * message with application errors, then one ORDRSP per accepted ORDERS message (rules/contract §4).
 */
export function planOutbound(
  analysis: Analysis,
  profile: Profile,
  catalog: Catalog,
  /** Receives the application findings of the order lines, when given. */
  findings?: Finding[],
): PlannedMessage[] {
  const plan: PlannedMessage[] = [];
  const ic = analysis.parsed.interchange;
  const contrl = profile.responses.contrl;
  const wantContrl =
    contrl === "always" ||
    (contrl === "on-error" && (analysis.hasSyntaxErrors || analysis.ackRequested)) ||
    (contrl === "on-request" && analysis.ackRequested);
  // CONTRL answers a received UNB; without a readable one there is nobody to answer.
  if (wantContrl && ic.header) {
    plan.push({
      type: "CONTRL",
      answers: null,
      build: (envelope) => buildContrl(ic, analysis.report, envelope),
    });
  }
  if (analysis.rejected) return plan;
  const directory = exchangeDirectory(profile.directory);
  const judged = analysis.orders.map((order) => ({ order, ...judgeLines(order, profile, catalog) }));
  if (findings) for (const j of judged) findings.push(...j.findings);
  if (profile.responses.aperak !== "never") {
    for (const { order, errors } of judged) {
      if (errors.length === 0) continue;
      plan.push({
        type: "APERAK",
        answers: order.messageRef,
        build: (envelope) =>
          buildAperak({
            directory,
            envelope,
            documentNumber: `AP${envelope.controlRef}`,
            order: {
              documentNumber: order.documentNumber || order.messageRef,
              messageRef: order.messageRef,
              ...(order.date ? { date: order.date } : {}),
            },
            ...(order.buyer ? { buyer: order.buyer } : {}),
            ...(order.supplier ? { supplier: order.supplier } : {}),
            errors,
          }),
      });
    }
  }
  if (profile.responses.ordrsp === "auto") {
    for (const { order, lines } of judged) {
      const accepted = lines.filter((l) => l.action === LineAction.accepted).length;
      const responseType =
        accepted === lines.length
          ? ResponseType.accepted
          : accepted === 0
            ? ResponseType.notAccepted
            : ResponseType.changed;
      plan.push({
        type: "ORDRSP",
        answers: order.messageRef,
        build: (envelope) =>
          buildOrdrsp({
            directory,
            envelope,
            documentNumber: `RS${envelope.controlRef}`,
            responseType,
            order: {
              documentNumber: order.documentNumber || order.messageRef,
              ...(order.date ? { date: order.date } : {}),
            },
            ...(order.buyer ? { buyer: order.buyer } : {}),
            ...(order.supplier ? { supplier: order.supplier } : {}),
            lines,
          }),
      });
    }
  }
  return plan;
}

/** What the analysis of an upload tells the processing job before the catalog is read. */
export interface AnalysisSummary {
  interchangeId: string | undefined;
  /**
   * UNB sender identification (0004), recipient identification (0010) and control reference
   * (0020): what a duplicate repeats (rules/contract §8); null without a readable UNB.
   */
  interchangeKey: [sender: string, recipient: string, controlRef: string] | null;
  /** BGM 1004 of every message, distinct (`documentNumbers`). */
  documentNumbers: string[];
  /** 1-based position of the UNB segment, null without one. */
  headerPosition: number | null;
  rejected: boolean;
  /** The GTINs the catalog check needs (empty unless the profile validates against the catalog). */
  gtins: string[];
  /** The interchange- and message-level findings of the validation (empty for a valid interchange). */
  findings: Finding[];
}

/** The outbound messages planned for an upload and the application findings of the plan. */
export interface OutboundPlan {
  /** Message types in mailbox order. */
  types: OutboundType[];
  /** Per planned message: UNH 0062 of the inbound message it answers, null for a CONTRL. */
  answers: (string | null)[];
  /** Application errors of the order lines (what an APERAK reports). */
  findings: Finding[];
}

/**
 * One upload's EDIFACT work in three steps, with the database reads and writes of the job in
 * between: analyse (parse, validate), plan under the catalog facts, build and serialize under the
 * envelopes the job allocated. Pure; holds the analysis between the steps. The processing job
 * runs it inline for a small interchange and on a worker thread for a large one.
 */
export function createProcessingRun(bytes: Uint8Array, profile: Profile) {
  const analysis = analyseInterchange(bytes, profile);
  let plan: PlannedMessage[] = [];
  return {
    summary(): AnalysisSummary {
      const header = analysis.parsed.interchange.header;
      const headerSegment = analysis.parsed.interchange.headerSegment;
      return {
        interchangeId: analysis.interchangeId,
        interchangeKey: header ? [header.sender.id, header.recipient.id, header.controlRef] : null,
        documentNumbers: documentNumbers(analysis.parsed.interchange),
        headerPosition: header && headerSegment !== undefined ? headerSegment + 1 : null,
        rejected: analysis.rejected,
        gtins: profile.orderValidation === "catalog" && !analysis.rejected ? orderedGtins(analysis) : [],
        findings: capFindings(
          analysis.report.issues.map((issue) => issueFinding(analysis.parsed.interchange, issue)),
        ),
      };
    },
    /** `duplicate`: the interchange repeats a processed one; only its CONTRL is planned. */
    plan(catalog: Catalog, duplicate = false): OutboundPlan {
      const findings: Finding[] = [];
      plan = duplicate
        ? planDuplicate(analysis, profile)
        : planOutbound(analysis, profile, catalog, findings);
      return {
        types: plan.map((message) => message.type),
        answers: plan.map((message) => message.answers),
        findings: capFindings(findings),
      };
    },
    /** The serialized interchanges, one per planned message and envelope, in plan order. */
    build(envelopes: readonly OutboundEnvelope[]): Uint8Array[] {
      return plan.map((message, index) => {
        const envelope = envelopes[index];
        if (!envelope) throw new Error("an envelope per planned message is required");
        return serializeInterchange(message.build(envelope));
      });
    },
  };
}

export type ProcessingRun = ReturnType<typeof createProcessingRun>;

/**
 * Issues of an outbound payload against its own directory: the envelope (every type) and, for
 * APERAK and ORDRSP, the message against the profile's exchange directory with every code list
 * checked. Empty for whatever the builders make (issue 20 defect 7). CONTRL is a service message
 * that no loaded directory defines, so only its envelope is checked.
 */
export function outboundIssues(
  type: OutboundType,
  payload: Uint8Array,
  directory: Profile["directory"],
): string[] {
  const parsed = parseInterchange(payload);
  const issues =
    type === "CONTRL"
      ? parsed.issues
      : validateInterchange(parsed, {
          directory: exchangeDirectory(directory),
          messageTypes: [type],
          codeLists: "strict",
        }).issues;
  return issues.map(formatIssue);
}

/**
 * Sees every outbound payload processing writes, before it is stored. Unset in production; the
 * test suite's setup (test/support/outbound-check.setup.ts) sets it to fail loudly on any
 * payload with outboundIssues, so every message written in any test is validated.
 */
export const outboundObserver: {
  check?: (type: OutboundType, payload: Uint8Array, profile: Profile) => void;
} = {};
