import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Where the customer's EDIFACT corpus and the official UN/EDIFACT directory releases are read from
 * (issue 36 item 6): the one place that knows. They are not part of the repository; CI puts them
 * beside the clone. `HANSE_TEST_CORPUS_DIR` and `HANSE_TEST_DIRECTORIES_DIR` override the defaults
 * (`../shared/corpus` and `../shared/directories` beside the clone; a relative value counts from
 * the working directory). Tests, benches and fuzzers that need them skip with `absent(...)` as
 * their message when the folder is missing; everything else runs without them.
 */
const repoRoot = resolve(import.meta.dirname, "../..");

/** The customer's EDIFACT corpus: `*.edi` files and their expectation table. */
export const corpusDir = resolve(process.env.HANSE_TEST_CORPUS_DIR ?? join(repoRoot, "../shared/corpus"));

/** The official UN/EDIFACT directory releases (`d96a.zip`, `d18a.zip`, …). */
export const directoriesDir = resolve(
  process.env.HANSE_TEST_DIRECTORIES_DIR ?? join(repoRoot, "../shared/directories"),
);

export const hasCorpus = existsSync(corpusDir);
export const hasDirectories = existsSync(directoriesDir);

/** The skip message of a test that needs one of the folders. */
export function absent(dir: string): string {
  const variable = dir === corpusDir ? "HANSE_TEST_CORPUS_DIR" : "HANSE_TEST_DIRECTORIES_DIR";
  return `skipped: ${dir} is absent (set ${variable} to read it from elsewhere)`;
}
