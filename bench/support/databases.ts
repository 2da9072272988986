import pg from "pg";
import { openDatabase, type Database } from "../../src/platform/db/database.js";

export interface BenchDatabase {
  label: string;
  open(): Promise<Database>;
  cleanup(): Promise<void>;
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
      open: () => openDatabase({ memory: true }),
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
    open: () => openDatabase({ url: url.toString(), poolSize: 20 }),
    cleanup: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  });
  return out;
}
