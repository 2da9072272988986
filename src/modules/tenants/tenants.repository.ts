import type { Kysely } from "kysely";
import type {
  ProvisioningState,
  StepState,
  TenantProvisioningTable,
  TenantTables,
} from "./tenants.tables.js";

type Db = Kysely<TenantTables>;

export async function insertProvisioning(
  db: Db,
  row: Omit<TenantProvisioningTable, "steps" | "input" | "error"> & {
    steps: { name: string; state: StepState }[];
    input: Record<string, unknown>;
  },
) {
  await db
    .insertInto("tenant_provisioning")
    .values({ ...row, steps: JSON.stringify(row.steps), input: JSON.stringify(row.input), error: null })
    .execute();
}

export function findProvisioning(db: Db, tenantId: string) {
  return db
    .selectFrom("tenant_provisioning")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .executeTakeFirst();
}

/** Locks the row so two workers never run the same step at once. */
export function lockProvisioning(db: Db, tenantId: string) {
  return db
    .selectFrom("tenant_provisioning")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateProvisioning(
  db: Db,
  tenantId: string,
  patch: {
    state?: ProvisioningState;
    steps?: { name: string; state: StepState }[];
    input?: Record<string, unknown>;
    error?: { code: string; message: string } | null;
    started_at?: Date;
    completed_at?: Date;
    updated_at: Date;
  },
) {
  const { steps, input, error, ...rest } = patch;
  await db
    .updateTable("tenant_provisioning")
    .set({
      ...rest,
      ...(steps ? { steps: JSON.stringify(steps) } : {}),
      ...(input ? { input: JSON.stringify(input) } : {}),
      ...(error !== undefined ? { error: error ? JSON.stringify(error) : null } : {}),
    })
    .where("tenant_id", "=", tenantId)
    .execute();
}
