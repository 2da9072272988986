/**
 * ISO 9735 service code list 0085 (syntax error, coded). The values are those of the UNSL
 * published with D.96A (syntax version 3) that are still defined for syntax version 4; CONTRL
 * carries them in UCI/UCF/UCM/UCS/UCD.
 */
export const ErrorCode = {
  unaNotSupported: 1,
  syntaxVersionNotSupported: 2,
  recipientNotActualRecipient: 7,
  invalidValue: 12,
  missing: 13,
  valueNotSupportedInPosition: 14,
  notSupportedInPosition: 15,
  tooManyConstituents: 16,
  noAgreement: 17,
  unspecified: 18,
  invalidDecimalNotation: 19,
  invalidServiceCharacterInUna: 20,
  invalidCharacter: 21,
  invalidServiceCharacter: 22,
  unknownSender: 23,
  testIndicatorNotSupported: 25,
  duplicateDetected: 26,
  referencesDoNotMatch: 28,
  controlCountMismatch: 29,
  groupsAndMessagesMixed: 30,
  lowerLevelEmpty: 32,
  invalidOccurrenceOutside: 33,
  tooManySegmentRepetitions: 35,
  tooManyGroupRepetitions: 36,
  invalidTypeOfCharacter: 37,
  missingDigitBeforeDecimal: 38,
  elementTooLong: 39,
  elementTooShort: 40,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

const NAMES: Readonly<Record<number, string>> = {
  1: "UNA not supported",
  2: "Syntax version or level not supported",
  7: "Interchange recipient not actual recipient",
  12: "Invalid value",
  13: "Missing",
  14: "Value not supported in this position",
  15: "Not supported in this position",
  16: "Too many constituents",
  17: "No agreement",
  18: "Unspecified error",
  19: "Invalid decimal notation",
  20: "Character invalid as service character",
  21: "Invalid character(s)",
  22: "Invalid service character(s)",
  23: "Unknown interchange sender",
  25: "Test indicator not supported",
  26: "Duplicate detected",
  28: "References do not match",
  29: "Control count does not match number of instances received",
  30: "Groups and messages mixed",
  32: "Lower level empty",
  33: "Invalid occurrence outside message, package or group",
  35: "Too many segment repetitions",
  36: "Too many segment group repetitions",
  37: "Invalid type of character(s)",
  38: "Missing digit in front of decimal sign",
  39: "Data element too long",
  40: "Data element too short",
};

/** The code's name as ISO 9735 lists it, for partner-readable reports. */
export function describeErrorCode(code: number): string {
  return NAMES[code] ?? `Syntax error ${code}`;
}
