import { spawn } from "node:child_process";
import { sql } from "kysely";
import pg from "pg";
import { openDatabase, type Database } from "../../src/platform/db/database.js";

export interface BenchDatabase {
  label: string;
  /**
   * `settled`: no maintenance schedule; the bench runs `settle` between its load windows instead,
   * so that no window pays for the VACUUM and ANALYZE of rows an earlier window wrote.
   */
  open(options?: { settled?: boolean }): Promise<Database>;
  cleanup(): Promise<void>;
  /** PostgreSQL only: the database's URL, for processes of their own (worker processes). */
  url?: string;
}

const scheduleOf = (options?: { settled?: boolean }) =>
  options?.settled ? { maintenanceIntervalMs: 0 } : {};

/** VACUUM and ANALYZE of every table, outside any measured window (see `open`'s `settled`). */
export async function settle(database: Database): Promise<void> {
  await sql`VACUUM ANALYZE`.execute(database.db);
}

const labels = {
  pglite: "PGlite (embedded)",
  postgres: "PostgreSQL",
  unnamed: "PostgreSQL, unnamed statements",
  pgbouncer: "PostgreSQL through PgBouncer (transaction mode)",
} as const;

const defaultPostgres = "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * The embedded database, and PostgreSQL when one answers (DATABASE_URL or the local default),
 * and with BENCH_PGBOUNCER_URL (a transaction-mode PgBouncer in front of that server, e.g. from
 * `scripts/pgbouncer.sh start`) the same PostgreSQL through it, opened as
 * HANSE_DATABASE_POOLER=transaction opens it (its bare baselines run through it too).
 * BENCH_UNNAMED=1 adds the direct PostgreSQL once more with the pooler's unnamed statements (what
 * the statements alone cost, without PgBouncer's hop).
 * BENCH_DATABASE, a comma-separated list of pglite, postgres, unnamed and pgbouncer, measures only
 * those (e.g. while profiling).
 */
export async function benchDatabases(): Promise<BenchDatabase[]> {
  const only = (process.env.BENCH_DATABASE ?? "").split(",").filter((name) => name in labels);
  const all = await availableDatabases();
  if (only.length === 0) return all;
  const wanted = new Set<string>(only.map((name) => labels[name as keyof typeof labels]));
  const kept = all.filter((d) => wanted.has(d.label));
  for (const d of all) if (!kept.includes(d)) await d.cleanup();
  return kept;
}

/** With a client of its own: the PostgreSQL target's cleanup ends the shared one. */
async function dropDatabase(base: string, name: string): Promise<void> {
  const dropper = new pg.Client({ connectionString: base });
  await dropper.connect();
  await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await dropper.end();
}

async function availableDatabases(): Promise<BenchDatabase[]> {
  const out: BenchDatabase[] = [
    {
      label: labels.pglite,
      open: (options) => openDatabase({ memory: true, ...scheduleOf(options) }),
      cleanup: async () => undefined,
    },
  ];
  const base = process.env.DATABASE_URL ?? defaultPostgres;
  const admin = new pg.Client({ connectionString: base });
  try {
    await admin.connect();
  } catch {
    process.stdout.write("PostgreSQL not reachable; measuring the embedded database only\n");
    return out;
  }
  const name = `hanse_bench_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  out.push({
    label: labels.postgres,
    url: url.toString(),
    open: (options) => openDatabase({ url: url.toString(), poolSize: 20, ...scheduleOf(options) }),
    cleanup: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  });
  if (process.env.BENCH_UNNAMED === "1") {
    const unnamedName = `${name}_unnamed`;
    await admin.query(`CREATE DATABASE ${unnamedName}`);
    const unnamedUrl = new URL(base);
    unnamedUrl.pathname = `/${unnamedName}`;
    out.push({
      label: labels.unnamed,
      url: unnamedUrl.toString(),
      open: (options) =>
        openDatabase({
          url: unnamedUrl.toString(),
          poolSize: 20,
          pooler: "transaction",
          directUrl: unnamedUrl.toString(),
          ...scheduleOf(options),
        }),
      cleanup: () => dropDatabase(base, unnamedName),
    });
  }
  const bouncer = process.env.BENCH_PGBOUNCER_URL;
  if (bouncer) {
    // A database of its own (created directly), so the two targets never share rows.
    const pooledName = `${name}_pgb`;
    await admin.query(`CREATE DATABASE ${pooledName}`);
    const pooledUrl = new URL(bouncer);
    pooledUrl.pathname = `/${pooledName}`;
    out.push({
      label: labels.pgbouncer,
      url: pooledUrl.toString(),
      open: (options) =>
        openDatabase({
          url: pooledUrl.toString(),
          poolSize: 20,
          pooler: "transaction",
          ...scheduleOf(options),
        }),
      cleanup: () => dropDatabase(base, pooledName),
    });
  }
  return out;
}

/**
 * Each database measured in a fresh Node process (`moduleUrl`'s `run()` again, for one database),
 * so that the memory of one measurement does not carry into the next (RSS does not shrink). In the
 * parent this runs the children and returns no database; in a child, the one it measures.
 */
export async function databasesInOwnProcesses(moduleUrl: string): Promise<BenchDatabase[]> {
  const only = process.env.BENCH_TARGET;
  const targets = await benchDatabases();
  if (only !== undefined) {
    for (const target of targets) if (target.label !== only) await target.cleanup();
    return targets.filter((target) => target.label === only);
  }
  for (const target of targets) await target.cleanup();
  for (const { label } of targets) {
    const script = `import { run } from ${JSON.stringify(moduleUrl)}; await run();`;
    const child = spawn(process.execPath, [...process.execArgv, "--input-type=module", "-e", script], {
      env: { ...process.env, BENCH_TARGET: label },
      stdio: "inherit",
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    if (code !== 0) throw new Error(`${moduleUrl} for ${label} exited with ${String(code)}`);
  }
  return [];
}
