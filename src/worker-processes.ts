import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import type { Logger } from "pino";
import type { Config } from "./config/index.js";

/** How `serve` is started again as a worker: its entry module and Node's own arguments. */
export interface WorkerCommand {
  entry: string;
  execArgv: string[];
}

/**
 * Issue 35 item 3: the worker processes `serve` runs beside its API when it has both roles. On
 * PostgreSQL the default is one (HANSE_WORKER_PROCESSES, 0 = the jobs run in the API process as
 * before); the embedded database lives in one process, so its jobs always run in the API's.
 */
export function workerProcessCount(config: Config): number {
  if (!config.HANSE_ROLES.api || !config.HANSE_ROLES.worker || !config.DATABASE_URL) return 0;
  return config.HANSE_WORKER_PROCESSES ?? 1;
}

const firstRestartMs = 500;
const maxRestartMs = 30_000;
/** A worker that ran this long before it exited is restarted at once again. */
const healthyMs = 60_000;

/**
 * `count` worker processes (`serve` with HANSE_ROLES=worker and the same settings but for the
 * metrics port: HANSE_METRICS_PORT + 1 + its slot), supervised: one
 * that exits is started again (after 0.5 s, doubling up to 30 s while it keeps exiting early). Its
 * output goes where this process's goes. Each child ends itself when this process goes (its IPC
 * channel closes). `stop` sends SIGTERM to each — it finishes its running jobs within
 * HANSE_SHUTDOWN_TIMEOUT_MS — and waits; one still running 5 s past that is killed.
 */
export function startWorkerProcesses(
  config: Config,
  logger: Logger,
  command: WorkerCommand,
  count: number,
): { stop: () => Promise<void>; pids: () => number[] } {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  env.HANSE_ROLES = "worker";
  env.HANSE_WORKER_PROCESSES = "0";
  // Each worker has a metrics listener of its own, on the ports after the API process's (its job
  // runs are counted where they run); 0 stays 0 (a free port, logged by the worker).
  const metricsPort = (slot: number) => {
    const port = config.HANSE_METRICS_PORT;
    return port === undefined ? {} : { HANSE_METRICS_PORT: String(port === 0 ? 0 : port + 1 + slot) };
  };
  const children: (ChildProcess | undefined)[] = [];
  let stopping = false;

  const start = (slot: number, delayMs: number) => {
    const startedAt = Date.now();
    const child = fork(command.entry, ["serve"], {
      env: { ...env, ...metricsPort(slot) },
      execArgv: command.execArgv,
      stdio: "inherit",
    });
    children[slot] = child;
    logger.info({ slot, pid: child.pid }, "worker process started");
    child.once("exit", (code, signal) => {
      children[slot] = undefined;
      if (stopping) return;
      const ranMs = Date.now() - startedAt;
      const nextDelay = ranMs >= healthyMs ? firstRestartMs : Math.min(maxRestartMs, delayMs * 2);
      logger.error({ slot, pid: child.pid, code, signal, restartInMs: nextDelay }, "worker process exited");
      setTimeout(() => {
        if (!stopping) start(slot, nextDelay);
      }, nextDelay).unref();
    });
  };
  for (let slot = 0; slot < count; slot++) start(slot, firstRestartMs / 2);

  return {
    pids: () => children.flatMap((child) => (child?.pid === undefined ? [] : [child.pid])),
    async stop() {
      stopping = true;
      await Promise.all(
        children.map(async (child) => {
          if (!child || child.exitCode !== null || child.signalCode !== null) return;
          const exited = once(child, "exit");
          child.kill("SIGTERM");
          const timer = setTimeout(() => child.kill("SIGKILL"), config.HANSE_SHUTDOWN_TIMEOUT_MS + 5_000);
          await exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}
