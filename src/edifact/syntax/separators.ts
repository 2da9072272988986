/** Service characters of an interchange, as advised in UNA or defaulted by ISO 9735. */
export interface Separators {
  readonly component: string;
  readonly element: string;
  readonly decimal: string;
  /** A space means "no release character" (allowed by UNA). */
  readonly release: string;
  /** Syntax version 4 only; a space means "no repetition separator". */
  readonly repetition: string;
  readonly terminator: string;
}

export const DEFAULT_SEPARATORS: Separators = {
  component: ":",
  element: "+",
  decimal: ".",
  release: "?",
  repetition: " ",
  terminator: "'",
};

/** ISO 9735-1 (syntax 4) makes `*` the default repetition separator when UNA is absent. */
export const DEFAULT_SEPARATORS_V4: Separators = { ...DEFAULT_SEPARATORS, repetition: "*" };

export function defaultSeparators(syntaxVersion: number): Separators {
  return syntaxVersion >= 4 ? DEFAULT_SEPARATORS_V4 : DEFAULT_SEPARATORS;
}

/** True when a UNA must be written because the separators differ from the version's defaults. */
export function needsUna(separators: Separators, syntaxVersion: number): boolean {
  const d = defaultSeparators(syntaxVersion);
  return (
    separators.component !== d.component ||
    separators.element !== d.element ||
    separators.decimal !== d.decimal ||
    separators.release !== d.release ||
    separators.repetition !== d.repetition ||
    separators.terminator !== d.terminator
  );
}
