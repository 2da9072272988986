import { isDeepStrictEqual } from "node:util";
import {
  issuePlace,
  referenceTokenize,
  type ReferenceIssue,
  type ReferenceSegment,
  type ReferenceToken,
} from "../syntax/tokenizer.reference.js";
import {
  tokComp,
  tokElem,
  tokenize,
  tokReleased,
  tokRep,
  type TokenizeOptions,
  type TokenTable,
} from "../syntax/tokenizer.js";

/** A token table in the reference's terms (issue texts left out: they are wording). */
export interface TokensView {
  readonly tokens: ReferenceToken[];
  readonly segments: ReferenceSegment[];
  readonly issues: ReferenceIssue[];
}

export function tokenTableView(t: TokenTable): TokensView {
  const tokens: ReferenceToken[] = [];
  for (let k = 0; k < t.tokenCount; k++)
    tokens.push({
      start: t.tokStart[k] as number,
      element: tokElem(t, k),
      component: tokComp(t, k),
      occurrence: tokRep(t, k),
      released: tokReleased(t, k),
    });
  const segments: ReferenceSegment[] = [];
  for (let s = 0; s < t.segmentCount; s++)
    segments.push({
      start: t.segStart[s] as number,
      end: t.segEnd[s] as number,
      firstToken: t.segToken[s] as number,
    });
  return { tokens, segments, issues: t.issues.map(issuePlace) };
}

/** Where two views first differ, briefly (a whole view of a large input is too long to diff). */
export function firstDifference(actual: TokensView, expected: TokensView): string | undefined {
  for (const part of ["tokens", "segments", "issues"] as const) {
    const a: readonly unknown[] = actual[part];
    const e: readonly unknown[] = expected[part];
    for (let i = 0; i < Math.max(a.length, e.length); i++) {
      if (!isDeepStrictEqual(a[i], e[i]))
        return `${part}[${i}] (of ${a.length} and ${e.length}): tokenize ${JSON.stringify(a[i])}, reference ${JSON.stringify(e[i])}`;
    }
  }
  return undefined;
}

/** `tokenize` and the reference on the same bytes: their first difference, and the reference's findings. */
export function compareWithReference(
  bytes: Uint8Array,
  options?: TokenizeOptions,
): { difference: string | undefined; findings: number } {
  const { findings, ...expected } = referenceTokenize(bytes, options);
  return { difference: firstDifference(tokenTableView(tokenize(bytes, options)), expected), findings };
}
