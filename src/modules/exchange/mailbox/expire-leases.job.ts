import { defineJob, type Executor, type JobDefinition, type JobQueue } from "../../../platform/jobs/index.js";

/**
 * Ends a connection's expired leases on time even when nobody reads its mailbox. The definition
 * (name, payload, attempt budget) is what the mailbox enqueues; the executor is bound to the
 * mailbox service once it exists (`expireLeasesJob`).
 */
export const expireLeases = { name: "exchange.expire-leases", maxAttempts: 10 } as const;

export interface ExpireLeasesPayload {
  tenantId: string;
  connectionId: string;
}

/** Enqueues the expiry of a lease inside the claim's transaction: one job per lease (its key). */
export function enqueueLeaseExpiry(
  jobs: JobQueue,
  trx: Executor,
  payload: ExpireLeasesPayload,
  lease: { key: string; runAt: Date },
): Promise<string> {
  return jobs.enqueue<ExpireLeasesPayload>(trx, expireLeases, payload, {
    key: lease.key,
    tenantId: payload.tenantId,
    runAt: lease.runAt,
  });
}

export const expireLeasesJob = (mailbox: {
  expireLeases(tenantId: string, connectionId: string): Promise<number>;
}): JobDefinition<ExpireLeasesPayload> =>
  defineJob<ExpireLeasesPayload>({
    ...expireLeases,
    run: async ({ tenantId, connectionId }) => {
      await mailbox.expireLeases(tenantId, connectionId);
    },
  });
