/**
 * Issue 36 item 2 (`npm run bench -- cli`): how fast the client's `hanse` starts, as the built
 * package runs it (`node packages/client/bin/hanse.js`; the bench builds first), against a bare
 * `node -e ''` start on the same machine in the same run. Runs alternate (baseline, then each
 * command) BENCH_RUNS times (default 30); medians are compared.
 * - `hanse --version` and `hanse --help`: goal within 2× the bare start;
 * - `hanse whoami --json` (one request to a server on the first database of BENCH_DATABASE): goal within 3× the
 *   bare start plus the request, the request being the median of the same call made from this
 *   process over a warm connection.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchDatabases } from "./support/databases.js";
import { medianBy, table } from "./support/load.js";
import { benchToken, startServer } from "./support/server.js";

const runs = Number(process.env.BENCH_RUNS ?? 30);
const root = new URL("..", import.meta.url).pathname;
const bin = join(root, "packages/client/bin/hanse.js");

const median = (values: readonly number[]) => medianBy(values, (value) => value);

/**
 * Wall time of one process run to its exit, in milliseconds; fails loudly on a non-zero exit.
 * Asynchronous: the server answering `whoami` runs in this process.
 */
async function timed(args: string[], env: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (data: Buffer) => (stderr += data.toString("utf8")));
  const [code] = (await once(child, "exit")) as [number | null];
  const elapsed = performance.now() - started;
  if (code !== 0) throw new Error(`${args.join(" ")} exited ${code}: ${stderr}`);
  return elapsed;
}

export async function run(): Promise<void> {
  const build = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) throw new Error("npm run build failed");
  // The server's database does not matter here: the first one available (BENCH_DATABASE chooses).
  const [database, ...others] = await benchDatabases();
  for (const other of others) await other.cleanup();
  if (!database) throw new Error("no database to serve from");
  const server = await startServer(await database.open());
  const home = await mkdtemp(join(tmpdir(), "hanse-cli-bench-"));
  const env = { HANSE_URL: server.appUrl, HANSE_TOKEN: benchToken, HOME: home };
  try {
    const whoami = `${server.appUrl}/api/v1/profile/whoami`;
    const request = async () => {
      const started = performance.now();
      const response = await fetch(whoami, { headers: { authorization: `Bearer ${benchToken}` } });
      await response.arrayBuffer();
      return performance.now() - started;
    };
    // Warm-up: Node's compile cache for the CLI, the server's first requests.
    for (let i = 0; i < 3; i++) {
      await timed([bin, "--version"]);
      await timed([bin, "whoami", "--json"], env);
      await request();
    }
    const samples = {
      bare: [] as number[],
      version: [] as number[],
      help: [] as number[],
      whoami: [] as number[],
    };
    const requests: number[] = [];
    for (let i = 0; i < runs; i++) {
      samples.bare.push(await timed(["-e", ""]));
      samples.version.push(await timed([bin, "--version"]));
      samples.help.push(await timed([bin, "--help"]));
      samples.whoami.push(await timed([bin, "whoami", "--json"], env));
      requests.push(await request());
    }
    const bare = median(samples.bare);
    const req = median(requests);
    const rows: (string | number)[][] = [
      ["run", "median ms", "ratio", "goal"],
      ["node -e ''", bare.toFixed(1), "1.00", "baseline"],
      [
        "hanse --version",
        median(samples.version).toFixed(1),
        (median(samples.version) / bare).toFixed(2),
        "≤ 2",
      ],
      ["hanse --help", median(samples.help).toFixed(1), (median(samples.help) / bare).toFixed(2), "≤ 2"],
      [
        "hanse whoami --json",
        median(samples.whoami).toFixed(1),
        `${((median(samples.whoami) - req) / bare).toFixed(2)} (request ${req.toFixed(1)} ms)`,
        "≤ 3 plus the request",
      ],
    ];
    process.stdout.write(`${table(rows)}\n\n${runs} runs each, alternating; node ${process.version}\n`);
  } finally {
    await server.app.close();
    await server.container.close();
    await database.cleanup();
    await rm(home, { recursive: true, force: true });
  }
}
