import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";

/**
 * VACUUM and ANALYZE where nothing else runs them. PGlite runs PostgreSQL as a single backend
 * without the autovacuum launcher, and a PostgreSQL server may run with `autovacuum = off` (this
 * project's own CI server does). Plans then rest on the statistics of empty tables — a prepared
 * statement keeps its generic plan, which only a change of statistics invalidates — and dead rows
 * are never reclaimed. Measured: a 10 KiB upload's statement went from 0.7 to 2.2 ms over 12,000
 * uploads on PGlite, and back to 0.7 ms after one ANALYZE (docs/decisions.md). This module does
 * what autovacuum would, from the same activity counters and with its default thresholds; on a
 * PostgreSQL server whose autovacuum is on it does nothing.
 */

/** A table's activity since its last VACUUM and ANALYZE, as `pg_stat_user_tables` counts it. */
export interface TableActivity {
  /** Schema-qualified and quoted, ready for a statement. */
  table: string;
  /** `pg_class.reltuples`: rows at the last VACUUM or ANALYZE; -1 before the first. */
  reltuples: number;
  deadTuples: number;
  modifiedSinceAnalyze: number;
  insertedSinceVacuum: number;
}

export interface TableChore {
  table: string;
  vacuum: boolean;
  analyze: boolean;
}

/** PostgreSQL's autovacuum defaults (autovacuum_*_threshold and *_scale_factor). */
export const autovacuumDefaults = {
  vacuumThreshold: 50,
  vacuumScale: 0.2,
  insertThreshold: 1000,
  insertScale: 0.2,
  analyzeThreshold: 50,
  analyzeScale: 0.1,
} as const;

/** What autovacuum would do for this table now; undefined when nothing is due. */
export function choreFor(activity: TableActivity, limits = autovacuumDefaults): TableChore | undefined {
  const rows = Math.max(activity.reltuples, 0);
  const vacuum =
    activity.deadTuples > limits.vacuumThreshold + limits.vacuumScale * rows ||
    activity.insertedSinceVacuum > limits.insertThreshold + limits.insertScale * rows;
  const analyze = activity.modifiedSinceAnalyze > limits.analyzeThreshold + limits.analyzeScale * rows;
  return vacuum || analyze ? { table: activity.table, vacuum, analyze } : undefined;
}

/** `skipLocked`: a table whose VACUUM or ANALYZE lock another session holds is left to it. */
export const choreStatement = ({ table, vacuum, analyze }: TableChore, skipLocked = false): string => {
  const options = [...(skipLocked ? ["SKIP_LOCKED"] : []), ...(vacuum && analyze ? ["ANALYZE"] : [])];
  const listed = options.length > 0 ? ` (${options.join(", ")})` : "";
  return `${vacuum ? "VACUUM" : "ANALYZE"}${listed} ${table}`;
};

/** The activity counters; `onlyWithoutAutovacuum` adds no rows where autovacuum is on. */
const activitySql = (onlyWithoutAutovacuum: boolean) => `
SELECT format('%I.%I', s.schemaname, s.relname) AS "table", c.reltuples::float8 AS reltuples,
  s.n_dead_tup::float8 AS dead, s.n_mod_since_analyze::float8 AS modified,
  s.n_ins_since_vacuum::float8 AS inserted
FROM pg_stat_user_tables AS s JOIN pg_class AS c ON c.oid = s.relid${
  onlyWithoutAutovacuum ? "\nWHERE current_setting('autovacuum') = 'off'" : ""
}`;

interface ActivityRow {
  table: string;
  reltuples: number;
  dead: number;
  modified: number;
  inserted: number;
}

/** Runs the chores due, one table at a time (other statements run in between). */
async function runChores(
  rows: readonly ActivityRow[],
  run: (statement: string) => Promise<unknown>,
  skipLocked = false,
): Promise<TableChore[]> {
  const chores: TableChore[] = [];
  for (const row of rows) {
    const chore = choreFor({
      table: row.table,
      reltuples: row.reltuples,
      deadTuples: row.dead,
      modifiedSinceAnalyze: row.modified,
      insertedSinceVacuum: row.inserted,
    });
    if (!chore) continue;
    await run(choreStatement(chore, skipLocked));
    chores.push(chore);
  }
  return chores;
}

/**
 * One round on PGlite (which runs no autovacuum, whatever its setting says), through the handle's
 * turn-taking instance (pglite-turns.ts): each statement waits for the event loop's next turn and
 * for any open transaction. The counters lag the writes by up to a second (PostgreSQL publishes
 * them at most once a second).
 */
export async function maintainPglite(pglite: PGlite): Promise<TableChore[]> {
  const { rows } = await pglite.query<ActivityRow>(activitySql(false));
  const chores = await runChores(rows, (statement) => pglite.exec(statement));
  await checkpointPglite(pglite);
  return chores;
}

/**
 * PGlite runs PostgreSQL's single-user mode, where nothing checkpoints when the WAL passes
 * `max_wal_size` (a server's checkpointer does): its WAL grew without bound until shutdown
 * (288 MB after writing 240 MB of rows, whatever max_wal_size said). A CHECKPOINT lets PostgreSQL
 * recycle the files down to `min_wal_size`.
 */
async function checkpointPglite(pglite: PGlite): Promise<void> {
  const { rows } = await pglite.query<{ due: boolean }>(walPastLimitSql);
  if (rows[0]?.due === true) await pglite.exec("CHECKPOINT");
}

/** Whether the WAL's files are past `max_wal_size` (whose unit in pg_settings is MB). */
export const walPastLimitSql = `SELECT coalesce(sum(size), 0) > (SELECT setting::bigint * 1048576 FROM pg_settings WHERE name = 'max_wal_size') AS due FROM pg_ls_waldir()`;

/** An arbitrary constant: the advisory lock that lets one process at a time maintain the tables. */
export const maintenanceLock = 7_240_311_925;

/**
 * One round on PostgreSQL: nothing while the server's autovacuum is on; otherwise the chores due,
 * by one process at a time (a session advisory lock on the pooled connection used for them).
 */
export async function maintainPostgres(pool: pg.Pool): Promise<TableChore[]> {
  const client = await pool.connect();
  let locked = false;
  let failure: Error | undefined;
  try {
    const { rows: lock } = await client.query<{ locked: boolean }>(
      "SELECT pg_try_advisory_lock($1) AS locked",
      [maintenanceLock],
    );
    locked = lock[0]?.locked === true;
    if (!locked) return [];
    const { rows } = await client.query<ActivityRow>(activitySql(true));
    return await runChores(rows, (statement) => client.query(statement));
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    if (locked && !failure) await client.query("SELECT pg_advisory_unlock($1)", [maintenanceLock]);
    // A connection that failed is closed, which also releases its advisory lock.
    client.release(failure);
  }
}

/**
 * One round behind a transaction-mode pooler without a direct connection (docs/operations.md
 * "Connection poolers"): a session advisory lock would stay on whichever server connection the
 * pooler ran it on. Each process may then run the same round; `SKIP_LOCKED` leaves a table that
 * another process is vacuuming or analyzing to it (both take a lock that conflicts with itself),
 * and once it is done the counters no longer call for it.
 */
export async function maintainPostgresWithoutSession(pool: pg.Pool): Promise<TableChore[]> {
  const { rows } = await pool.query<ActivityRow>(activitySql(true));
  return runChores(rows, (statement) => pool.query(statement), true);
}

/** One maintenance round, as reported to `onMaintenance`. */
export type MaintenanceReport = { chores: TableChore[]; ms: number } | { error: unknown };

/**
 * Runs `round` every `intervalMs` (the next wait starts when a round ends), without keeping the
 * process alive. `stop` cancels the next round and waits for a running one.
 */
export function scheduleMaintenance(
  round: () => Promise<TableChore[]>,
  intervalMs: number,
  report: (outcome: MaintenanceReport) => void,
): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tell = (outcome: MaintenanceReport): void => {
    try {
      report(outcome);
    } catch {
      // A failing reporter must not end the schedule.
    }
  };
  const next = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      const started = performance.now();
      running = round().then(
        (chores) => {
          tell({ chores, ms: performance.now() - started });
        },
        (error: unknown) => {
          tell({ error });
        },
      );
      void running.then(() => {
        running = undefined;
        next();
      });
    }, intervalMs);
    timer.unref();
  };
  next();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
