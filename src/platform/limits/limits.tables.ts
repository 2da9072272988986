/** The tables of the limits every process shares (migration 2026-11-28T0600-shared-limits). */
export interface LimitTables {
  rate_limits: {
    /** `rateLimitKey(limit, subject)`: base64url of a SHA-256. */
    key: string;
    /** Milliseconds since the epoch at which the bucket is full again (GCRA). */
    tat: number;
    interval_ms: number;
    tolerance_ms: number;
    /** Whether the last take was allowed (what the take statement returns). */
    allowed: boolean;
  };
  limit_leases: {
    name: string;
    slot: number;
    holder: string;
    expires_at: Date;
  };
}

declare module "../db/tables.js" {
  // One part's tables in the whole database (`HanseTables`, declaration merging).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HanseTables extends LimitTables {}
}
