/**
 * CPU time spent during a load run, split by who spent it: this process (the server under test
 * and the bench's own bookkeeping), the local PostgreSQL processes, and the load generator (child
 * processes that have exited). On a 2-core machine shared by all three, a ratio is decided by the
 * sum: these figures say where the time of one request goes. Linux only (/proc); elsewhere, and
 * for a PostgreSQL on another host, the database figure is 0.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100;

export interface CpuSnapshot {
  readonly server: number;
  readonly serverSystem: number;
  /** Per PostgreSQL process id, its CPU milliseconds. */
  readonly database: ReadonlyMap<string, number>;
  readonly children: number;
}

export interface CpuSpent {
  /** Milliseconds of CPU in each part. */
  readonly serverMs: number;
  /** Of which in the kernel (system calls: sockets, mostly). */
  readonly serverSystemMs: number;
  readonly databaseMs: number;
  readonly loadMs: number;
}

/** utime + stime (+ cutime + cstime when `children`) of /proc/<pid>/stat, in milliseconds. */
function statMs(pid: string, children: boolean): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // Fields after the command (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const at = (k: number) => Number(fields[k - 3] ?? 0);
    const ticks = at(14) + at(15) + (children ? at(16) + at(17) : 0);
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU milliseconds process `pid` has spent so far (a child that still runs: a receiver). */
export const processCpuMs = (pid: number): number => statMs(String(pid), false);

function postgresMs(): Map<string, number> {
  const out = new Map<string, number>();
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "latin1").trim() === "postgres") out.set(pid, statMs(pid, false));
    } catch {
      // The process ended while we listed them.
    }
  }
  return out;
}

/**
 * CPU the PostgreSQL processes spent between two snapshots: a process that started meanwhile counts
 * whole, one that exited meanwhile (an idle pooled connection closing) is left out — summing totals
 * instead made the figure negative when a busy backend exited.
 */
function databaseMsBetween(before: ReadonlyMap<string, number>, now: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const [pid, ms] of now) total += ms - (before.get(pid) ?? 0);
  return total;
}

export function cpuSnapshot(): CpuSnapshot {
  const own = process.cpuUsage();
  return {
    server: (own.user + own.system) / 1000,
    serverSystem: own.system / 1000,
    database: postgresMs(),
    children: statMs("self", true) - statMs("self", false),
  };
}

export function cpuSince(before: CpuSnapshot): CpuSpent {
  const now = cpuSnapshot();
  return {
    serverMs: now.server - before.server,
    serverSystemMs: now.serverSystem - before.serverSystem,
    databaseMs: databaseMsBetween(before.database, now.database),
    loadMs: now.children - before.children,
  };
}

/** "server (of which kernel) / database / load" CPU microseconds per request. */
export function perRequest(spent: CpuSpent, requests: number): string {
  const us = (ms: number) => (requests > 0 ? Math.round((ms * 1000) / requests) : 0);
  return `${us(spent.serverMs)} (${us(spent.serverSystemMs)}) / ${us(spent.databaseMs)} / ${us(spent.loadMs)}`;
}
