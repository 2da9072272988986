/**
 * Issue 2 figures: discovery and authenticated profile endpoints against a bare Fastify route
 * returning a constant and a bare route doing one primary-key SELECT on the same database.
 * Goals: discovery ≥ 70 % of the bare route; authenticated endpoints ≥ 60 % of the bare SELECT.
 */
import Fastify from "fastify";
import { sql } from "kysely";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config/index.js";
import { createContainer } from "../src/container.js";
import { createLogger } from "../src/platform/logging/logger.js";
import { benchDatabases } from "./support/databases.js";
import { perRequest } from "./support/cpu.js";
import { load, table, type LoadResult } from "./support/load.js";

const token = "bench-bootstrap-token-0123456789abcdefghijkl";
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

export async function run(): Promise<void> {
  for (const target of await benchDatabases()) {
    const database = await target.open();
    const config = loadConfig({ HANSE_BOOTSTRAP_TOKEN: token, LOG_LEVEL: "silent", HANSE_ROLES: "api" });
    const container = await createContainer(config, { logger: createLogger("silent"), database });
    const app = await buildApp(container);
    const appUrl = await app.listen({ port: 0, host: "127.0.0.1" });

    const bare = Fastify();
    bare.get("/constant", async () => ({ ok: true }));
    const systemTenant = await sql<{ id: string }>`SELECT id FROM tenants WHERE type = 'system'`.execute(
      database.db,
    );
    const tenantId = systemTenant.rows[0]?.id ?? "";
    bare.get("/select", async () => {
      const row = await sql<{
        id: string;
        slug: string;
      }>`SELECT id, slug FROM tenants WHERE id = ${tenantId}`.execute(database.db);
      return row.rows[0];
    });
    const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });

    const auth = { authorization: `Bearer ${token}` };
    const measure = (url: string, headers?: Record<string, string>) =>
      load(url, { connections: 32, seconds, ...(headers ? { headers } : {}) });
    // Rounds interleave every target, and the median round counts: a burst of load from
    // elsewhere on the machine then hits baseline and subject alike.
    const targets: [string, string, Record<string, string> | undefined][] = [
      ["bare route (constant)", `${bareUrl}/constant`, undefined],
      ["bare route (1 PK SELECT)", `${bareUrl}/select`, undefined],
      ["GET /api/v1/meta/discovery", `${appUrl}/api/v1/meta/discovery`, undefined],
      ["GET /api/v1/profile/entrypoints", `${appUrl}/api/v1/profile/entrypoints`, auth],
      ["GET /api/v1/profile/whoami", `${appUrl}/api/v1/profile/whoami`, auth],
    ];
    const samples = new Map<string, LoadResult[]>(targets.map(([name]) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const [name, url, headers] of targets) samples.get(name)?.push(await measure(url, headers));
    }
    const median = (name: string): LoadResult => {
      const sorted = [...(samples.get(name) ?? [])].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
      const middle = sorted[Math.floor(sorted.length / 2)];
      if (!middle) throw new Error(`no samples for ${name}`);
      return middle;
    };
    const constant = median("bare route (constant)");
    const select = median("bare route (1 PK SELECT)");
    const against: Record<string, "constant" | "select" | null> = {
      "bare route (constant)": null,
      "bare route (1 PK SELECT)": null,
      "GET /api/v1/meta/discovery": "constant",
      "GET /api/v1/profile/entrypoints": "select",
      "GET /api/v1/profile/whoami": "select",
    };
    const results = targets.map(([name]) => [name, median(name), against[name] ?? null] as const);
    const rows: (string | number)[][] = [
      [
        "endpoint",
        "req/s",
        "p99 ms",
        "ratio",
        "goal",
        "non-2xx",
        "CPU µs per request: server (kernel) / database / load",
      ],
    ];
    for (const [name, result, against] of results) {
      const baseline = against === "constant" ? constant : against === "select" ? select : null;
      const ratio = baseline ? result.requestsPerSecond / baseline.requestsPerSecond : null;
      const goal = against === "constant" ? 0.7 : against === "select" ? 0.6 : null;
      rows.push([
        name,
        Math.round(result.requestsPerSecond),
        result.p99Ms,
        ratio === null ? "baseline" : `${(ratio * 100).toFixed(0)} %`,
        goal === null ? "" : `≥ ${goal * 100} % ${ratio !== null && ratio >= goal ? "met" : "MISSED"}`,
        result.non2xx,
        perRequest(result.cpu, result.requests),
      ]);
    }
    process.stdout.write(
      `### ${target.label} (32 connections, median of ${rounds} interleaved ${seconds} s rounds)\n\n${table(rows)}\n\n`,
    );
    await bare.close();
    await app.close();
    await container.close();
    await target.cleanup();
  }
}
