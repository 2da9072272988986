import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (typeof address !== "object" || !address) throw new Error("no port");
  return address.port;
}

export interface HanseProcess {
  child: ChildProcess;
  output: () => string;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code once the process ended. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ServerProcess extends HanseProcess {
  url: string;
}

/** `hanse serve` (what `npm start` runs) as a real process, its output collected. */
function spawnServe(env: Record<string, string | undefined>): HanseProcess {
  const childEnv: Record<string, string> = {};
  // Jobs in the API process unless a test asks for worker processes (HANSE_WORKER_PROCESSES).
  const merged: Record<string, string | undefined> = {
    ...process.env,
    LOG_LEVEL: "info",
    HANSE_WORKER_PROCESSES: "0",
    ...env,
  };
  for (const [key, value] of Object.entries(merged)) {
    if (value !== undefined) childEnv[key] = value;
  }
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "serve"], {
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  return {
    child,
    output: () => output,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = (await once(child, "exit")) as [number | null];
      return code;
    },
  };
}

/**
 * Runs `hanse serve` with HANSE_ROLES=worker (jobs only, no API) and waits until its worker runs.
 * `env` must name the database (DATABASE_URL) and the bootstrap token the API process uses.
 */
export async function startWorkerProcess(env: Record<string, string | undefined>): Promise<HanseProcess> {
  const worker = spawnServe({ ...env, HANSE_ROLES: "worker" });
  const deadline = Date.now() + 120_000;
  while (!worker.output().includes("hanse worker is running")) {
    if (worker.child.exitCode !== null) throw new Error(`worker exited early:\n${worker.output()}`);
    if (Date.now() > deadline) throw new Error(`worker did not start:\n${worker.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return worker;
}

/** Runs `hanse serve` as a real process (what `npm start` runs) and waits until it listens. */
export async function startServerProcess(env: Record<string, string | undefined>): Promise<ServerProcess> {
  const port = await freePort();
  const server = spawnServe({ ...env, PORT: String(port) });
  const { child, output } = server;
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output()}`);
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not become ready:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { ...server, url };
}

/** Runs `hanse serve` expecting it to fail at start-up. */
export async function runServerExpectingFailure(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "serve"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, output };
}
