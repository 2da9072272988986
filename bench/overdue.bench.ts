/**
 * Issue 34 item 3 (`npm run bench -- overdue`): the overdue sweep (collection deadlines, rules/contract
 * §8) over BENCH_OVERDUE_DELIVERIES deliveries (default 1,000,000) of which a tenth are waiting
 * (ready; 100,000), on PostgreSQL only (goal: a sweep under 1 s). The waiting deliveries of 100
 * connections (deadline 86400 s, the default) are spread over the last 23 hours, and
 * BENCH_OVERDUE_DUE of them (default 1,000, about what a minute of a busy tenant makes) are 25
 * hours old: what one run of the every-minute sweep finds. Figures:
 * - the sweep that marks the due ones (with one audit record each);
 * - the next sweep, with nothing to mark (median of BENCH_ROUNDS): the steady state;
 * - the scrape-time query of the per-tenant metrics (median of BENCH_ROUNDS);
 * and the sweep statement's plan, which reads the partial index exchange_deliveries_collection_due.
 */
import { performance } from "node:perf_hooks";
import { CompiledQuery, sql } from "kysely";
import { loadConfig } from "../src/config/index.js";
import { createContainer } from "../src/container.js";
import { sweepOverdueDeliveries } from "../src/modules/exchange/index.js";
import { markOverdueSql } from "../src/modules/exchange/mailbox/overdue.repository.js";
import { createLogger } from "../src/platform/logging/logger.js";
import { benchDatabases, settle } from "./support/databases.js";
import { table } from "./support/load.js";

const token = "bench-bootstrap-token-0123456789abcdefghijkl";
const total = Number(process.env.BENCH_OVERDUE_DELIVERIES ?? 1_000_000);
const due = Number(process.env.BENCH_OVERDUE_DUE ?? 1000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = 100;

const timed = async (fn: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function run(): Promise<void> {
  const targets = await benchDatabases();
  const postgres = targets.filter((target) => target.label === "PostgreSQL");
  for (const target of targets) if (!postgres.includes(target)) await target.cleanup();
  if (postgres.length === 0) {
    process.stdout.write("PostgreSQL not reachable: the overdue sweep is measured on PostgreSQL only\n");
    return;
  }
  for (const target of postgres) {
    const database = await target.open({ settled: true });
    const config = loadConfig({ HANSE_BOOTSTRAP_TOKEN: token, LOG_LEVEL: "silent", HANSE_ROLES: "api" });
    // The container migrates the database.
    const container = await createContainer(config, { logger: createLogger("silent"), database });
    const db = database.db;
    const now = new Date();
    const tenantId = (await sql<{ id: string }>`SELECT id FROM tenants WHERE type = 'system'`.execute(db))
      .rows[0]?.id;
    if (!tenantId) throw new Error("no system tenant");

    // Seed: one partner, 100 connections, `total` deliveries (every tenth waiting).
    await sql`
      INSERT INTO exchange_partners (tenant_id, id, name, created_at, updated_at)
      VALUES (${tenantId}, gen_random_uuid(), 'bench', ${now}, ${now})`.execute(db);
    await sql`
      INSERT INTO exchange_connections
        (tenant_id, id, partner_id, name, api_version, status, active_revision, created_at, updated_at,
         collection_deadline_seconds)
      SELECT ${tenantId}, gen_random_uuid(), p.id, 'bench ' || g, 'api.v1', 'active', 1, ${now}, ${now}, 86400
      FROM exchange_partners AS p, generate_series(1, ${connections}) AS g
      WHERE p.tenant_id = ${tenantId}`.execute(db);
    const seedStart = performance.now();
    await sql`
      WITH c AS (
        SELECT array_agg(id ORDER BY id) AS ids FROM exchange_connections WHERE tenant_id = ${tenantId}
      )
      INSERT INTO exchange_deliveries
        (tenant_id, id, connection_id, upload_id, position, message_type, interchange_id,
         message_reference, blob_id, payload_size, payload_sha256, status, attempts, due_at,
         acknowledged_at, created_at, updated_at)
      SELECT ${tenantId}, gen_random_uuid(), c.ids[1 + g % ${connections}], gen_random_uuid(), g,
        'ORDRSP', g::text, '1', gen_random_uuid(), 1000, '\\x00'::bytea,
        CASE WHEN g % 10 = 0 THEN 'ready' ELSE 'acknowledged' END, 0, at,
        CASE WHEN g % 10 = 0 THEN NULL ELSE at END, at, at
      FROM c, generate_series(1, ${total}) AS g,
        LATERAL (SELECT CASE
          WHEN g % 10 = 0 AND g / 10 <= ${due} THEN ${now}::timestamptz - interval '25 hours'
          ELSE ${now}::timestamptz - (g % 82800) * interval '1 second' END AS at) AS t`.execute(db);
    const seedMs = performance.now() - seedStart;
    await settle(database);

    const plan = await db.executeQuery<{ "QUERY PLAN": string }>(
      CompiledQuery.raw(`EXPLAIN ${markOverdueSql}`, [now.toISOString(), 10_000]),
    );
    let marked = 0;
    const firstMs = await timed(async () => {
      marked = await sweepOverdueDeliveries(db, now);
    });
    const idle: number[] = [];
    for (let i = 0; i < rounds; i++) idle.push(await timed(() => sweepOverdueDeliveries(db, now)));
    const metrics: number[] = [];
    for (let i = 0; i < rounds; i++) {
      metrics.push(
        await timed(() =>
          sql`
            SELECT t.slug, count(*) FILTER (WHERE d.overdue_since IS NOT NULL)::int AS overdue,
              min(d.created_at) FILTER (WHERE d.status = 'ready') AS oldest_ready
            FROM exchange_deliveries AS d INNER JOIN tenants AS t ON t.id = d.tenant_id
            WHERE d.status IN ('ready', 'claimed') GROUP BY t.slug`.execute(db),
        ),
      );
    }

    process.stdout.write(
      `### ${target.label}: ${total.toLocaleString("en")} deliveries, ${(total / 10).toLocaleString("en")} ready, ` +
        `${due.toLocaleString("en")} due (seeded in ${(seedMs / 1000).toFixed(1)} s)\n\n` +
        table([
          ["what", "ms", "goal"],
          [`sweep marking ${marked} (with their audit records)`, firstMs.toFixed(1), "< 1000"],
          [`sweep with nothing due (median of ${rounds})`, median(idle).toFixed(1), "< 1000"],
          [`per-tenant metrics query (median of ${rounds})`, median(metrics).toFixed(1), ""],
        ]) +
        `\nThe sweep's plan:\n\n${plan.rows.map((r) => `    ${r["QUERY PLAN"]}`).join("\n")}\n`,
    );
    await container.close();
    await target.cleanup();
  }
}
