import type { Kysely } from "kysely";
import type { Clock } from "../../../platform/clock/clock.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { countUnfinishedJobs } from "../../../platform/jobs/index.js";
import type { ExchangeTables } from "../exchange.tables.js";

/** How often an API process re-reads the backlog from the database, at most. */
export const backlogRefreshMs = 1000;
/** What a refused upload is told to wait, in seconds. */
export const backlogRetryAfterSeconds = 5;

export interface BacklogLimits {
  /** HANSE_INBOX_MAX_BACKLOG: unprocessed uploads of the whole service. */
  maxTotal: number;
  /** HANSE_INBOX_MAX_BACKLOG_PER_TENANT. */
  maxPerTenant: number;
}

const backlogFull = () =>
  new AppError(
    "ERR_B2B_EXCHANGE_UNAVAILABLE",
    "Uploads are not being accepted while earlier ones wait for processing; retry later.",
    { headers: { "retry-after": String(backlogRetryAfterSeconds) } },
  );

/**
 * Back-pressure on the inbox (issue 20): the unprocessed uploads (queued or running processing
 * jobs) of each tenant and of the whole service, as counted by the database at most once per
 * `backlogRefreshMs` and raised by every upload this process accepts in between. An upload is
 * refused while its tenant's count or the total is at its bound; no COUNT runs per upload.
 * Several API processes each add only their own uploads between two reads, so together they may
 * overshoot a bound by what they accept within one refresh interval.
 */
export function createInboxBacklog(deps: {
  db: Kysely<ExchangeTables>;
  clock: Clock;
  jobName: string;
  limits: BacklogLimits;
}) {
  let perTenant = new Map<string, number>();
  let total = 0;
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<void> | undefined;

  const read = async () => {
    const startedAt = deps.clock.now().getTime();
    const counts = await countUnfinishedJobs(deps.db, deps.jobName);
    perTenant = counts;
    total = [...counts.values()].reduce((sum, n) => sum + n, 0);
    readAt = startedAt;
  };
  /** The counts, read again when older than the refresh interval (one read at a time). */
  const fresh = async () => {
    if (deps.clock.now().getTime() - readAt < backlogRefreshMs) return;
    reading ??= read().finally(() => {
      reading = undefined;
    });
    await reading;
  };
  const tenantFull = (tenantId: string) => (perTenant.get(tenantId) ?? 0) >= deps.limits.maxPerTenant;
  const totalFull = () => total >= deps.limits.maxTotal;
  const anyTenantFull = () => [...perTenant.keys()].some(tenantFull);

  return {
    /**
     * Whether an upload whose tenant is not known yet (its key is checked by its accept
     * statement) may go ahead: neither the total nor any tenant is at its bound. Otherwise it
     * takes the ordinary path, which authenticates first and then calls `admit`.
     */
    async clear(): Promise<boolean> {
      await fresh();
      return !totalFull() && !anyTenantFull();
    },
    /** Throws `503 ERR_B2B_EXCHANGE_UNAVAILABLE` with Retry-After when the tenant or the whole service is at its bound. */
    async admit(tenantId: string): Promise<void> {
      await fresh();
      if (totalFull() || tenantFull(tenantId)) throw backlogFull();
    },
    /** The refusal `admit` would throw for this tenant, without throwing it (undefined: admitted). */
    async refusal(tenantId: string): Promise<AppError | undefined> {
      await fresh();
      return totalFull() || tenantFull(tenantId) ? backlogFull() : undefined;
    },
    /** An upload this process accepted (it counts until the next read sees it). */
    accepted(tenantId: string): void {
      perTenant.set(tenantId, (perTenant.get(tenantId) ?? 0) + 1);
      total++;
    },
  };
}

export type InboxBacklog = ReturnType<typeof createInboxBacklog>;
