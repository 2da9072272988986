import type { OutboundEnvelope } from "../messages/outbound.js";

/** Test inputs written for this engine (not corpus copies). */
export const latin1 = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

export const ordersBody = (ref: string, po: string): string =>
  `UNH+${ref}+ORDERS:D:96A:UN'BGM+220+${po}+9'DTM+137:20240315:102'NAD+BY+5412345000013::9'` +
  `NAD+SU+4012345500004::9'LIN+1++4000862141404:EN'QTY+21:48'UNS+S'CNT+2:1'UNT+10+${ref}'`;

/** A valid D.96A ORDERS interchange, syntax 3, with control reference `ref` and order `PO-<ref>`. */
export const ordersInterchange = (ref: string): string =>
  `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}'${ordersBody("1", `PO-${ref}`)}UNZ+1+${ref}'`;

/** A valid D.96A ORDERS interchange, syntax 3. */
export const VALID_ORDERS = `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+IC1'${ordersBody("1", "PO1")}UNZ+1+IC1'`;

/** Two messages: the first valid, the second with a missing BGM, a bad code and too many elements. */
export const PARTLY_BROKEN_ORDERS =
  `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+IC2++++1'${ordersBody("1", "PO1")}` +
  `UNH+2+ORDERS:D:96A:UN'DTM+137:20240315:102'NAD+ZZX+5412345000013::9'LIN+1++4000862141404:EN+++++9'` +
  `QTY+21:4A8'UNS+S'UNT+7+2'UNZ+2+IC2'`;

/** UNZ counts three messages where there is one, and its reference differs. */
export const REJECTED_ORDERS = `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+IC3'${ordersBody("1", "PO1")}UNZ+3+IC3'`;

/** A UNT count mismatch only: reported in UCM (code 29) without UCS. */
export const UNT_MISMATCH_ORDERS = `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+IC4'${ordersBody("1", "PO1").replace("UNT+10+", "UNT+9+")}UNZ+1+IC4'`;

export const outbound = (syntaxVersion: 3 | 4): OutboundEnvelope => ({
  syntaxIdentifier: "UNOC",
  syntaxVersion,
  sender: { id: "4012345500004", qualifier: "14" },
  recipient: { id: "5412345000013", qualifier: "14" },
  controlRef: "OUT1",
  messageRef: "1",
  preparedAt: new Date(Date.UTC(2025, 5, 1, 8, 30)),
});
