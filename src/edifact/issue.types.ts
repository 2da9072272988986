/** Which CONTRL segment answers the issue: UCI (interchange), UCF (group) or UCM (message). */
export type IssueLevel = "interchange" | "group" | "message";

/**
 * How the issue is pointed at: `envelope` (in UCI/UCF/UCM itself with 0013 and S011),
 * `segment` (UCS with the error code) or `element` (UCS + UCD with S011).
 */
export type IssueScope = "envelope" | "segment" | "element";

/** One finding, with its ISO 9735 syntax error code (0085) and where it sits. */
export interface EdifactIssue {
  readonly code: number;
  readonly level: IssueLevel;
  readonly scope: IssueScope;
  /** Partner-readable explanation. */
  readonly text: string;
  /** Byte offset in the input. */
  readonly offset: number;
  /** 0-based index of the segment in the input (UNA not counted); -1 for UNA or no segment. */
  readonly segmentIndex: number;
  readonly tag?: string;
  /** 1-based data element position (S011 0098). */
  readonly element?: number;
  /** 1-based component position (S011 0104). */
  readonly component?: number;
  /** 1-based occurrence of a repeating element (S011 0136, syntax version 4). */
  readonly occurrence?: number;
  /** Index into ParsedInterchange.messages. */
  readonly messageIndex?: number;
  /** 1-based segment position within the message, UNH = 1 (UCS 0096). */
  readonly position?: number;
  /** Index into ParsedInterchange.groups. */
  readonly groupIndex?: number;
}

/**
 * At most this many issues are listed for one interchange: enough to describe any real defect,
 * while a hostile input (a million empty segments) must not grow the report without end. An
 * interchange with more is rejected as a whole, with one more issue (18) saying so.
 */
export const MAX_REPORTED_ISSUES = 10_000;

/**
 * Issues never copy input beyond a small bound (issue 20), so that the count cap above bounds
 * their memory too (10,000 issues of at most ~0.5 KB each: a few MB, whatever the input): a tag
 * in an issue has at most MAX_ISSUE_TAG characters, a value an issue shows (in quotes) at most
 * MAX_SHOWN_VALUE, an issue's text at most MAX_ISSUE_TEXT; whatever is cut ends with "…".
 */
export const MAX_ISSUE_TAG = 8;
export const MAX_SHOWN_VALUE = 35;
export const MAX_ISSUE_TEXT = 200;

/**
 * `s` cut to `max` characters plus "…" when longer. The result is a fresh string: a slice
 * would keep the whole (possibly megabytes long) original alive.
 */
export function cutText(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // never split a surrogate pair
  const codes = new Array<number>(end);
  for (let i = 0; i < end; i++) codes[i] = s.charCodeAt(i);
  return String.fromCharCode(...codes) + "…";
}

/** A value for an issue's text: at most MAX_SHOWN_VALUE characters. */
export const shown = (value: string): string => cutText(value, MAX_SHOWN_VALUE);

/** Keeps at most MAX_REPORTED_ISSUES entries, and notes whether more were offered. */
export class CappedList<T extends { readonly text: string; readonly tag?: string | undefined }> {
  readonly items: T[];
  /** More entries were offered than are kept. */
  truncated = false;

  constructor(initial: readonly T[] = []) {
    this.items = [...initial];
  }

  push(item: T): void {
    if (this.items.length >= MAX_REPORTED_ISSUES) {
      this.truncated = true;
      return;
    }
    // The net under every issue: whatever a wording let through is cut here.
    if (
      item.text.length > MAX_ISSUE_TEXT ||
      (item.tag !== undefined && item.tag.length > MAX_ISSUE_TAG + 1)
    ) {
      item = {
        ...item,
        text: cutText(item.text, MAX_ISSUE_TEXT),
        ...(item.tag !== undefined ? { tag: cutText(item.tag, MAX_ISSUE_TAG) } : {}),
      };
    }
    this.items.push(item);
  }
}

/** The issue that ends a truncated list: the interchange is rejected as a whole. */
export const tooManyIssues = (offset: number): EdifactIssue => ({
  code: 18,
  level: "interchange",
  scope: "envelope",
  segmentIndex: -1,
  offset,
  text: `More than ${String(MAX_REPORTED_ISSUES)} issues: the rest are not listed, and the interchange is rejected`,
});
