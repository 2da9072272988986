import type { ColumnType } from "kysely";

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
