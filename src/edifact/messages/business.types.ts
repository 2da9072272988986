/** A party in NAD C082: identification and the agency of its code list (3055, `9` = GS1/EAN). */
export interface PartyRef {
  readonly id: string;
  readonly agency?: string;
}

/** The ORDERS message an APERAK or ORDRSP answers. */
export interface OrderRef {
  /** BGM 1004 of the order (the buyer's order number): RFF+ON. */
  readonly documentNumber: string;
  /** UNH 0062 of the ORDERS message: RFF+ACW. */
  readonly messageRef?: string;
  /** Order date CCYYMMDD (DTM 171 under the RFF). */
  readonly date?: string;
}
