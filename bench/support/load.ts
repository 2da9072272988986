import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { cpuSince, cpuSnapshot, type CpuSpent } from "./cpu.js";

export interface LoadResult {
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** Requests answered in the run. */
  requests: number;
  /** CPU spent during the run by the server process, the database and the load generator. */
  cpu: CpuSpent;
}

const require = createRequire(import.meta.url);
const autocannonPath = require.resolve("autocannon");

export interface LoadOptions {
  connections?: number;
  seconds?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Requests that differ in more than an id (a signature per request): `module` (a file URL)
   * exports `name`, which the load process calls once with `argument` to get autocannon's
   * `setupRequest` hook; it runs for every request, so each gets its own headers and path.
   */
  setup?: { module: string; name: string; argument: unknown };
}

/**
 * Drives one URL with autocannon in a separate process, so the load generator does not share the
 * server's event loop. `[<id>]` in a header or the body becomes a fresh id per request (autocannon's
 * programmatic API, as its command line cannot carry it in a header).
 */
export async function load(url: string, options: LoadOptions = {}): Promise<LoadResult> {
  const script = `
    import { createRequire } from "node:module";
    const autocannon = createRequire(import.meta.url)(${JSON.stringify(autocannonPath)});
    const { setup, ...settings } = JSON.parse(process.argv[1]);
    if (setup) {
      const make = (await import(setup.module))[setup.name];
      settings.requests = [{ setupRequest: make(setup.argument) }];
    }
    autocannon(settings, (error, result) => {
      if (error) { console.error(error); process.exit(1); }
      process.stdout.write(JSON.stringify(result));
    });`;
  const settings = {
    url,
    connections: options.connections ?? 32,
    duration: options.seconds ?? 5,
    method: options.method ?? "GET",
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
    idReplacement: options.setup === undefined,
    ...(options.setup !== undefined ? { setup: options.setup } : {}),
  };
  const before = cpuSnapshot();
  // With a `setup` module, the bench's own flags (tsx): it may be TypeScript.
  const flags = options.setup === undefined ? [] : process.execArgv;
  const child = spawn(
    process.execPath,
    [...flags, "--input-type=module", "-e", script, JSON.stringify(settings)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const cpu = cpuSince(before);
  if (code !== 0) throw new Error(`autocannon exited with ${String(code)}`);
  const result = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p99: number };
    non2xx: number;
    errors: number;
  };
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    requests: result.requests.total,
    cpu,
  };
}

/** The heading of a table of load runs: a route per row, against its baseline. */
export const loadTableHeading = [
  "route",
  "req/s",
  "p99 ms",
  "non-2xx",
  "CPU µs per request: server (kernel) / database / load",
  "vs baseline",
  "goal",
];

export function table(rows: (string | number)[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length))) ?? [];
  const line = (r: (string | number)[]) =>
    `| ${r.map((c, i) => String(c).padEnd(widths[i] ?? 0)).join(" | ")} |`;
  const [head, ...body] = rows;
  return [line(head ?? []), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...body.map(line)].join(
    "\n",
  );
}

/**
 * Calls `operation` from `concurrency` loops for `seconds`, in this process (no HTTP): what the
 * database path alone sustains. Returns operations per second.
 */
export async function statementRate(
  operation: () => Promise<unknown>,
  options: { concurrency?: number; seconds?: number } = {},
): Promise<number> {
  const end = performance.now() + (options.seconds ?? 5) * 1000;
  const start = performance.now();
  let done = 0;
  await Promise.all(
    Array.from({ length: options.concurrency ?? 32 }, async () => {
      while (performance.now() < end) {
        await operation();
        done++;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

/** The sample in the middle when sorted by `by` (the median round). */
export function medianBy<T>(values: readonly T[], by: (value: T) => number): T {
  const sorted = [...values].sort((a, b) => by(a) - by(b));
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (!middle) throw new Error("no samples");
  return middle;
}
