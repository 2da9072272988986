import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { appendFile, chmod, mkdir, readFile, rm } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * PostgreSQL clusters of a test's own (initdb, pg_ctl, pg_basebackup from Debian's server
 * package), for faults the shared server must not suffer: a crash, a restart, a failover. As
 * root, PostgreSQL refuses to run: the commands run as the `postgres` user.
 */

/** The newest installed server's bin directory, or null when none is installed. */
export function postgresBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : null;
}

const asRoot = process.getuid?.() === 0;

async function pgCommand(bin: string, command: string, args: string[]): Promise<string> {
  const file = join(bin, command);
  const { stdout } = asRoot
    ? await run("runuser", ["-u", "postgres", "--", file, ...args])
    : await run(file, args);
  return stdout;
}

/** Whether something accepts TCP connections on the loopback port. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => {
      resolve(false);
    });
  });

export interface Cluster {
  readonly port: number;
  readonly dir: string;
  /** `postgres://postgres@127.0.0.1:<port>` */
  readonly url: string;
  start(): Promise<void>;
  /** `pg_ctl stop -m immediate`: what a crash leaves behind, recovered from WAL at the next start. */
  crash(): Promise<void>;
  /** SIGKILL to the postmaster, as when its machine dies; its backends end when they notice. */
  kill(): Promise<void>;
  /** Ends a standby's recovery: it becomes a primary. */
  promote(): Promise<void>;
  /** Stops it if it runs and removes its directory. */
  destroy(): Promise<void>;
}

function cluster(bin: string, dir: string, port: number): Cluster {
  const log = join(dir, "..", `${port}.log`);
  const pgCtl = (...args: string[]) => pgCommand(bin, "pg_ctl", ["-D", dir, ...args]);
  return {
    port,
    dir,
    url: `postgres://postgres@127.0.0.1:${port}`,
    start: async () => {
      await pgCtl("-l", log, "-w", "-t", "120", "start");
    },
    crash: async () => {
      await pgCtl("-m", "immediate", "-w", "stop");
    },
    kill: async () => {
      const pid = Number((await readFile(join(dir, "postmaster.pid"), "utf8")).split("\n")[0]);
      process.kill(pid, "SIGKILL");
      // The port is free at once: the postmaster held the listening socket.
      for (let i = 0; i < 200 && (await accepts(port)); i++) await new Promise((r) => setTimeout(r, 50));
    },
    promote: async () => {
      await pgCtl("-w", "promote");
    },
    destroy: async () => {
      await pgCtl("-m", "immediate", "stop").catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Settings of both clusters: small, fast, replication-ready, on loopback only. */
const settings = (port: number) => `
port = ${port}
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
max_connections = 100
shared_buffers = 32MB
fsync = on
wal_level = replica
max_wal_senders = 4
wal_keep_size = 256MB
hot_standby = on
`;

async function ownedDirectory(path: string): Promise<void> {
  await mkdir(path, { recursive: true });
  if (asRoot) await run("chown", ["-R", "postgres", path]);
  await chmod(path, 0o700);
}

/**
 * A primary in `root/primary`, started, with every standby synchronous (`synchronous_standby_names
 * = '*'`: a commit is acknowledged once a standby has it) when `synchronousStandby` is set.
 */
export async function createPrimary(
  bin: string,
  root: string,
  port: number,
  options: { synchronousStandby?: boolean } = {},
): Promise<Cluster> {
  await ownedDirectory(root);
  const dir = join(root, "primary");
  await pgCommand(bin, "initdb", ["-D", dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  await appendFile(
    join(dir, "postgresql.conf"),
    settings(port) + (options.synchronousStandby ? "synchronous_standby_names = '*'\n" : ""),
  );
  const primary = cluster(bin, dir, port);
  await primary.start();
  return primary;
}

/** A streaming standby of `primary` in `root/standby-<port>`, started and replicating. */
export async function createStandby(
  bin: string,
  root: string,
  primary: Cluster,
  port: number,
): Promise<Cluster> {
  const dir = join(root, `standby-${port}`);
  await pgCommand(bin, "pg_basebackup", [
    "-h",
    "127.0.0.1",
    "-p",
    String(primary.port),
    "-U",
    "postgres",
    "-D",
    dir,
    "-R",
    "-X",
    "stream",
    "--no-sync",
  ]);
  // The primary's settings came with the copy: a standby promoted must not wait for a standby of
  // its own before it acknowledges a commit.
  await appendFile(join(dir, "postgresql.conf"), `port = ${port}\nsynchronous_standby_names = ''\n`);
  const standby = cluster(bin, dir, port);
  await standby.start();
  return standby;
}
