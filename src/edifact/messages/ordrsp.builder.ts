import type { Directory } from "../directories/directory.types.js";
import type { Interchange, Segment } from "../envelope/interchange.types.js";
import type { OrderRef, PartyRef } from "./business.types.js";
import { copiedValue, dtm203, nad, seg, wrapMessage, type OutboundEnvelope } from "./outbound.js";

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

/** The segments between UNH and UNT, made one at a time. */
function* ordrspSegments(input: OrdrspInput): Generator<Segment> {
  yield seg("BGM", "231", input.documentNumber, input.responseType);
  yield seg("DTM", ["137", dtm203(input.envelope.preparedAt), "203"]);
  const dir = input.directory;
  yield seg("RFF", ["ON", copiedValue(dir, "RFF", "1154", input.order.documentNumber)]);
  if (input.order.date) yield seg("DTM", ["171", copiedValue(dir, "DTM", "2380", input.order.date), "102"]);
  const buyer = input.buyer && nad(dir, "BY", input.buyer);
  if (buyer) yield buyer;
  const supplier = input.supplier && nad(dir, "SU", input.supplier);
  if (supplier) yield supplier;
  for (const line of input.lines) {
    const item = line.item;
    yield seg("LIN", copiedValue(dir, "LIN", "1082", line.lineNumber), line.action, [
      copiedValue(dir, "LIN", "7140", item.id),
      copiedValue(dir, "LIN", "7143", item.type),
    ]);
    const q = line.quantity;
    yield seg("QTY", [
      q.qualifier ?? "21",
      copiedValue(dir, "QTY", "6060", q.value) || "0",
      copiedValue(dir, "QTY", "6411", q.unit ?? ""),
    ]);
  }
  yield seg("UNS", "S");
  yield seg("CNT", ["2", String(input.lines.length)]);
}

/**
 * Builds an ORDRSP (BGM 231) answering an ORDERS message: response type 29/4/27, RFF+ON to
 * the order, buyer and supplier, one LIN (action 5/3/7) + QTY per line, UNS and CNT. The
 * message's segments are made as they are iterated (each iteration makes them afresh from
 * `input`), so serializing an answer to a huge order holds only its bytes; spread them
 * (`[...message.segments]`) to hold them as an array.
 */
export function buildOrdrsp(input: OrdrspInput): Interchange {
  return wrapMessage(input.envelope, {
    identifier: {
      type: "ORDRSP",
      version: input.directory.version,
      release: input.directory.release,
      agency: "UN",
    },
    segments: { [Symbol.iterator]: () => ordrspSegments(input) },
  });
}
