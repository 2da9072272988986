import { afterAll, expect } from "vitest";
// The rules module alone (not the exchange index, which loads the whole module): every test file
// runs this setup, and many of them never process an upload.
import { outboundIssues, outboundObserver } from "../../src/modules/exchange/processing/processing.rules.js";

/**
 * Issue 20 defect 7: every outbound message the processing writes, in any test, is validated
 * against its own directory. An invalid one fails its job at once (the throw) and the test
 * file (the afterAll below), whatever the test itself looks at.
 */
const failures: string[] = [];

outboundObserver.check = (type, payload, profile) => {
  const issues = outboundIssues(type, payload, profile.directory);
  if (issues.length === 0) return;
  const text = `outbound ${type} (${profile.directory}) is invalid against its own directory:\n  ${issues.join("\n  ")}`;
  failures.push(text);
  throw new Error(text);
};

afterAll(() => {
  expect(failures, "outbound messages invalid against their own directory").toEqual([]);
});
