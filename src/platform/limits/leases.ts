import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { Clock } from "../clock/clock.js";
import type { Database } from "../db/database.js";

/** How long a lease lasts unless renewed: a process that dies frees its slots after this. */
export const leaseMs = 30_000;
/** A holder renews its leases this often while it works. */
export const leaseRenewMs = leaseMs / 3;

/**
 * One of `max` slots of `name`: the first whose lease is free or expired. The insert's conflict
 * clause takes an expired lease over and leaves a live one alone, so two processes that picked
 * the same free slot cannot both get it: the later one's statement returns its candidate but no
 * slot, and tries again (it lost a race, so another slot may be free).
 */
const acquireSql = `WITH candidate AS (
  SELECT s AS slot FROM generate_series(1, $2::integer) AS s
  WHERE NOT EXISTS (
    SELECT 1 FROM limit_leases AS l WHERE l.name = $1::text AND l.slot = s AND l.expires_at > $4::timestamptz)
  ORDER BY s LIMIT 1
), taken AS (
  INSERT INTO limit_leases AS l (name, slot, holder, expires_at)
  SELECT $1::text, slot, $3::text, $5::timestamptz FROM candidate
  ON CONFLICT (name, slot) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
    WHERE l.expires_at <= $4::timestamptz
  RETURNING slot
)
SELECT (SELECT slot FROM candidate) AS candidate, (SELECT slot FROM taken) AS slot`;

/**
 * Slots that hold across every process sharing the database (issue 31): at most `max` holders of
 * a name at once. A holder is one piece of work (an upload); it renews its leases while it runs
 * and releases them when done, and a holder whose process died loses them when they expire.
 */
export function createLeases(deps: { database: Pick<Database, "prepared">; clock: Clock }) {
  const { database, clock } = deps;
  const expiry = () => new Date(clock.now().getTime() + leaseMs);

  return {
    newHolder: (): string => randomUUID(),

    /** Takes a slot of `name` for `holder`; false when all `max` are held. */
    async acquire(name: string, max: number, holder: string): Promise<boolean> {
      // Each lost race means another holder took a slot; after `max` of them all may be taken.
      for (let attempt = 0; attempt <= max; attempt++) {
        const [row] = await database.prepared<{ candidate: number | null; slot: number | null }>(
          "hanse_lease_acquire",
          acquireSql,
          [name, max, holder, clock.now(), expiry()],
        );
        if (row?.slot != null) return true;
        if (row?.candidate == null) return false;
      }
      return false;
    },

    /** Moves the expiry of every lease of `holder` on. */
    async renew(holder: string): Promise<void> {
      await database.prepared(
        "hanse_lease_renew",
        "UPDATE limit_leases SET expires_at = $2::timestamptz WHERE holder = $1::text",
        [holder, expiry()],
      );
    },

    /** Gives up every lease of `holder`. */
    async release(holder: string): Promise<void> {
      await database.prepared("hanse_lease_release", "DELETE FROM limit_leases WHERE holder = $1::text", [
        holder,
      ]);
    },
  };
}

export type Leases = ReturnType<typeof createLeases>;

/** Runs `run` while renewing `holder`'s leases every `leaseRenewMs`; a failed renewal is retried next time. */
export async function whileRenewing<T>(leases: Leases, holder: string, run: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    leases.renew(holder).catch(() => undefined);
  }, leaseRenewMs);
  timer.unref();
  try {
    return await run();
  } finally {
    clearInterval(timer);
  }
}

/** Removes up to `limit` expired leases (their holders died); `n` is how many. Run by the retention job. */
export const deleteExpiredLeases = (now: Date, limit: number) =>
  sql<{ n: number }>`WITH gone AS (
      DELETE FROM limit_leases WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM limit_leases WHERE expires_at < ${now} LIMIT ${limit}))
      AND expires_at < ${now}
      RETURNING 1)
    SELECT count(*)::integer AS n FROM gone`;
