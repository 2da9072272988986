import type { ColumnType } from "kysely";
import { tablesOf } from "../../platform/db/tables.js";

export type StepState = "pending" | "running" | "succeeded" | "failed";
export type ProvisioningState = "pending" | "running" | "succeeded" | "failed";

export interface TenantProvisioningTable {
  tenant_id: string;
  state: ProvisioningState;
  steps: ColumnType<{ name: string; state: StepState }[], string, string>;
  /** What the steps need (the administrator's e-mail and password hash); cleared when done. */
  input: ColumnType<Record<string, unknown>, string, string>;
  error: ColumnType<{ code: string; message: string } | null, string | null, string | null>;
  started_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface TenantTables {
  tenant_provisioning: TenantProvisioningTable;
}

/** A transaction over more tables seen as one over the tenants module's own (`tablesOf`). */
export const tenantTables = tablesOf<TenantTables>();

declare module "../../platform/db/tables.js" {
  // One part's tables in the whole database (`HanseTables`, declaration merging).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HanseTables extends TenantTables {}
}
