import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/*
 * docs/architecture.md ("Table owners"), issue 23: every table has one writer, its owner. Only the
 * owner's folder inserts, updates, deletes, copies into or truncates its table; another part whose
 * statement must write it in the same round trip uses the SQL fragment the owner exports
 * (`insertJobsSql`, `insertSmallBlobSql`, `insertAuditEventsSql`, `claimCompletedRecordsSql`,
 * identity's credential check). A new table goes into this list with its owner
 * (docs/architecture.md, "Table owners").
 */
const tableOwners: Readonly<Record<string, string>> = {
  instance_settings: "src/platform/db",
  jobs: "src/platform/jobs",
  job_tenant_pauses: "src/platform/jobs",
  idempotency_records: "src/platform/http",
  audit_events: "src/platform/audit",
  audit_chain_heads: "src/platform/audit",
  blobs: "src/platform/blobs",
  blob_chunks: "src/platform/blobs",
  rate_limits: "src/platform/limits",
  limit_leases: "src/platform/limits",
  tenants: "src/modules/identity",
  users: "src/modules/identity",
  credentials: "src/modules/identity",
  user_invitations: "src/modules/identity",
  password_resets: "src/modules/identity",
  sso_settings: "src/modules/identity",
  sso_states: "src/modules/identity",
  tenant_provisioning: "src/modules/tenants",
  workflow_definitions: "src/modules/workflows",
  workflow_entities: "src/modules/workflows",
  workflow_transition_requests: "src/modules/workflows",
  workflow_lifecycle_adapters: "src/modules/workflows",
  // The exchange's parts: a table one part alone writes is that part's; the connections (mailbox
  // positions reserved by processing) and the uploads (accepted by the inbox, moved on by
  // processing) are the module's.
  exchange_partners: "src/modules/exchange/partners",
  exchange_connections: "src/modules/exchange",
  exchange_profile_revisions: "src/modules/exchange/partners",
  exchange_uploads: "src/modules/exchange",
  exchange_deliveries: "src/modules/exchange/mailbox",
  exchange_upload_documents: "src/modules/exchange/processing",
  // The entitlements' parts likewise; the entitlement tables are the module's (its
  // entitlements.repository.ts, which the administration writes through and housekeeping prunes).
  entitlement_tenants: "src/modules/entitlements",
  entitlement_apps: "src/modules/entitlements",
  entitlement_streams: "src/modules/entitlements",
  entitlements: "src/modules/entitlements",
  entitlement_changes: "src/modules/entitlements",
  entitlement_signing_keys: "src/modules/entitlements/grants",
  service_bindings: "src/modules/entitlements/service-auth",
  service_credentials: "src/modules/entitlements/service-auth",
  service_nonces: "src/modules/entitlements/service-auth",
  webhook_subscriptions: "src/modules/entitlements/webhooks",
  webhook_deliveries: "src/modules/entitlements/webhooks",
  webhook_attempts: "src/modules/entitlements/webhooks",
};

const root = fileURLToPath(new URL("../../../", import.meta.url));
const migrationsDir = "src/platform/db/migrations";

// ---- the scanner -------------------------------------------------------------------------------

/** A write found in a source file; `table` null: the statement names its table at run time. */
interface TableWrite {
  file: string;
  line: number;
  table: string | null;
  /** The Kysely method or SQL command. */
  how: string;
}

/** Kysely's writing query builders. */
const kyselyWrites = new Set(["insertInto", "updateTable", "deleteFrom", "replaceInto", "mergeInto"]);

/** What stands for an interpolated `${…}` in a template's text: a table named there is unknown. */
const hole = "\u00a7";
/** One part of a table's name (`public`, `jobs`, `"Jobs"`); `ident` the whole, captured. */
const part = `"?[A-Za-z_${hole}][\\w$${hole}]*"?`;
const ident = `(${part}(?:\\.${part})?)`;
/** SQL commands that write, in any case, in any string or template literal. */
const sqlWrites: readonly { how: string; pattern: RegExp }[] = [
  { how: "INSERT INTO", pattern: new RegExp(`\\binsert\\s+into\\s+${ident}`, "gi") },
  {
    how: "UPDATE … SET",
    pattern: new RegExp(
      `(?<!\\bdo\\s+)\\bupdate\\s+(?:only\\s+)?${ident}(?:\\s+(?:as\\s+)?\\w+)?\\s+set\\b`,
      "gi",
    ),
  },
  { how: "DELETE FROM", pattern: new RegExp(`\\bdelete\\s+from\\s+(?:only\\s+)?${ident}`, "gi") },
  { how: "MERGE INTO", pattern: new RegExp(`\\bmerge\\s+into\\s+(?:only\\s+)?${ident}`, "gi") },
  { how: "COPY … FROM", pattern: new RegExp(`\\bcopy\\s+${ident}(?:\\s*\\([^)]*\\))?\\s+from\\b`, "gi") },
  {
    how: "TRUNCATE",
    pattern: new RegExp(
      `\\btruncate\\s+(?:table\\s+)?((?:only\\s+)?${part}(?:\\s*,\\s*(?:only\\s+)?${part})*)`,
      "gi",
    ),
  },
];

/** `public."Jobs" AS j` → `jobs`; null when any part of it was interpolated. */
function tableName(written: string): string | null {
  const bare = written
    .trim()
    .replace(/^only\s+/i, "")
    .split(/\s+/)[0] as string;
  if (bare.includes(hole)) return null;
  const last = bare.split(".").pop() as string;
  return last.startsWith('"') ? last.slice(1, -1) : last.toLowerCase();
}

/**
 * The text of a string or template literal, each `${…}` a hole keeping the lines it spans, and a
 * hole after its end: what is joined to it (`"INSERT INTO " + table`) is unknown too.
 */
function literalText(node: ts.Node, source: ts.SourceFile): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return `${node.text} ${hole}`;
  if (!ts.isTemplateExpression(node)) return undefined;
  let text = node.head.text;
  for (const span of node.templateSpans) {
    const lines = span.expression.getText(source).split("\n").length - 1;
    text += hole + "\n".repeat(lines) + hole + span.literal.text;
  }
  return `${text} ${hole}`;
}

/** Every write of `text` (a TypeScript source), by Kysely builder or by SQL in a literal. */
function findTableWrites(file: string, text: string): TableWrite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lineAt = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const writes: TableWrite[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      kyselyWrites.has(node.expression.name.text)
    ) {
      const how = node.expression.name.text;
      const line = lineAt(node.expression.name.getStart(source));
      const [target] = node.arguments;
      const named =
        target && ts.isArrayLiteralExpression(target) ? [...target.elements] : target ? [target] : [];
      for (const element of named.length > 0 ? named : [undefined]) {
        const table = element && ts.isStringLiteralLike(element) ? tableName(element.text) : null;
        writes.push({ file, line, table, how });
      }
    }
    const literal = literalText(node, source);
    if (literal !== undefined) {
      const first = lineAt(node.getStart(source));
      for (const { how, pattern } of sqlWrites) {
        for (const match of literal.matchAll(pattern)) {
          const line = first + (literal.slice(0, match.index).match(/\n/g)?.length ?? 0);
          for (const written of (match[1] as string).split(",")) {
            writes.push({ file, line, table: tableName(written), how });
          }
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return writes.sort((a, b) => a.line - b.line);
}

/** `file:line` of every write outside its table's owner, of an unknown table, or of one not named. */
function ownerViolations(writes: readonly TableWrite[], owners: Readonly<Record<string, string>>): string[] {
  return writes.flatMap(({ file, line, table, how }) => {
    const where = `${file}:${line}`;
    if (table === null) return [`${where}: ${how} names its table at run time`];
    const owner = owners[table];
    if (owner === undefined) return [`${where}: ${how} ${table}, a table without an owner in the list`];
    return file.startsWith(`${owner}/`) ? [] : [`${where}: ${how} ${table}, owned by ${owner}`];
  });
}

/** The tables the migrations leave: created, minus dropped, renames followed. */
function migrationTables(texts: readonly string[]): Set<string> {
  const tables = new Set<string>();
  const statements = new RegExp(
    `\\b(?:create\\s+(?:unlogged\\s+)?table\\s+(?:if\\s+not\\s+exists\\s+)?${ident}` +
      `|createTable\\(\\s*["'\`]([\\w.]+)["'\`]` +
      `|drop\\s+table\\s+(?:if\\s+exists\\s+)?${ident}` +
      `|alter\\s+table\\s+(?:if\\s+exists\\s+)?${ident}\\s+rename\\s+to\\s+${ident})`,
    "gi",
  );
  for (const text of texts) {
    for (const [, created, kyselyCreated, dropped, renamed, to] of text.matchAll(statements)) {
      const add = created ?? kyselyCreated;
      if (add) tables.add(tableName(add) as string);
      if (dropped) tables.delete(tableName(dropped) as string);
      if (renamed && to) {
        tables.delete(tableName(renamed) as string);
        tables.add(tableName(to) as string);
      }
    }
  }
  return tables;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((entry) => {
    const path = `${dir}/${entry}`;
    if (statSync(join(root, path)).isDirectory()) return path === migrationsDir ? [] : sourceFiles(path);
    return path.endsWith(".ts") && !path.endsWith(".test.ts") ? [path] : [];
  });
}

// ---- the rule ----------------------------------------------------------------------------------

describe("issue 23: every table has one writer (docs/architecture.md)", () => {
  it("no source file outside a table's owner writes it", () => {
    const files = sourceFiles("src");
    expect(files.length).toBeGreaterThan(100);
    const writes = files.flatMap((file) => findTableWrites(file, readFileSync(join(root, file), "utf8")));
    // The scan sees the writes it must: the owners' own statements.
    expect(writes.some((w) => w.table === "jobs" && w.file === "src/platform/jobs/queue.ts")).toBe(true);
    expect(ownerViolations(writes, tableOwners)).toEqual([]);
  });

  it("every table of the migrations has exactly one owner in the list, and the list no other table", () => {
    const texts = readdirSync(join(root, migrationsDir))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => readFileSync(join(root, migrationsDir, f), "utf8"));
    const created = [...migrationTables(texts)].sort();
    expect(created.length).toBeGreaterThan(20);
    expect(Object.keys(tableOwners).sort()).toEqual(created);
  });

  it("every owner is a folder of src/", () => {
    for (const owner of new Set(Object.values(tableOwners))) {
      expect(owner.startsWith("src/") && statSync(join(root, owner)).isDirectory(), owner).toBe(true);
    }
  });
});

// ---- the scanner on planted violations --------------------------------------------------------

describe("issue 23: the table-writer scan finds every kind of write", () => {
  const owners = { jobs: "src/platform/jobs", blobs: "src/platform/blobs" };
  const scan = (file: string, text: string) => ownerViolations(findTableWrites(file, text), owners);

  it("Kysely builders: insertInto, updateTable, deleteFrom, replaceInto, mergeInto, aliases and lists", () => {
    const text = [
      `await db.insertInto("jobs").values(row).execute();`,
      `await trx`,
      `  .updateTable("jobs as j")`,
      `  .set({ state: "dead" });`,
      `db.deleteFrom(["blobs", "jobs"]);`,
      `db.replaceInto("jobs"); db.mergeInto("jobs as t");`,
    ].join("\n");
    expect(scan("src/modules/exchange/x.ts", text)).toEqual([
      "src/modules/exchange/x.ts:1: insertInto jobs, owned by src/platform/jobs",
      "src/modules/exchange/x.ts:3: updateTable jobs, owned by src/platform/jobs",
      "src/modules/exchange/x.ts:5: deleteFrom blobs, owned by src/platform/blobs",
      "src/modules/exchange/x.ts:5: deleteFrom jobs, owned by src/platform/jobs",
      "src/modules/exchange/x.ts:6: replaceInto jobs, owned by src/platform/jobs",
      "src/modules/exchange/x.ts:6: mergeInto jobs, owned by src/platform/jobs",
    ]);
    // The owner itself may; reading is not writing.
    expect(scan("src/platform/jobs/queue.ts", `db.insertInto("jobs"); db.updateTable("jobs as j");`)).toEqual(
      [],
    );
    expect(scan("src/modules/exchange/x.ts", `db.selectFrom("jobs").selectAll();`)).toEqual([]);
  });

  it("SQL in strings and templates, any case, across lines and around interpolations", () => {
    const text = [
      "const a = 'insert into jobs (id) values ($1)';",
      "const b = sql`WITH gone AS (",
      "  DELETE FROM public.jobs WHERE id = ${id}",
      "  RETURNING 1)",
      "  SELECT 1`;",
      "const c = \"UPDATE jobs AS j SET state = 'dead'\";",
      "const d = `${prefix} update",
      "  blobs",
      "  set chunk_count = 0`;",
      "const e = `COPY jobs (id, name) FROM STDIN`;",
      "const f = `TRUNCATE TABLE blobs, ONLY jobs`;",
      "const g = `MERGE INTO jobs AS t USING x ON true`;",
      'const h = `INSERT INTO "jobs" (id) SELECT 1`;',
    ].join("\n");
    expect(scan("src/modules/workflows/y.ts", text)).toEqual([
      "src/modules/workflows/y.ts:1: INSERT INTO jobs, owned by src/platform/jobs",
      "src/modules/workflows/y.ts:3: DELETE FROM jobs, owned by src/platform/jobs",
      "src/modules/workflows/y.ts:6: UPDATE … SET jobs, owned by src/platform/jobs",
      "src/modules/workflows/y.ts:7: UPDATE … SET blobs, owned by src/platform/blobs",
      "src/modules/workflows/y.ts:10: COPY … FROM jobs, owned by src/platform/jobs",
      "src/modules/workflows/y.ts:11: TRUNCATE blobs, owned by src/platform/blobs",
      "src/modules/workflows/y.ts:11: TRUNCATE jobs, owned by src/platform/jobs",
      "src/modules/workflows/y.ts:12: MERGE INTO jobs, owned by src/platform/jobs",
      "src/modules/workflows/y.ts:13: INSERT INTO jobs, owned by src/platform/jobs",
    ]);
  });

  it("a table named at run time or missing from the list is a violation; comments and reads are not", () => {
    const text = [
      "db.insertInto(table).values(row);",
      "sql`INSERT INTO ${sql.table(name)} VALUES (1)`; run('DELETE FROM ' + table);",
      "const x = `DELETE FROM users WHERE id = 1`;",
      "// INSERT INTO jobs: a comment is not a statement",
      "/* UPDATE jobs SET state = 'dead' */",
      "const y = `SELECT * FROM jobs FOR UPDATE; COPY (SELECT 1) TO STDOUT`;",
      "const z = `INSERT INTO t (k) VALUES (1) ON CONFLICT (k) DO UPDATE SET k = 2`;",
    ].join("\n");
    expect(scan("src/modules/identity/z.ts", text)).toEqual([
      "src/modules/identity/z.ts:1: insertInto names its table at run time",
      "src/modules/identity/z.ts:2: INSERT INTO names its table at run time",
      "src/modules/identity/z.ts:2: DELETE FROM names its table at run time",
      "src/modules/identity/z.ts:3: DELETE FROM users, a table without an owner in the list",
      "src/modules/identity/z.ts:7: INSERT INTO t, a table without an owner in the list",
    ]);
  });

  it("reads the tables a set of migrations leaves", () => {
    const tables = migrationTables([
      "CREATE TABLE jobs (id uuid); create table if not exists Old_Name (x int);",
      'await db.schema.createTable("blobs").execute(); CREATE UNLOGGED TABLE scratch (x int);',
      "ALTER TABLE old_name RENAME TO new_name; DROP TABLE IF EXISTS scratch;",
    ]);
    expect([...tables].sort()).toEqual(["blobs", "jobs", "new_name"]);
  });
});
