/**
 * The remote mode of the test app (issue 31 item 2): HANSE_TEST_BASE_URL names a running Hanse
 * (scripts/topology.sh: HAProxy in front of two API processes, two worker processes, PgBouncer in
 * transaction mode) and `createTestApp` returns a TestApp whose `inject` goes over HTTP to it, so
 * consecutive requests of one test may reach different processes. There is no database of the
 * test's own: each file's data is kept apart by fresh tenants (unique slugs), provisioned through
 * the bootstrap token HANSE_TEST_BOOTSTRAP_TOKEN. `drainJobs` waits until the worker processes
 * have left no due job (read from the shared database's job queue, HANSE_TEST_JOBS_DATABASE_URL:
 * the only thing the remote mode reads there).
 *
 * What only an in-process app has (its container, database, clock, logs, worker) throws when a
 * test reaches for it: such a test carries one of the markers below and is skipped remotely,
 * with its reason printed.
 */
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { overHttp } from "./http-injector.js";
import type { TestApp } from "./test-app.js";

export const remoteBaseUrl = process.env.HANSE_TEST_BASE_URL;
export const remote = Boolean(remoteBaseUrl);

/** Marks a test (`it.skipIf(marker(reason))`) or a group skipped in the remote mode; prints why. */
function marker(kind: string) {
  return (reason: string): boolean => {
    if (remote) console.log(`remote mode: skipped (${kind}): ${reason}`);
    return remote;
  };
}
/** Needs the in-process app: the fake clock, the container's internals, the server's log lines. */
export const inProcessOnly = marker("inProcessOnly");
/** Reads or writes its own database directly (SQL on the test's database, its own settings). */
export const ownDatabaseOnly = marker("ownDatabaseOnly");
/** Needs a socket to the Hanse process itself (behaviour HAProxy, a proxy, answers in its place). */
export const directSocketOnly = marker("directSocketOnly");
/** Holds across one process but not yet across processes: a defect recorded in docs/status.md. */
export const crossProcessPending = marker("crossProcessPending");

/** An object whose every property access fails, naming what the remote mode does not have. */
function unavailable<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get(_target, property) {
      if (property === "then") return undefined;
      throw new Error(
        `remote mode (HANSE_TEST_BASE_URL): the test app has no ${what} (reached for .${String(property)}); mark the test inProcessOnly or ownDatabaseOnly`,
      );
    },
  });
}

/**
 * Waits until no job of the shared database is due or running, twice in a row (a job may enqueue
 * the next). Read from the jobs table directly (HANSE_TEST_JOBS_DATABASE_URL): the metrics
 * listener keeps its job counts for ten seconds, too long to wait on.
 */
async function drainRemote(jobsDatabaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: jobsDatabaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + 60_000;
    for (let quiet = 0; quiet < 2;) {
      const { rows } = await client.query<{ n: number }>(
        // A suspended tenant's jobs wait until it is resumed (job_tenant_pauses): not the workers' to run.
        `SELECT count(*)::int AS n FROM jobs
          WHERE state = 'running' OR (state = 'queued' AND run_at <= now()
            AND NOT EXISTS (SELECT 1 FROM job_tenant_pauses AS p WHERE p.tenant_id = jobs.tenant_id))`,
      );
      const busy = rows[0]?.n ?? 0;
      quiet = busy === 0 ? quiet + 1 : 0;
      if (Date.now() > deadline)
        throw new Error(`timed out: the worker processes left ${busy} jobs due or running`);
      if (quiet < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
  return 0;
}

export function createRemoteTestApp(options: Record<string, unknown>): TestApp {
  const base = remoteBaseUrl ?? "";
  const settings = Object.keys(options).filter((key) => options[key] !== undefined);
  if (settings.length > 0) {
    throw new Error(
      `remote mode (HANSE_TEST_BASE_URL): createTestApp's ${settings.join(", ")} cannot apply to the remote server; mark the file inProcessOnly`,
    );
  }
  const jobsDatabaseUrl = process.env.HANSE_TEST_JOBS_DATABASE_URL;
  const http = overHttp(() => base);
  const drainJobs = () => {
    if (!jobsDatabaseUrl) {
      throw new Error("remote mode: HANSE_TEST_JOBS_DATABASE_URL is needed to wait for the worker processes");
    }
    return drainRemote(jobsDatabaseUrl);
  };
  // `listen` answers the remote address: tests that need a URL (an SDK client, raw sockets) get HAProxy's.
  const app = new Proxy({} as FastifyInstance, {
    get(_target, property) {
      if (property === "listen") return () => Promise.resolve(base);
      if (property === "close") return () => Promise.resolve();
      if (property === "then") return undefined;
      throw new Error(
        `remote mode (HANSE_TEST_BASE_URL): the test app has no Fastify instance (reached for .${String(property)})`,
      );
    },
  });
  return {
    app,
    container: unavailable("container"),
    config: unavailable("configuration of its own"),
    testDatabase: unavailable("database of its own"),
    // The worker processes run the jobs: starting and stopping "the" worker changes nothing.
    worker: {
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(),
      drain: drainJobs,
    },
    logs: unavailable("log lines (the server's are in the processes' logs)"),
    inject: (opts) => http.inject(opts),
    drainJobs,
    close: () => Promise.resolve(),
  };
}
