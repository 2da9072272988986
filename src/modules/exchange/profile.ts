/** A connection's profile (rules/contract §4); revisions of it are immutable. */
export interface Identification {
  id: string;
  qualifier?: string;
}

export interface Profile {
  directory: "D96A" | "D25A";
  syntaxVersion: 3 | 4;
  syntaxIdentifier: "UNOA" | "UNOB" | "UNOC" | "UNOD" | "UNOE" | "UNOF" | "UNOW" | "UNOY";
  partnerIdentification: Identification;
  ownIdentification: Identification;
  responses: {
    contrl: "always" | "on-request" | "on-error";
    aperak: "always" | "on-error" | "never";
    ordrsp: "auto" | "never";
  };
  orderValidation: "none" | "catalog";
  /**
   * An upload repeating the UNB sender, recipient and control reference of an upload of the
   * connection processed this many days before is a duplicate (rules/contract §8); 0 turns it off.
   */
  duplicateWindowDays: number;
}

/** The duplicate window of a profile revision that names none. */
export const defaultDuplicateWindowDays = 30;

export type ProfileInput = Omit<
  Profile,
  "responses" | "orderValidation" | "syntaxIdentifier" | "duplicateWindowDays"
> & {
  syntaxIdentifier: string;
  responses?: Partial<Profile["responses"]>;
  orderValidation?: Profile["orderValidation"];
  duplicateWindowDays?: number;
};

/**
 * Fills the documented defaults: CONTRL on error, APERAK on error, ORDRSP automatic, no catalog,
 * a duplicate window of 30 days.
 */
export function normalizeProfile(input: ProfileInput): Profile {
  const id = (p: Identification): Identification =>
    p.qualifier === undefined ? { id: p.id } : { id: p.id, qualifier: p.qualifier };
  return {
    directory: input.directory,
    syntaxVersion: input.syntaxVersion,
    syntaxIdentifier: input.syntaxIdentifier as Profile["syntaxIdentifier"],
    partnerIdentification: id(input.partnerIdentification),
    ownIdentification: id(input.ownIdentification),
    responses: {
      contrl: input.responses?.contrl ?? "on-error",
      aperak: input.responses?.aperak ?? "on-error",
      ordrsp: input.responses?.ordrsp ?? "auto",
    },
    orderValidation: input.orderValidation ?? "none",
    duplicateWindowDays: input.duplicateWindowDays ?? defaultDuplicateWindowDays,
  };
}
