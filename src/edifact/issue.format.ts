import type { EdifactIssue } from "./issue.types.js";
import { describeErrorCode } from "./syntax/error-codes.js";

/**
 * Control characters of the input (a broken tag, a quoted value) as `\xNN`: a report printed to
 * a terminal must not carry bytes the terminal acts on.
 */
export const printable = (text: string): string =>
  // eslint-disable-next-line no-control-regex
  text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);

/**
 * "segment 5 (BGM), element 1, component 2, byte offset 123: [12 Invalid value] …" for humans.
 * Segments, elements and components count from 1 as in CONTRL; the byte offset from 0. A missing
 * segment (13) is reported where it was expected, and its tag names what is missing.
 */
export function formatIssue(issue: EdifactIssue): string {
  const where: string[] = [];
  const tag = issue.tag === undefined ? undefined : printable(issue.tag);
  const missing = issue.code === 13 && issue.scope === "envelope" && issue.element === undefined;
  if (issue.segmentIndex >= 0) {
    const label = tag ? (missing ? ` (where ${tag} was expected)` : ` (${tag})`) : "";
    where.push(`segment ${issue.segmentIndex + 1}${label}`);
  } else if (tag) where.push(tag);
  if (issue.position !== undefined) where.push(`message position ${issue.position}`);
  if (issue.element !== undefined) where.push(`element ${issue.element}`);
  if (issue.component !== undefined) where.push(`component ${issue.component}`);
  if (issue.occurrence !== undefined) where.push(`occurrence ${issue.occurrence}`);
  where.push(`byte offset ${issue.offset}`);
  return `${where.join(", ")}: [${issue.code} ${describeErrorCode(issue.code)}] ${printable(issue.text)}`;
}
