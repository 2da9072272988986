/**
 * Issue 26 item 6 (`npm run bench -- footprint`): the resident memory (RSS) of a `hanse serve`
 * process built to dist/ (what production runs; the bench builds first), on PGlite in a fresh data
 * directory and on PostgreSQL when one answers, same run, same load, so the embedded database's
 * share is the ratio of the two:
 * - idle after the first start (migrations, bootstrap; on PGlite also initdb), and after a restart
 *   on the same data: BENCH_IDLE_SECONDS (default 15) after `/readyz`, past the first maintenance
 *   round, the median of one sample per second over the last 5 seconds;
 * - loaded: the peak (sampled every 100 ms) while 32 connections read `/api/v1/profile/whoami`
 *   for BENCH_SECONDS (default 10), then while 16 loops create and provision tenants for as long;
 *   then idle again (RSS does not shrink, so that is what a loaded process keeps).
 * On PostgreSQL the database server's own processes are not counted: that is the memory Hanse
 * adds to a host that already runs PostgreSQL. Goal: ≤ 200 MiB idle on PGlite after a restart.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../test/support/server-process.js";
import { benchDatabases } from "./support/databases.js";
import { load, table } from "./support/load.js";
import { benchToken } from "./support/server.js";

const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 15);
const loadSeconds = Number(process.env.BENCH_SECONDS ?? 10);
const MiB = 1024 * 1024;
const root = new URL("..", import.meta.url);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) * 1024;
}

/** `node dist/main.js serve` with `env`, once `/readyz` answers 200. */
async function startBuilt(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, ["dist/main.js", "serve"], {
    cwd: root,
    env: { ...process.env, HANSE_BOOTSTRAP_TOKEN: benchToken, LOG_LEVEL: "warn", ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`hanse serve exited with ${child.exitCode}`);
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) break;
    await sleep(200);
  }
  const pid = child.pid ?? 0;
  return {
    url,
    /** The median RSS of the last 5 of `idleSeconds` seconds of doing nothing. */
    idle: async () => {
      await sleep(Math.max(0, idleSeconds - 5) * 1000);
      const samples: number[] = [];
      for (let i = 0; i < 5; i++) {
        samples.push(await rssOf(pid));
        await sleep(1000);
      }
      return samples.sort((a, b) => a - b)[2] ?? 0;
    },
    /** The peak RSS while `work` runs. */
    peakDuring: async (work: () => Promise<unknown>) => {
      let peak = await rssOf(pid);
      const sampler = setInterval(() => {
        rssOf(pid).then(
          (rss) => (peak = Math.max(peak, rss)),
          () => undefined,
        );
      }, 100);
      try {
        await work();
      } finally {
        clearInterval(sampler);
      }
      return peak;
    },
    stop: async () => {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

/** 16 loops creating tenants (each provisioned by the process's worker) for `loadSeconds`. */
async function createTenants(url: string, prefix: string): Promise<number> {
  const end = performance.now() + loadSeconds * 1000;
  let created = 0;
  await Promise.all(
    Array.from({ length: 16 }, async (_, loop) => {
      for (let i = 0; performance.now() < end; i++) {
        const slug = `${prefix}-${loop}-${i}`;
        const response = await fetch(`${url}/api/v1/system/tenants`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${benchToken}`,
            "content-type": "application/json",
            "idempotency-key": slug,
          },
          body: JSON.stringify({ name: "Footprint", slug }),
        });
        await response.arrayBuffer();
        if (response.status !== 202) throw new Error(`tenant creation answered ${response.status}`);
        created++;
      }
    }),
  );
  return created;
}

interface Figures {
  firstIdle: number;
  restartIdle: number;
  readPeak: number;
  writePeak: number;
  afterLoadIdle: number;
  tenants: number;
}

async function measure(env: Record<string, string>): Promise<Figures> {
  const first = await startBuilt(env);
  const firstIdle = await first.idle();
  await first.stop();
  const server = await startBuilt(env);
  try {
    const restartIdle = await server.idle();
    const readPeak = await server.peakDuring(() =>
      load(`${server.url}/api/v1/profile/whoami`, {
        seconds: loadSeconds,
        headers: { authorization: `Bearer ${benchToken}` },
      }),
    );
    let tenants = 0;
    const writePeak = await server.peakDuring(async () => {
      tenants = await createTenants(server.url, `fp${Date.now().toString(36)}`);
    });
    const afterLoadIdle = await server.idle();
    return { firstIdle, restartIdle, readPeak, writePeak, afterLoadIdle, tenants };
  } finally {
    await server.stop();
  }
}

export async function run(): Promise<void> {
  const build = spawnSync(process.execPath, [...process.execArgv, "scripts/build.ts"], {
    cwd: root,
    stdio: "inherit",
  });
  if (build.status !== 0) throw new Error("npm run build failed");
  const results: { label: string; figures: Figures }[] = [];
  for (const target of await benchDatabases()) {
    const dataDir = await mkdtemp(join(tmpdir(), "hanse-footprint-"));
    try {
      const env: Record<string, string> = target.url
        ? { DATABASE_URL: target.url }
        : { HANSE_DATA_DIR: dataDir };
      results.push({ label: target.label, figures: await measure(env) });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
      await target.cleanup();
    }
  }
  const rows: [string, keyof Figures, string][] = [
    ["idle after the first start", "firstIdle", ""],
    ["idle after a restart", "restartIdle", "≤ 200 (PGlite)"],
    [`peak: whoami, 32 connections, ${loadSeconds} s`, "readPeak", ""],
    [`peak: tenants created and provisioned, ${loadSeconds} s`, "writePeak", ""],
    ["idle after the load", "afterLoadIdle", ""],
  ];
  const [embedded, server] = results;
  const ratio = (key: keyof Figures) =>
    embedded && server ? (embedded.figures[key] / server.figures[key]).toFixed(2) : "";
  process.stdout.write(
    `${table([
      ["RSS of `hanse serve` (MiB)", ...results.map((r) => r.label), "PGlite / PostgreSQL", "goal"],
      ...rows.map(([name, key, goal]) => [
        name,
        ...results.map((r) => (r.figures[key] / MiB).toFixed(0)),
        ratio(key),
        goal,
      ]),
    ])}\n\ntenants created under load: ${results.map((r) => `${r.label} ${r.figures.tenants}`).join(", ")}\n`,
  );
}
