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

/** The bytes of the service characters; -1 where there is none (a space in UNA position 5 or 7). */
export interface SeparatorBytes {
  readonly component: number;
  readonly element: number;
  readonly terminator: number;
  readonly release: number;
  readonly repetition: number;
}

/**
 * The byte of a service character UNA may leave out: a space advises "none" (ISO 9735; only
 * the release character and the repetition separator), which is -1 here.
 */
export function optionalServiceByte(c: string): number {
  return c === " " ? -1 : c.charCodeAt(0);
}

export function separatorBytes(s: Separators): SeparatorBytes {
  return {
    component: s.component.charCodeAt(0),
    element: s.element.charCodeAt(0),
    terminator: s.terminator.charCodeAt(0),
    release: optionalServiceByte(s.release),
    repetition: optionalServiceByte(s.repetition),
  };
}

/** `UNA` and its six service characters. */
export const UNA_LENGTH = 9;

/** True when the bytes at `at` are the tag `UNA` (the advice may still be cut short). */
export function isUnaAt(bytes: ArrayLike<number>, at: number): boolean {
  return bytes[at] === 0x55 && bytes[at + 1] === 0x4e && bytes[at + 2] === 0x41;
}

/**
 * The service characters a UNA advises, read as they are written (a space stays a space):
 * `bytes` holds the UNA at `at` and at least UNA_LENGTH bytes from there. Whether they are
 * usable together is the tokenizer's judgement; the streaming envelope check takes them as
 * they come.
 */
export function unaSeparators(bytes: ArrayLike<number>, at: number): Separators {
  const ch = (k: number): string => String.fromCharCode(bytes[at + 3 + k] as number);
  return {
    component: ch(0),
    element: ch(1),
    decimal: ch(2),
    release: ch(3),
    repetition: ch(4),
    terminator: ch(5),
  };
}
