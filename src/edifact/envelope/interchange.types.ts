import type { EdifactIssue } from "../issue.types.js";
import type { Separators } from "../syntax/separators.js";
import type { TokenTable } from "../syntax/tokenizer.js";

/** UNB S002/S003 (and UNG S006/S007): an identification with its code qualifier. */
export interface PartyId {
  readonly id: string;
  readonly qualifier?: string;
  /** Reverse routing address (syntax 3) or internal identification (syntax 4). */
  readonly internalId?: string;
  /** Syntax 4 only: internal sub-identification. */
  readonly internalSubId?: string;
}

/** UNH S009. */
export interface MessageIdentifier {
  readonly type: string;
  readonly version: string;
  readonly release: string;
  readonly agency: string;
  readonly association?: string;
  /** Syntax 4: 0110 code list directory version number. */
  readonly codeListVersion?: string;
  /** Syntax 4: 0113 message type sub-function identification. */
  readonly subFunction?: string;
}

/** UNH S010: the message is one of several transfers of the same data. */
export interface TransferStatus {
  /** 0070 sequence of transfers. */
  readonly sequence: string;
  /** 0073 first and last transfer: `C` creation, `F` final. */
  readonly firstAndLast?: string;
}

/** UNH S016 (message subset), S017 (implementation guideline), S018 (scenario); syntax 4. */
export interface MessageReference {
  readonly id: string;
  readonly version?: string;
  readonly release?: string;
  readonly agency?: string;
}

/** One segment as plain data. `elements[i]` holds the components of data element i + 1. */
export interface Segment {
  readonly tag: string;
  readonly elements: readonly (readonly string[])[];
  /** Syntax 4 repetitions: element index (0-based) → further occurrences after the first. */
  readonly repeats?: Readonly<Record<number, readonly (readonly string[])[]>>;
}

/** A message as plain data; UNH and UNT are derived from it when serialising. */
export interface Message {
  readonly ref: string;
  readonly identifier: MessageIdentifier;
  readonly commonAccessRef?: string;
  readonly transferStatus?: TransferStatus;
  readonly subset?: MessageReference;
  readonly implementationGuideline?: MessageReference;
  readonly scenario?: MessageReference;
  /**
   * The segments between UNH and UNT: an array (what parsing gives), or any collection that can
   * be iterated again — builders of large messages (ORDRSP) pass one that makes each segment
   * as the serializer reaches it, so a message of 100,000 lines is never held as objects.
   */
  readonly segments: Iterable<Segment>;
}

export interface Group {
  readonly ref: string;
  /** UNG 0038 (message group identification, e.g. ORDERS). */
  readonly groupId?: string;
  readonly sender?: PartyId;
  readonly recipient?: PartyId;
  readonly date?: string;
  readonly time?: string;
  readonly agency?: string;
  readonly messageVersion?: {
    readonly version: string;
    readonly release: string;
    readonly association?: string;
  };
  readonly password?: string;
  readonly messages: readonly Message[];
}

/** UNB as plain data. */
export interface InterchangeHeader {
  readonly syntax: {
    readonly identifier: string;
    readonly version: number;
    /** Syntax 4: UNB S001 0080 and 0133. */
    readonly serviceCodeListVersion?: string;
    readonly characterEncoding?: string;
  };
  readonly sender: PartyId;
  readonly recipient: PartyId;
  /** YYMMDD (syntax 1–3) or CCYYMMDD (syntax 4), as written in UNB. */
  readonly date: string;
  /** HHMM. */
  readonly time: string;
  readonly controlRef: string;
  readonly recipientReference?: { readonly password: string; readonly qualifier?: string };
  readonly applicationRef?: string;
  readonly priority?: string;
  /** UNB 0031 = 1. */
  readonly ackRequested?: boolean;
  readonly agreementId?: string;
  /** UNB 0035 = 1. */
  readonly test?: boolean;
}

/** A whole interchange as plain data: what the builders produce and the serializer writes. */
export interface Interchange extends InterchangeHeader {
  /** Omitted: the version's default separators. */
  readonly separators?: Separators;
  /** Messages outside groups; empty when `groups` is used. */
  readonly messages: readonly Message[];
  readonly groups?: readonly Group[];
}

/** Envelope facts of one received message, with the input segments it spans. */
export interface MessageEnvelope {
  readonly index: number;
  readonly ref: string;
  readonly identifier: MessageIdentifier;
  readonly commonAccessRef?: string;
  /** Input index of UNH. */
  readonly firstSegment: number;
  /** Input index of UNT, or of the last segment before the next envelope segment when UNT is missing. */
  readonly lastSegment: number;
  readonly hasTrailer: boolean;
  readonly groupIndex?: number;
}

export interface GroupEnvelope {
  readonly index: number;
  readonly ref: string;
  readonly firstSegment: number;
  readonly lastSegment: number;
  readonly hasTrailer: boolean;
  readonly messageIndexes: readonly number[];
}

/**
 * A received interchange: the token table plus envelope facts. Segments are materialised on
 * demand (`readSegment`) so that validating 16 MiB does not build millions of strings.
 */
export interface ParsedInterchange {
  readonly tokens: TokenTable;
  readonly separators: Separators;
  readonly header?: InterchangeHeader;
  /** Input index of UNB / UNZ when present. */
  readonly headerSegment?: number;
  readonly trailerSegment?: number;
  readonly trailer?: { readonly count: string; readonly controlRef: string };
  readonly groups: readonly GroupEnvelope[];
  readonly messages: readonly MessageEnvelope[];
  /** Number of UNB segments seen: exactly 1 is acceptable. */
  readonly interchangeCount: number;
  readonly segmentCount: number;
}

export interface ParseResult {
  readonly interchange: ParsedInterchange;
  /** Syntax and envelope issues (tokenizer, UNA/UNB/UNG/UNH/UNT/UNE/UNZ). */
  readonly issues: readonly EdifactIssue[];
}
