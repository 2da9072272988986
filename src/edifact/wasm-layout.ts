/**
 * The one table of the numbers that the engine's WebAssembly modules (syntax/tokenizer.wat,
 * validation/segment-check.wat) and their TypeScript sides share: where things lie in a
 * module's memory, the fields of the records laid out there, and how values are packed into the
 * int32s both sides read (token coordinates, byte classes, positions, transitions, tag ids).
 *
 * The .wat sources name these numbers `{{group.name}}` (see `watConstants`);
 * scripts/wasm-modules.ts puts the values in before assembling, and the TypeScript files derive
 * their module constants from here, so the two sides cannot disagree. After changing a value,
 * run `npm run build:wasm`: src/edifact/wasm-modules.test.ts fails until the committed modules
 * are assembled again. No imports: the build script loads this file as well as the engine.
 *
 * Hot TypeScript loops copy what they need into module constants of their own (`const X =
 * TOKEN_INFO.x`): under tsx a read of an imported binding is a getter call.
 */

// ---------------------------------------------------------------------------------------------
// Shared encodings.

const REP_SHIFT = 10;
const REP_MAX = 0x7f;
const ELEM_SHIFT = 17;
const ELEM_MAX = 0x1fff;
const RELEASED = 1 << 30;

/**
 * A token's packed coordinates (TokenTable.tokInfo): bits 0–9 component, 10–16 occurrence,
 * 17–29 element, 30 "contains release characters". Bit 31 stays clear, so that packed values
 * are positive int32s.
 */
export const TOKEN_INFO = {
  compMax: 0x3ff,
  repShift: REP_SHIFT,
  repMax: REP_MAX,
  elemShift: ELEM_SHIFT,
  elemMax: ELEM_MAX,
  released: RELEASED,
  /** The coordinates without the release flag. */
  coordMask: RELEASED - 1,
  /** The element's bits in place. */
  elemField: ELEM_MAX << ELEM_SHIFT,
  /** The occurrence's bits in place. */
  repField: REP_MAX << REP_SHIFT,
  /** One more occurrence. */
  repOne: 1 << REP_SHIFT,
} as const;

/**
 * Byte classes of the tokenizer's class table (one byte per byte value): the separators that end
 * a token first (component … repetition), the rare classes last.
 */
export const BYTE_CLASS = {
  data: 0,
  component: 1,
  element: 2,
  terminator: 3,
  repetition: 4,
  release: 5,
  bad: 6,
} as const;

/**
 * Tag ids (tag-id.ts): a three-character ASCII tag is its bytes behind bit 24; tags that are not
 * get interned ids from 2^25.
 */
export const TAG_ID = {
  packed: 1 << 24,
  internedBase: 1 << 25,
  UNH: (1 << 24) | 0x554e48,
  UNT: (1 << 24) | 0x554e54,
} as const;

/** The multiplier of the engine's open-addressing int tables (Fibonacci hashing). */
export const HASH = { multiplier: 0x9e3779b1 } as const;

const POSITION_COMPONENT_BITS = 5;
const LENGTH_MAX = 1023;

/**
 * A compiled segment's positions (segment.program.ts). The index of a value is element << 5 |
 * component; the entry there holds the position number p (bits 0–4), its kind (bits 5–7) and,
 * except for `other`, its maximum (bits 8–17) and minimum (bits 18–27) length. A code key is
 * p << 25 | the packed code.
 */
export const POSITION = {
  componentBits: POSITION_COMPONENT_BITS,
  components: 1 << POSITION_COMPONENT_BITS,
  componentMask: (1 << POSITION_COMPONENT_BITS) - 1,
  /** From a token's coordinates to its index: (info >>> coordShift) & elementMask | component. */
  coordShift: ELEM_SHIFT - POSITION_COMPONENT_BITS,
  elementMask: ELEM_MAX << POSITION_COMPONENT_BITS,
  /** Coordinates the quick check leaves to the full check: components from 32, any repetition. */
  unusualCoord: (0x3ff & ~((1 << POSITION_COMPONENT_BITS) - 1)) | (REP_MAX << REP_SHIFT),
  numberMask: 31,
  kindMask: 7 << 5,
  kindPlain: 1 << 5,
  kindCoded: 2 << 5,
  kindNumber: 3 << 5,
  kindOther: 4 << 5,
  maxShift: 8,
  minShift: 18,
  lengthMax: LENGTH_MAX,
  codeShift: 25,
} as const;

/** Representation of a value slot (segment.precheck.ts). */
export const REPRESENTATION = { an: 0, a: 1, n: 2 } as const;

/** A value slot of a compiled segment: four ints per position, addressed by byte offset. */
export const VALUE_SLOT = {
  ints: 4,
  /** log2 of its size in bytes. */
  shift: 4,
  representation: 0,
  min: 4,
  max: 8,
  codeSet: 12,
} as const;

const LEVEL_SHIFT = 15;
const MAX_LEVELS = 32;

/**
 * A structure transition (structure.transitions.ts): the matched node | its level << 15, with
 * REPEAT and SLOW flags; -1 when the tag fits nowhere.
 */
export const TRANSITION = {
  levelShift: LEVEL_SHIFT,
  nodeMask: (1 << LEVEL_SHIFT) - 1,
  maxLevels: MAX_LEVELS,
  levelMask: MAX_LEVELS - 1,
  repeat: 1 << 20,
  slow: 1 << 21,
} as const;

// ---------------------------------------------------------------------------------------------
// The tokenizer's module (syntax/tokenizer.wat, driven by syntax/simd-scan.ts).

/** Its state, int32 slots from TOKENIZER_MEMORY.state in this order (slots 18–21 are unused). */
export const TOKENIZER_STATE = {
  /** The next block (absolute). */
  p: 0,
  /** The start of the token in progress (absolute). */
  start: 1,
  coord: 2,
  tc: 3,
  sc: 4,
  /** The first byte of the next block is released. */
  skip: 5,
  nbl: 6,
  nri: 7,
  /** The input so far ends in line breaks after a terminator. */
  layout: 8,
  /** The end of this window (absolute). */
  end: 9,
  /** Positions written to the outputs are relative to it. */
  base: 10,
  ts: 11,
  ti: 12,
  se: 13,
  st: 14,
  bl: 15,
  ri: 16,
  /** The tokens before this window (segment starts are absolute token indexes). */
  tokenBase: 17,
  comp: 22,
  elem: 23,
  term: 24,
  /** A separator not in use repeats `comp`. */
  rel: 25,
  rep: 26,
  /** A byte of class data, written over layout line breaks. */
  filler: 27,
  /** The end of the whole input (absolute). */
  inputEnd: 28,
} as const;
const TOKENIZER_STATE_SLOTS = 29;

const T_STATE = 288;
/** Bytes per window: a multiple of 16 (the scan's block), small enough to stay in cache. */
const T_WINDOW = 65536;
/** A window ends at most this many tokens and segments (a byte ends at most one). */
const T_WINDOW_CAP = T_WINDOW + 32;
const T_INPUT = 512;
const T_TS = T_INPUT + T_WINDOW + 32;
const T_TI = T_TS + 4 * T_WINDOW_CAP;
const T_SE = T_TI + 4 * T_WINDOW_CAP;
const T_ST = T_SE + 4 * T_WINDOW_CAP;
const T_BL = T_ST + 4 * (T_WINDOW_CAP + 1);
const T_RI = T_BL + 4 * (T_WINDOW / 16 + 2);

/**
 * The tokenizer module's memory (byte offsets): the class table, the two nibble tables of the
 * repertoire check, the state, one window of the input followed by 16 bytes (the input's next
 * ones, or zeros), and the output regions, each large enough for a whole window.
 */
export const TOKENIZER_MEMORY = {
  classes: 0,
  nibblesLow: 256,
  nibblesHigh: 272,
  state: T_STATE,
  stateSlots: TOKENIZER_STATE_SLOTS,
  input: T_INPUT,
  window: T_WINDOW,
  windowCap: T_WINDOW_CAP,
  /** Token starts, token infos, segment ends, segment token starts (from slot 1). */
  ts: T_TS,
  ti: T_TI,
  se: T_SE,
  st: T_ST,
  /** Blocks the nibble tables flagged; release characters that release nothing. */
  bl: T_BL,
  ri: T_RI,
  bytes: T_RI + 4 * T_WINDOW_CAP,
} as const;

// ---------------------------------------------------------------------------------------------
// The validation module (validation/segment-check.wat, driven by validation/segment-check.ts).

const V_IO = 64;
const V_BYTES = 1024;
const V_WINDOW = 65536;
/** A window's tokens and segments: each ends at a byte of the window, plus one unterminated. */
const V_CAP = V_WINDOW + 16;
const V_TS = V_BYTES + V_WINDOW + 64;
const V_TI = V_TS + 4 * V_CAP;
const V_ST = V_TI + 4 * V_CAP;
const V_SE = V_ST + 4 * (V_CAP + 1);

/**
 * The validation module's memory (byte offsets): the walker's state and counts, one window of a
 * message's bytes, its token starts and infos, segment token starts and ends, then the images.
 */
export const SEGMENT_CHECK_MEMORY = {
  /** The walker's state (i32) at io, its occurrence count per level (f64) from io + ioCounts. */
  io: V_IO,
  ioCounts: 8,
  maxLevels: MAX_LEVELS,
  bytes: V_BYTES,
  window: V_WINDOW,
  cap: V_CAP,
  ts: V_TS,
  ti: V_TI,
  st: V_ST,
  se: V_SE,
  /** Message images and segment records, laid out once per process from here. */
  images: V_SE + 4 * V_CAP + 64,
} as const;

/** A segment record (a CompiledSegment in memory): int32 fields in this order. */
export const SEGMENT_RECORD_FIELDS = [
  /** The number of position entries. */
  "size",
  /** The mask of required positions. */
  "required",
  /** The number of ints of conditional pairs. */
  "conditionalInts",
  "codeShift",
  "codeMask",
  "positions",
  "conditional",
  "codeKeys",
  "values",
] as const;

/** A conditional rule of a record: [positions of the composite, its mandatory ones]. */
export const CONDITIONAL_PAIR = { bytes: 8, positions: 0, mandatory: 4 } as const;

/** A message image (a structure and its directory's records in memory): int32 fields in order. */
export const MESSAGE_IMAGE_FIELDS = [
  "tagShift",
  "tagMask",
  "tagKeys",
  /** Dense tag numbers by tag table slot. */
  "denseTags",
  /** Segment records by tag table slot (0: none). */
  "records",
  "transitions",
  /** The number of dense tags. */
  "tags",
  "chainNodes",
  /** Maximum occurrences per node (f64). */
  "maxima",
  "levels",
  "depth",
] as const;
/** Ints reserved for an image's header (one more than its fields). */
export const MESSAGE_IMAGE_INTS = 12;

/** The byte offset of each named int32 field. */
function offsets<const N extends string>(fields: readonly N[]): Record<N, number> {
  return Object.fromEntries(fields.map((f, i) => [f, 4 * i])) as Record<N, number>;
}

export const SEGMENT_RECORD = offsets(SEGMENT_RECORD_FIELDS);
export const MESSAGE_IMAGE = offsets(MESSAGE_IMAGE_FIELDS);

// ---------------------------------------------------------------------------------------------
// The names the .wat sources use.

/**
 * Every `{{name}}` a .wat source may use, with its value: each group's fields under the
 * group's name, and the tokenizer's state slots as addresses (`state.p` is where slot p lies).
 */
export function watConstants(): ReadonlyMap<string, number> {
  const out = new Map<string, number>();
  const add = (group: string, values: Record<string, number>): void => {
    for (const [name, value] of Object.entries(values)) out.set(`${group}.${name}`, value);
  };
  add("tokenInfo", TOKEN_INFO);
  add("class", BYTE_CLASS);
  add("tag", TAG_ID);
  add("hash", HASH);
  add("position", POSITION);
  add("representation", REPRESENTATION);
  add("valueSlot", VALUE_SLOT);
  add("transition", TRANSITION);
  add("tokenizer", TOKENIZER_MEMORY);
  add(
    "state",
    Object.fromEntries(
      Object.entries(TOKENIZER_STATE).map(([name, slot]) => [name, TOKENIZER_MEMORY.state + 4 * slot]),
    ),
  );
  add("check", SEGMENT_CHECK_MEMORY);
  add("record", SEGMENT_RECORD);
  add("conditional", CONDITIONAL_PAIR);
  add("image", MESSAGE_IMAGE);
  return out;
}

/**
 * A .wat source with its `{{name}}`s replaced by their values; throws on a name the table does
 * not have, so a typo cannot assemble.
 */
export function expandWat(template: string, constants = watConstants()): string {
  return template.replace(/\{\{([A-Za-z0-9_.]+)\}\}/g, (_, name: string) => {
    const value = constants.get(name);
    if (value === undefined) throw new Error(`unknown layout constant {{${name}}}`);
    return value >= 0x10000 ? `0x${value.toString(16)}` : String(value);
  });
}
