import type { Command } from "commander";
import { ConfigError, loadConfig, type Config } from "../config/index.js";
import { createContainer } from "../container.js";
import { describeReseal, resealAll } from "../platform/crypto/index.js";
import { createLogger } from "../platform/logging/logger.js";
import { startProcess } from "../server.js";
import { serverVersion } from "../version.js";
import { registerEdiCommands } from "./edi.command.js";

/** The server's settings from process.env; exits 78 (EX_CONFIG) when they are not valid. */
function configOrExit(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

/** Runs the server until SIGTERM or SIGINT; the only place that serves from process.env. */
async function serve(): Promise<void> {
  const config = configOrExit();
  const logger = createLogger(config.LOG_LEVEL);
  const workerCommand = process.argv[1] ? { entry: process.argv[1], execArgv: process.execArgv } : undefined;
  const running = await startProcess(config, logger, workerCommand ? { workerCommand } : {});
  if (running.url) {
    logger.info(
      { url: running.url, roles: config.HANSE_ROLES, workerPids: running.workerPids?.() },
      "hanse is serving",
    );
  } else logger.info({ roles: config.HANSE_ROLES }, "hanse worker is running");
  const shutdown = (signal: string) => {
    logger.info({ signal }, "shutting down");
    // Requests and jobs get HANSE_SHUTDOWN_TIMEOUT_MS, closing the rest a few seconds more. A stop
    // that hangs past that (a request waiting on a database connection that never answers, which
    // the pool's close would wait for) ends the process with exit code 1 instead of never.
    const deadlineMs = config.HANSE_SHUTDOWN_TIMEOUT_MS + 5_000;
    setTimeout(() => {
      logger.error({ deadlineMs }, "shutdown did not finish in time; exiting");
      process.exit(1);
    }, deadlineMs).unref();
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => {
    shutdown("SIGTERM");
  });
  process.once("SIGINT", () => {
    shutdown("SIGINT");
  });
  // A worker process started by `serve` (HANSE_WORKER_PROCESSES) ends when the API process goes.
  if (process.channel) {
    process.once("disconnect", () => {
      shutdown("disconnect");
    });
  }
}

/**
 * `hanse-server`: the server's own commands (serve, secret-key reseal, the local EDIFACT tools).
 * The API client is the `hanse` command of the client package (packages/client). Actions read
 * process.env and may exit: main.ts is their only caller outside tests that only parse.
 */
export function registerServerCommands(program: Command): void {
  program
    .description("Hanse server: serve, operate the server's database, and the local EDIFACT tools")
    .version(serverVersion, "-V, --version", "print the version");
  program
    .command("serve")
    .description("Run the server (roles from HANSE_ROLES: api, worker or both)")
    .action(serve);
  program
    .command("secret-key")
    .description("HANSE_SECRET_KEY on this server's database (reads the server's environment)")
    .command("reseal")
    .description(
      "Re-seal every stored secret under the current HANSE_SECRET_KEY (after a rotation; safe while the service runs)",
    )
    .option("--batch-size <n>", "rows per statement", "100")
    .action(async (options: { batchSize: string }) => {
      const batchSize = Number(options.batchSize);
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
        throw new Error("--batch-size must be an integer from 1 to 10000");
      }
      const config = configOrExit();
      const logger = createLogger("error", process.stderr);
      const container = await createContainer(config, { logger });
      try {
        const reports = await resealAll(container.sealedColumns, batchSize, (report) => {
          process.stdout.write(`${describeReseal(report)}\n`);
        });
        const unreadable = reports.reduce((sum, report) => sum + report.unreadable, 0);
        if (unreadable > 0) {
          process.stderr.write(
            `${unreadable} value(s) open with none of the configured keys and were left unchanged: set ` +
              "HANSE_SECRET_KEY_PREVIOUS to the key they were sealed with and run this again\n",
          );
          process.exitCode = 2;
        }
      } finally {
        await container.close();
      }
    });
  registerEdiCommands(program);
}
