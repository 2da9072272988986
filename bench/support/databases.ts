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

const defaultPostgres = "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * The embedded database, and PostgreSQL when one answers (DATABASE_URL or the local default).
 * BENCH_DATABASE=pglite or =postgres measures only that one (e.g. while profiling).
 */
export async function benchDatabases(): Promise<BenchDatabase[]> {
  const only = process.env.BENCH_DATABASE;
  const all = await availableDatabases();
  if (only !== "pglite" && only !== "postgres") return all;
  const kept = all.filter((d) => d.label.toLowerCase().startsWith(only === "pglite" ? "pglite" : "postgres"));
  for (const d of all) if (!kept.includes(d)) await d.cleanup();
  return kept;
}

async function availableDatabases(): Promise<BenchDatabase[]> {
  const out: BenchDatabase[] = [
    {
      label: "PGlite (embedded)",
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
    label: "PostgreSQL",
    url: url.toString(),
    open: (options) => openDatabase({ url: url.toString(), poolSize: 20, ...scheduleOf(options) }),
    cleanup: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  });
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
