import { hostname } from "node:os";
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { buildApp } from "./app.js";
import type { Config } from "./config/index.js";
import { createContainer, type Container } from "./container.js";
import { createWorker, type Worker } from "./platform/jobs/index.js";
import { uuidv7 } from "./platform/crypto/index.js";
import { startMetricsServer, type MetricsServer } from "./platform/metrics/index.js";
import { makeDirectory } from "@hanse/client";
import { startWorkerProcesses, workerProcessCount, type WorkerCommand } from "./worker-processes.js";

export interface RunningProcess {
  container: Container;
  app?: FastifyInstance;
  worker?: Worker;
  /** The bound address when the API role runs. */
  url?: string;
  /** The metrics listener's address when HANSE_METRICS_PORT is set. */
  metricsUrl?: string;
  /** The worker processes' ids when the jobs run in processes of their own (HANSE_WORKER_PROCESSES). */
  workerPids?: () => number[];
  stop(): Promise<void>;
}

/** rules/contract §0: a generated bootstrap token goes to a 0600 file; only its path is logged. */
async function writeBootstrapToken(config: Config, token: string, logger: Logger): Promise<void> {
  await makeDirectory(config.HANSE_DATA_DIR);
  const path = resolve(join(config.HANSE_DATA_DIR, "bootstrap-token"));
  await writeFile(path, `${token}\n`, { mode: 0o600, flag: "w" });
  logger.info({ path }, "bootstrap administrator token written");
}

/**
 * Starts the roles this process has (API, worker or both) and returns how to stop them. With both
 * roles on PostgreSQL and `workerCommand` given (`serve`), the jobs run in worker processes of
 * their own (HANSE_WORKER_PROCESSES, worker-processes.ts); otherwise in this process.
 */
export async function startProcess(
  config: Config,
  logger: Logger,
  options: { workerCommand?: WorkerCommand } = {},
): Promise<RunningProcess> {
  const container = await createContainer(config, { logger });
  if (container.generatedBootstrapToken) {
    await writeBootstrapToken(config, container.generatedBootstrapToken, logger);
  }
  let app: FastifyInstance | undefined;
  let worker: Worker | undefined;
  let url: string | undefined;
  let metricsServer: MetricsServer | undefined;
  if (config.HANSE_METRICS_PORT !== undefined) {
    metricsServer = await startMetricsServer(container.metrics, {
      port: config.HANSE_METRICS_PORT,
      host: config.HANSE_METRICS_HOST,
    });
    logger.info({ url: `${metricsServer.url}/metrics` }, "metrics listener started");
  }
  const workerProcesses = options.workerCommand ? workerProcessCount(config) : 0;
  const children =
    workerProcesses > 0 && options.workerCommand
      ? startWorkerProcesses(
          config,
          logger.child({ role: "supervisor" }),
          options.workerCommand,
          workerProcesses,
        )
      : undefined;
  if (config.HANSE_ROLES.worker && !children) {
    worker = createWorker({
      database: container.database,
      jobs: container.jobs,
      clock: container.clock,
      logger: logger.child({ role: "worker" }),
      workerId: `${hostname()}:${process.pid}:${uuidv7().slice(-8)}`,
      concurrency: config.HANSE_WORKER_CONCURRENCY,
      pollMs: config.HANSE_JOB_POLL_MS,
      defaultLeaseMs: config.HANSE_JOB_LEASE_SECONDS * 1000,
    });
    await worker.start();
  }
  if (config.HANSE_ROLES.api) {
    // Timeouts and limits of the HTTP server: platform/http/http-server.ts.
    app = await buildApp(container);
    url = await app.listen({ port: config.PORT, host: config.HOST });
  }
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await app?.close();
      await Promise.all([worker?.stop(config.HANSE_SHUTDOWN_TIMEOUT_MS), children?.stop()]);
      await metricsServer?.close();
      await container.close();
    })());
  return {
    container,
    ...(app ? { app } : {}),
    ...(worker ? { worker } : {}),
    ...(url ? { url } : {}),
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    ...(children ? { workerPids: children.pids } : {}),
    stop,
  };
}
