import { sql } from "kysely";
import type { Clock } from "../clock/clock.js";
import { sha256 } from "../crypto/index.js";
import type { Database } from "../db/database.js";

/** A token bucket: `burst` requests at once, refilled at `perSecond`. */
export interface RateLimit {
  burst: number;
  perSecond: number;
}

/**
 * The row of a key: what the stored key is made of. The key names a limit and its subject (an
 * API key, an e-mail address with a client address): only its SHA-256 is stored, so the table
 * holds no address or account.
 */
export const rateLimitKey = (limit: string, subject: string): string =>
  sha256(`${limit}\n${subject}`).toString("base64url");

/**
 * The generic cell rate algorithm (GCRA), which is a token bucket kept as one number: `tat`, the
 * time at which the bucket is full again. A request is allowed when `max(tat, now) + interval -
 * tolerance <= now` (interval = 1000 / perSecond ms, tolerance = burst × interval), and then
 * moves `tat` on by one interval. One upsert per request, whichever process takes it: the row
 * lock orders concurrent takes of one key, and the statement returns whether this one was allowed.
 * A refused take leaves `tat` as it was. Rows of full buckets (`tat` past) mean nothing and are
 * removed by the retention job.
 */
const takeSql = (
  values: string,
) => `INSERT INTO rate_limits AS r (key, tat, interval_ms, tolerance_ms, allowed)
${values}
ON CONFLICT (key) DO UPDATE SET
  allowed = greatest(r.tat, $1::float8) + excluded.interval_ms - excluded.tolerance_ms <= $1::float8,
  tat = CASE WHEN greatest(r.tat, $1::float8) + excluded.interval_ms - excluded.tolerance_ms <= $1::float8
    THEN greatest(r.tat, $1::float8) + excluded.interval_ms ELSE r.tat END,
  interval_ms = excluded.interval_ms,
  tolerance_ms = excluded.tolerance_ms
RETURNING key, allowed, tat`;

const takeOneSql = takeSql(
  "VALUES ($2::text, $1::float8 + $3::float8, $3::float8, $4::float8, $3::float8 <= $4::float8)",
);
/**
 * Several keys in one statement, in key order (two statements never lock the same rows in opposite
 * orders). The lists are comma-separated text: keys are base64url, and a text parameter binds the
 * same way on PGlite and PostgreSQL.
 */
const takeManySql =
  takeSql(`SELECT k.key, $1::float8 + k.interval_ms, k.interval_ms, k.tolerance_ms, k.interval_ms <= k.tolerance_ms
FROM unnest(string_to_array($2::text, ','), string_to_array($3::text, ',')::float8[],
  string_to_array($4::text, ',')::float8[]) AS k(key, interval_ms, tolerance_ms)
ORDER BY k.key`);

/**
 * A refund gives one interval back. A row it leaves full is deleted (a refund follows a request
 * whose key was wrong: made-up keys must not pile up rows until the retention job comes).
 */
const refundDeleteSql = `DELETE FROM rate_limits WHERE key = $2::text AND tat - $3::float8 <= $1::float8`;
const refundSql = `UPDATE rate_limits SET tat = tat - $3::float8 WHERE key = $2::text AND tat - $3::float8 > $1::float8`;

/**
 * The interval in milliseconds, to the microsecond (1000 / (1/30) must be 30000, not a hair more),
 * and never 0: above 2,000,000 per second it would round to 0, the tolerance with it, and a take
 * whose `now` was read a moment before another's (the row lock orders them) would be refused.
 */
const intervalOf = (limit: RateLimit) => Math.max(Math.round(1_000_000 / limit.perSecond), 1) / 1000;
const toleranceOf = (limit: RateLimit) => limit.burst * intervalOf(limit);

/** Seconds until a bucket with `tat` allows a request at `now` (0: now). */
function secondsUntilAllowed(tat: number, now: number, limit: RateLimit): number {
  const at = Math.max(tat, now) + intervalOf(limit) - toleranceOf(limit);
  return at <= now ? 0 : Math.max(1, Math.ceil((at - now) / 1000));
}

interface TakeRow {
  key: string;
  allowed: boolean;
  tat: number;
}

/**
 * Rate limits that hold across every process sharing the database (issue 31): each take is one
 * statement on the `rate_limits` row of its key. Keys come from `rateLimitKey`.
 */
export function createRateLimits(deps: { database: Pick<Database, "prepared">; clock: Clock }) {
  const { database, clock } = deps;
  const now = () => clock.now().getTime();

  return {
    /** Takes one request from the key's bucket: 0 when allowed, else the seconds to wait. */
    async take(key: string, limit: RateLimit): Promise<number> {
      const at = now();
      const [row] = await database.prepared<TakeRow>("hanse_rate_limit_take", takeOneSql, [
        at,
        key,
        intervalOf(limit),
        toleranceOf(limit),
      ]);
      if (!row) throw new Error("the rate limit statement returned no row");
      return row.allowed ? 0 : secondsUntilAllowed(row.tat, at, limit);
    },

    /** Takes one request from each key's bucket in one statement; per key as `take` answers. */
    async takeEach(entries: readonly { key: string; limit: RateLimit }[]): Promise<number[]> {
      const at = now();
      const rows = await database.prepared<TakeRow>("hanse_rate_limit_take_many", takeManySql, [
        at,
        entries.map((e) => e.key).join(","),
        entries.map((e) => intervalOf(e.limit)).join(","),
        entries.map((e) => toleranceOf(e.limit)).join(","),
      ]);
      const byKey = new Map(rows.map((row) => [row.key, row]));
      return entries.map(({ key, limit }) => {
        const row = byKey.get(key);
        return !row || row.allowed ? 0 : secondsUntilAllowed(row.tat, at, limit);
      });
    },

    /** Per key, the seconds until its bucket allows a request (0: now), taking nothing. */
    async wait(entries: readonly { key: string; limit: RateLimit }[]): Promise<number[]> {
      const at = now();
      const rows = await database.prepared<{ key: string; tat: number }>(
        "hanse_rate_limit_read",
        "SELECT key, tat FROM rate_limits WHERE key = ANY (string_to_array($1::text, ','))",
        [entries.map((e) => e.key).join(",")],
      );
      const tats = new Map(rows.map((row) => [row.key, row.tat]));
      return entries.map(({ key, limit }) => secondsUntilAllowed(tats.get(key) ?? at, at, limit));
    },

    /** Gives back one request `take` allowed (the request turned out not to count). */
    async refund(key: string, limit: RateLimit): Promise<void> {
      const parameters = [now(), key, intervalOf(limit)];
      await database.prepared("hanse_rate_limit_refund_delete", refundDeleteSql, parameters);
      await database.prepared("hanse_rate_limit_refund", refundSql, parameters);
    },

    /**
     * Reserves the key's next turn: turns are `spacingMs` apart and at most `maxAhead` are
     * reserved beyond now. Returns the milliseconds until the turn, or undefined when `maxAhead`
     * turns are already reserved (with `retryAfterSeconds`, when the first of them is over).
     * `at`: now, on the clock the caller waits by.
     */
    async reserveTurn(
      key: string,
      spacingMs: number,
      maxAhead: number,
      at = now(),
    ): Promise<{ waitMs: number } | { retryAfterSeconds: number }> {
      const [row] = await database.prepared<TakeRow>("hanse_rate_limit_take", takeOneSql, [
        at,
        key,
        spacingMs,
        spacingMs * maxAhead,
      ]);
      if (!row) throw new Error("the rate limit statement returned no row");
      const tat = row.tat;
      // Allowed: the turn starts where the reserved ones end (`tat` moved on by one spacing).
      if (row.allowed) return { waitMs: Math.max(0, tat - spacingMs - at) };
      return { retryAfterSeconds: Math.max(1, Math.ceil((tat - at) / 1000)) };
    },
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;

/**
 * Removes up to `limit` rows of full buckets (their `tat` has passed: they mean what no row
 * means); `n` is how many. Run by the retention job (platform/jobs).
 */
export const deleteIdleRateLimits = (now: Date, limit: number) =>
  sql<{ n: number }>`WITH gone AS (
      DELETE FROM rate_limits WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM rate_limits WHERE tat < ${now.getTime()}::float8 LIMIT ${limit}))
      AND tat < ${now.getTime()}::float8
      RETURNING 1)
    SELECT count(*)::integer AS n FROM gone`;
