import type { ColumnType } from "kysely";

export interface JobsTable {
  id: string;
  tenant_id: string | null;
  name: string;
  key: string | null;
  /** Held while queued only (see `EnqueueOptions.coalesceKey`). */
  coalesce_key: string | null;
  payload: ColumnType<unknown, string, string>;
  state: "queued" | "running" | "succeeded" | "dead";
  attempts: number;
  max_attempts: number;
  run_at: Date;
  locked_until: Date | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  /** The enqueuing request's trace (`StoredTraceContext`), continued when the job runs. */
  trace_context: ColumnType<unknown, string | null | undefined, string | null>;
}

/** A tenant whose jobs wait (a suspended tenant, rules/contract §7): the claim skips them until the row goes. */
export interface JobTenantPausesTable {
  tenant_id: string;
  paused_at: Date;
}

export interface JobTables {
  jobs: JobsTable;
  job_tenant_pauses: JobTenantPausesTable;
}

declare module "../db/tables.js" {
  // One part's tables in the whole database (`HanseTables`, declaration merging).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HanseTables extends JobTables {}
}
