import { spawn } from "node:child_process";
import { createRequire } from "node:module";

export interface LoadResult {
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

const require = createRequire(import.meta.url);
const autocannonBin = require.resolve("autocannon/autocannon.js");

/**
 * Drives one URL with autocannon in a separate process, so the load generator does not share
 * the server's event loop.
 */
export async function load(
  url: string,
  options: { connections?: number; seconds?: number; headers?: Record<string, string> } = {},
): Promise<LoadResult> {
  const args = [
    autocannonBin,
    "-j",
    "-c",
    String(options.connections ?? 32),
    "-d",
    String(options.seconds ?? 5),
  ];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}=${value}`);
  args.push(url);
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`autocannon exited with ${String(code)}`);
  const result = JSON.parse(out) as {
    requests: { average: number };
    latency: { p99: number };
    non2xx: number;
    errors: number;
  };
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export function table(rows: (string | number)[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length))) ?? [];
  const line = (r: (string | number)[]) =>
    `| ${r.map((c, i) => String(c).padEnd(widths[i] ?? 0)).join(" | ")} |`;
  const [head, ...body] = rows;
  return [line(head ?? []), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...body.map(line)].join(
    "\n",
  );
}
