import { sql } from "kysely";
import type { Clock } from "../../platform/clock/clock.js";
import type { Executor } from "../../platform/jobs/index.js";
import { ageSeconds, setCounts, type MetricsRegistry } from "../../platform/metrics/index.js";
import type { DeliveryStatus, UploadStatus } from "./exchange.tables.js";
import type { PayloadService } from "./mailbox/index.js";

const uploadStatuses: readonly UploadStatus[] = ["received", "processing", "processed", "rejected", "failed"];
const deliveryStatuses: readonly DeliveryStatus[] = ["ready", "claimed", "acknowledged", "failed"];

/**
 * The exchange's series. Read at scrape time (one query each for uploads and deliveries):
 * uploads and deliveries by status, the age of the oldest ready delivery (a mailbox nobody
 * empties), claims whose lease ran out and that the expiry job has not yet returned. Counted in
 * this process: leases expired by the expiry job, payload reads by verdict. Per tenant (the only
 * label, the tenant's slug, so the series grow with tenants, never with connections or
 * deliveries; one grouped query over the waiting deliveries): overdue deliveries and the oldest
 * ready delivery's age. A tenant with no waiting delivery has no series.
 */
export function registerExchangeMetrics(metrics: MetricsRegistry, deps: { db: Executor; clock: Clock }) {
  const uploads = metrics.gauge({
    name: "hanse_exchange_uploads",
    help: "Partner uploads by status",
    labelNames: ["status"],
  });
  const deliveries = metrics.gauge({
    name: "hanse_exchange_deliveries",
    help: "Mailbox deliveries by status",
    labelNames: ["status"],
  });
  const oldestReady = metrics.gauge({
    name: "hanse_exchange_oldest_ready_delivery_age_seconds",
    help: "Age of the oldest delivery waiting in a mailbox (status ready; 0: none)",
  });
  const overdueClaims = metrics.gauge({
    name: "hanse_exchange_expired_claims",
    help: "Claimed deliveries whose lease ran out and that are not yet back in the mailbox",
  });
  const tenantOverdue = metrics.gauge({
    name: "hanse_exchange_overdue_deliveries",
    help: "Deliveries still ready or claimed after their connection's collection deadline, per tenant",
    labelNames: ["tenant"],
  });
  const tenantOldestReady = metrics.gauge({
    name: "hanse_exchange_tenant_oldest_ready_delivery_age_seconds",
    help: "Age of the tenant's oldest delivery waiting in a mailbox (status ready; 0: none), per tenant",
    labelNames: ["tenant"],
  });
  const leaseExpiries = metrics.counter({
    name: "hanse_exchange_lease_expiries_total",
    help: "Delivery claims whose lease expired without an acknowledgement (returned to the mailbox or failed)",
  });
  const payloadReads = metrics.counter({
    name: "hanse_exchange_payload_reads_total",
    help: "Delivery payload reads by verdict of the integrity trailer (verified, failed)",
    labelNames: ["outcome"],
  });
  for (const outcome of ["verified", "failed"]) payloadReads.inc({ outcome }, 0);

  metrics.onScrape("exchange.uploads", async () => {
    const { rows } = await sql<{ key: string; n: number }>`
      SELECT status AS key, count(*)::int AS n FROM exchange_uploads GROUP BY status`.execute(deps.db);
    setCounts(uploads, "status", uploadStatuses, rows);
  });
  metrics.onScrape("exchange.deliveries", async () => {
    const now = deps.clock.now();
    const { rows } = await sql<{ key: string; n: number; oldest_ready: Date | null; expired: number }>`
      SELECT status AS key, count(*)::int AS n,
        min(created_at) FILTER (WHERE status = 'ready') AS oldest_ready,
        count(*) FILTER (WHERE status = 'claimed' AND lease_expires_at < ${now})::int AS expired
      FROM exchange_deliveries GROUP BY status`.execute(deps.db);
    setCounts(deliveries, "status", deliveryStatuses, rows);
    oldestReady.set(ageSeconds(rows.find((row) => row.key === "ready")?.oldest_ready, now));
    overdueClaims.set(rows.reduce((sum, row) => sum + row.expired, 0));
  });
  metrics.onScrape("exchange.tenant-deliveries", async () => {
    const now = deps.clock.now();
    // The label is the tenant's slug (what operators know it by; no label holds an id).
    const { rows } = await sql<{ slug: string; overdue: number; oldest_ready: Date | null }>`
      SELECT t.slug, count(*) FILTER (WHERE d.overdue_since IS NOT NULL)::int AS overdue,
        min(d.created_at) FILTER (WHERE d.status = 'ready') AS oldest_ready
      FROM exchange_deliveries AS d INNER JOIN tenants AS t ON t.id = d.tenant_id
      WHERE d.status IN ('ready', 'claimed')
      GROUP BY t.slug`.execute(deps.db);
    tenantOverdue.reset();
    tenantOldestReady.reset();
    for (const row of rows) {
      tenantOverdue.set({ tenant: row.slug }, row.overdue);
      tenantOldestReady.set({ tenant: row.slug }, ageSeconds(row.oldest_ready, now));
    }
  });

  return {
    /** Counts what one run of the lease expiry job expired. */
    countLeaseExpiries(expired: number): void {
      leaseExpiries.inc(expired);
    },
    /** The payload service, its reads counted by verdict. */
    countPayloadReads(payloads: PayloadService): PayloadService {
      return {
        ...payloads,
        async preparePayload(...args) {
          const prepared = await payloads.preparePayload(...args);
          return {
            ...prepared,
            async stream(sink) {
              const outcome = await prepared.stream(sink);
              payloadReads.inc({ outcome });
              return outcome;
            },
          };
        },
      };
    },
  };
}
