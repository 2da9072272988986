import type { Directory } from "../directories/directory.types.js";
import type { Interchange, Segment } from "../envelope/interchange.types.js";
import type { OrderRef, PartyRef } from "./business.types.js";
import { dtm203, seg, wrapMessage, type OutboundEnvelope } from "./outbound.js";

/** BGM 1225 of an ORDRSP: the answer to the whole order. */
export const ResponseType = { accepted: "29", changed: "4", notAccepted: "27" } as const;
export type ResponseTypeCode = (typeof ResponseType)[keyof typeof ResponseType];

/** LIN 1229 of an ORDRSP line. */
export const LineAction = { accepted: "5", changed: "3", notAccepted: "7" } as const;
export type LineActionCode = (typeof LineAction)[keyof typeof LineAction];

export interface OrderLineResponse {
  /** LIN 1082 as in the order. */
  readonly lineNumber: string;
  readonly action: LineActionCode;
  /** LIN C212: item number and its type (7143, e.g. `SRV` GTIN or `EN` EAN). */
  readonly item: { readonly id: string; readonly type: string };
  /** QTY C186: quantity (6060), qualifier (6063, default 21 ordered), unit (6411). */
  readonly quantity: { readonly value: string; readonly qualifier?: string; readonly unit?: string };
}

export interface OrdrspInput {
  readonly directory: Directory;
  readonly envelope: OutboundEnvelope;
  /** BGM 1004 of the ORDRSP itself. */
  readonly documentNumber: string;
  readonly responseType: ResponseTypeCode;
  readonly order: OrderRef;
  readonly buyer?: PartyRef;
  readonly supplier?: PartyRef;
  readonly lines: readonly OrderLineResponse[];
}

function nad(qualifier: string, p: PartyRef): Segment {
  return seg("NAD", qualifier, [p.id, "", p.agency ?? "9"]);
}

/**
 * Builds an ORDRSP (BGM 231) answering an ORDERS message: response type 29/4/27, RFF+ON to
 * the order, buyer and supplier, one LIN (action 5/3/7) + QTY per line, UNS and CNT.
 */
export function buildOrdrsp(input: OrdrspInput): Interchange {
  const segments: Segment[] = [
    seg("BGM", "231", input.documentNumber, input.responseType),
    seg("DTM", ["137", dtm203(input.envelope.preparedAt), "203"]),
    seg("RFF", ["ON", input.order.documentNumber]),
  ];
  if (input.order.date) segments.push(seg("DTM", ["171", input.order.date, "102"]));
  if (input.buyer) segments.push(nad("BY", input.buyer));
  if (input.supplier) segments.push(nad("SU", input.supplier));
  for (const line of input.lines) {
    segments.push(
      seg("LIN", line.lineNumber, line.action, [line.item.id, line.item.type]),
      seg("QTY", [line.quantity.qualifier ?? "21", line.quantity.value, line.quantity.unit ?? ""]),
    );
  }
  segments.push(seg("UNS", "S"), seg("CNT", ["2", String(input.lines.length)]));
  return wrapMessage(input.envelope, {
    identifier: {
      type: "ORDRSP",
      version: input.directory.version,
      release: input.directory.release,
      agency: "UN",
    },
    segments,
  });
}
