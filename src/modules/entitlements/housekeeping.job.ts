import type { FastifyBaseLogger } from "fastify";
import type { Database } from "../../platform/db/database.js";
import { defineHousekeepingJob, type JobDefinition } from "../../platform/jobs/index.js";
import { pruneNonces } from "./service-auth/index.js";
import { pruneChanges } from "./entitlements.repository.js";
import type { EntitlementTables } from "./entitlements.tables.js";
import type { KeyRing } from "./grants/index.js";

export const housekeepingJobName = "entitlements.housekeeping";

/**
 * Every minute (worker role): changes older than the feed retention go (each stream records how
 * far: `pruned_through`), nonces past their window go, and tenants whose signing key has signed
 * longer than the rotation period get a rotation.
 */
export function entitlementHousekeepingJob(deps: {
  database: Database;
  clock: { now(): Date };
  logger: Pick<FastifyBaseLogger, "info" | "debug">;
  keys: KeyRing;
  feedRetentionSeconds: number;
  keyRotationSeconds: number;
}): JobDefinition<Record<string, never>> {
  const database = deps.database.as<EntitlementTables>();
  return defineHousekeepingJob(deps, {
    name: housekeepingJobName,
    everyMs: 60_000,
    message: "entitlement housekeeping",
    async sweep(now, signal) {
      const counts = { changes: 0, nonces: 0, rotations: 0 };
      const before = new Date(now.getTime() - deps.feedRetentionSeconds * 1000);
      for (let n = -1; n !== 0 && !signal.aborted;) {
        n = await pruneChanges(database.db, before);
        counts.changes += n;
      }
      for (let n = -1; n !== 0 && !signal.aborted;) {
        n = await pruneNonces(database.db, now);
        counts.nonces += n;
      }
      for (const tenantId of await deps.keys.dueForRotation(database.db, deps.keyRotationSeconds * 1000)) {
        if (signal.aborted) break;
        await database.transaction((trx) => deps.keys.rotate(trx, tenantId));
        counts.rotations++;
      }
      return counts;
    },
  });
}
