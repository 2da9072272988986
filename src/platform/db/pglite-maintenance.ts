import type { PGlite } from "@electric-sql/pglite";

/**
 * PGlite runs PostgreSQL as a single backend without the autovacuum launcher, so nothing ever
 * vacuums or analyzes its tables. Plans then rest on the statistics of empty tables — a prepared
 * statement keeps its generic plan, which only a change of statistics invalidates — and dead rows
 * are never reclaimed. Measured: a 10 KiB upload's statement went from 0.7 to 2.2 ms over 12,000
 * uploads, and back to 0.7 ms after one ANALYZE (docs/decisions.md). This module does for PGlite
 * what autovacuum does for PostgreSQL, from the same activity counters and with its defaults.
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

export const choreStatement = ({ table, vacuum, analyze }: TableChore): string =>
  vacuum ? `VACUUM${analyze ? " (ANALYZE)" : ""} ${table}` : `ANALYZE ${table}`;

const activitySql = `
SELECT format('%I.%I', s.schemaname, s.relname) AS "table", c.reltuples::float8 AS reltuples,
  s.n_dead_tup::float8 AS dead, s.n_mod_since_analyze::float8 AS modified,
  s.n_ins_since_vacuum::float8 AS inserted
FROM pg_stat_user_tables AS s JOIN pg_class AS c ON c.oid = s.relid`;

/**
 * Runs the VACUUM and ANALYZE that are due, one table at a time (each waits for any open
 * transaction, as every PGlite statement does, and lets other work in between). The counters
 * lag the writes by up to a second (PostgreSQL flushes them at most once a second).
 */
export async function maintainPglite(pglite: PGlite): Promise<TableChore[]> {
  const { rows } = await pglite.query<{
    table: string;
    reltuples: number;
    dead: number;
    modified: number;
    inserted: number;
  }>(activitySql);
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
    await pglite.exec(choreStatement(chore));
    chores.push(chore);
  }
  return chores;
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
