import type { EdifactIssue } from "./issue.types.js";
import { describeErrorCode } from "./syntax/error-codes.js";

/** "segment 5 (BGM), element 1, component 2, byte 123: [12 Invalid value] …" for humans. */
export function formatIssue(issue: EdifactIssue): string {
  const where: string[] = [];
  if (issue.segmentIndex >= 0) {
    where.push(`segment ${issue.segmentIndex + 1}${issue.tag ? ` (${issue.tag})` : ""}`);
  } else if (issue.tag) where.push(issue.tag);
  if (issue.position !== undefined) where.push(`message position ${issue.position}`);
  if (issue.element !== undefined) where.push(`element ${issue.element}`);
  if (issue.component !== undefined) where.push(`component ${issue.component}`);
  if (issue.occurrence !== undefined) where.push(`occurrence ${issue.occurrence}`);
  where.push(`byte ${issue.offset}`);
  return `${where.join(", ")}: [${issue.code} ${describeErrorCode(issue.code)}] ${issue.text}`;
}
