import type { Directory } from "../directories/directory.types.js";
import type { Interchange, Segment } from "../envelope/interchange.types.js";
import type { OrderRef, PartyRef } from "./business.types.js";
import {
  EdifactBuildError,
  copiedValue,
  dtm203,
  nad,
  seg,
  textComponents,
  wrapMessage,
  type OutboundEnvelope,
} from "./outbound.js";

/** One application error: ERC code (9321), FTX text, and the order line it concerns. */
export interface ApplicationError {
  readonly code: string;
  readonly text: string;
  /** LIN 1082 of the order line: RFF+LI. */
  readonly lineNumber?: string;
}

export interface AperakInput {
  readonly directory: Directory;
  readonly envelope: OutboundEnvelope;
  /** BGM 1004 of the APERAK itself. */
  readonly documentNumber: string;
  readonly order: OrderRef;
  readonly buyer?: PartyRef;
  readonly supplier?: PartyRef;
  readonly errors: readonly ApplicationError[];
}

/**
 * Builds an APERAK (BGM 313) reporting application errors in an ORDERS message: RFF+ON (and
 * RFF+ACW) refer to the order, then one ERC + FTX per error. The segment order fits both the
 * D.96A and the D.25A structure.
 */
export function buildAperak(input: AperakInput): Interchange {
  if (input.errors.length === 0)
    throw new EdifactBuildError("An APERAK reports at least one application error");
  const dir = input.directory;
  const segments: Segment[] = [
    seg("BGM", "313", input.documentNumber, "9"),
    seg("DTM", ["137", dtm203(input.envelope.preparedAt), "203"]),
    seg("RFF", ["ON", copiedValue(dir, "RFF", "1154", input.order.documentNumber)]),
  ];
  if (input.order.date)
    segments.push(seg("DTM", ["171", copiedValue(dir, "DTM", "2380", input.order.date), "102"]));
  if (input.order.messageRef)
    segments.push(seg("RFF", ["ACW", copiedValue(dir, "RFF", "1154", input.order.messageRef)]));
  for (const [qualifier, party] of [
    ["BY", input.buyer],
    ["SU", input.supplier],
  ] as const) {
    const segment = party && nad(dir, qualifier, party);
    if (segment) segments.push(segment);
  }
  for (const e of input.errors) {
    segments.push(seg("ERC", e.code), seg("FTX", "AAO", "", "", textComponents(e.text)));
    if (e.lineNumber) segments.push(seg("RFF", ["LI", copiedValue(dir, "RFF", "1154", e.lineNumber)]));
  }
  return wrapMessage(input.envelope, {
    identifier: {
      type: "APERAK",
      version: input.directory.version,
      release: input.directory.release,
      agency: "UN",
    },
    segments,
  });
}
