#!/usr/bin/env node
// Checks an export of Hanse's audit trail (GET /api/v1/admin/audit-events/export, NDJSON) without
// Hanse: Node.js alone. Each sealed record must match its seal, and each seal must follow the one
// before it. Usage:
//   node verify-export.mjs trail.ndjson [--head SEQUENCE:HASH] [--after HASH]
// --head: the chain must end with this seal (the `head` of GET …/audit-events/verification, kept
// when the export was made); --after: it must continue the previous export (its last hash).
// Exit 0 and a summary when the export verifies; exit 1 naming the first record that does not.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

const canonical = (v) =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(",")}]`
    : v !== null && typeof v === "object"
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
          .join(",")}}`
      : JSON.stringify(v);
const sha256 = (text) => createHash("sha256").update(text).digest("hex");
const option = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const fail = (message) => {
  console.error(`NOT VERIFIED: ${message}`);
  process.exit(1);
};

let first,
  last,
  count = 0,
  unsealed = 0,
  line = 0;
const input =
  process.argv[2] && !process.argv[2].startsWith("--") ? createReadStream(process.argv[2]) : process.stdin;
for await (const text of createInterface({ input, crlfDelay: Infinity })) {
  line += 1;
  if (text.trim() === "") continue;
  const { seal, ...record } = JSON.parse(text);
  if (seal === null) {
    unsealed += 1;
    continue;
  }
  const at = `line ${line}, record ${record.id}, sequence ${seal.sequence}`;
  if (sha256(`${seal.previous}\n${canonical(record)}`) !== seal.hash) fail(`${at}: changed`);
  if (last && seal.sequence !== last.sequence + 1) fail(`${at}: records missing before it`);
  if (last && seal.previous !== last.hash) fail(`${at}: does not follow the record before it (reordered)`);
  first ??= seal;
  last = seal;
  count += 1;
}
const after = option("--after");
if (after && first && first.previous !== after) fail(`the export does not continue after ${after}`);
const head = option("--head");
if (head && (!last || `${last.sequence}:${last.hash}` !== head)) {
  fail(`the chain ends at ${last ? `${last.sequence}:${last.hash}` : "nothing"}, not at the head ${head}`);
}
console.log(
  count === 0
    ? `verified: no sealed records (${unsealed} not sealed yet)`
    : `verified: ${count} sealed records, sequences ${first.sequence}–${last.sequence}, after ${first.previous}, ending ${last.sequence}:${last.hash} (${unsealed} not sealed yet)`,
);
