import type { Selectable } from "kysely";
import { tenantAdminScopes } from "@hanse/client/protocol";
import { actorOf, recordAudit } from "../../platform/audit/index.js";
import type { Principal } from "../../platform/auth/index.js";
import type { Clock } from "../../platform/clock/clock.js";
import type { IdGenerator } from "../../platform/crypto/index.js";
import { hashPassword } from "../../platform/crypto/index.js";
import type { Database } from "../../platform/db/database.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { AppError } from "../../platform/errors/app-error.js";
import {
  readPage,
  toCreationPosition,
  type CursorCodec,
  type PageRequest,
} from "../../platform/http/cursor.js";
import { canonicalJson, type Idempotency } from "../../platform/http/idempotency.js";
import type { JobContext, JobQueue, JobSpec } from "../../platform/jobs/index.js";
import {
  identityTables,
  newPasswordProblem,
  type IdentityService,
  type TenantsTable,
} from "../identity/index.js";
import type { ProvisioningStep } from "../module.js";
import * as repo from "./tenants.repository.js";
import { tenantTables, type TenantProvisioningTable, type TenantTables } from "./tenants.tables.js";

export const provisionTenantJobName = "tenants.provision";
/** The provisioning job's name and budget, enqueued here and defined in index.ts. */
export const provisionTenantJobSpec: JobSpec<{ tenantId: string }> = {
  name: provisionTenantJobName,
  maxAttempts: 8,
};
export const provisioningRetryAfterSeconds = 1;

export interface CreateTenantInput {
  name: string;
  slug: string;
  admin?: { email: string; password: string; name?: string };
}

const toTenant = (row: TenantsTable) => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  type: row.type,
  status: row.status,
  createdAt: row.created_at.toISOString(),
});

export const provisioningHref = (tenantId: string) => `/api/v1/system/tenants/${tenantId}/provisioning`;
export const tenantHref = (tenantId: string) => `/api/v1/system/tenants/${tenantId}`;

const toProvisioning = (row: Selectable<TenantProvisioningTable>) => {
  const terminal = row.state === "succeeded" || row.state === "failed";
  return {
    tenantId: row.tenant_id,
    state: row.state,
    terminal,
    steps: row.steps,
    error: row.error,
    startedAt: row.started_at ? row.started_at.toISOString() : null,
    completedAt: row.completed_at ? row.completed_at.toISOString() : null,
  };
};

export interface TenantsDeps {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  cursors: CursorCodec;
  idempotency: Idempotency;
  jobs: JobQueue;
  identity: IdentityService;
  /** Steps other modules add; run after the administrator is created, in order. */
  steps: () => ProvisioningStep[];
}

export function createTenantsService(deps: TenantsDeps) {
  const { db } = deps.database.as<TenantTables>();
  // Provisioning and status changes write the tenants module's and identity's tables (and run
  // other parts' steps) in one transaction: it spans the whole database, each call gets its slice.
  const database = deps.database;

  const administratorStep: ProvisioningStep = {
    name: "create-administrator",
    async run(trx, { tenantId, input }) {
      const admin = input.admin as { email: string; name: string; passwordHash: string } | undefined;
      if (!admin) return;
      await deps.identity.ensureUser(identityTables(trx), {
        tenantId,
        email: admin.email,
        name: admin.name,
        passwordHash: admin.passwordHash,
        scopes: [...tenantAdminScopes],
      });
    },
  };
  const allSteps = () => [administratorStep, ...deps.steps()];

  async function changeStatus(principal: Principal, id: string, to: "suspended" | "active") {
    const from = to === "suspended" ? "active" : "suspended";
    return database.transaction(async (trx) => {
      const row = await deps.identity.lockTenant(identityTables(trx), id);
      if (!row) throw new AppError("ERR_NOT_FOUND", "No such tenant.");
      if (row.type === "system") {
        throw new AppError("ERR_CONFLICT", "The system tenant cannot be suspended or resumed.");
      }
      if (row.status === to) return toTenant(row);
      if (row.status !== from) {
        throw new AppError(
          "ERR_CONFLICT",
          `Only a tenant that is ${from} can be ${to === "active" ? "resumed" : to}.`,
        );
      }
      const now = deps.clock.now();
      await deps.identity.setTenantStatus(identityTables(trx), row.id, to, now);
      if (to === "suspended") await deps.jobs.pauseTenant(trx, row.id);
      else await deps.jobs.resumeTenant(trx, row.id);
      await recordAudit(trx, {
        tenantId: principal.tenant.id,
        id: deps.newId(),
        type: to === "suspended" ? "tenant.suspended" : "tenant.resumed",
        occurredAt: now,
        actor: actorOf(principal),
        targetType: "tenant",
        targetId: row.id,
        data: { tenantId: row.id },
      });
      return toTenant({ ...row, status: to });
    });
  }

  return {
    /** How logs name an idempotency key: an opaque keyed-hash reference. */
    idempotencyReference: (key: string) => deps.idempotency.reference(key),

    async listTenants(page: PageRequest) {
      return readPage(deps.cursors, "system.tenants", page, {
        fetch: (after, order) => deps.identity.listTenants(page.limit, after, order),
        position: toCreationPosition,
        view: toTenant,
      });
    },

    async getTenant(id: string) {
      const row = await deps.identity.findTenant(id);
      if (!row) throw new AppError("ERR_NOT_FOUND", "No such tenant.");
      return toTenant(row);
    },

    async getProvisioning(tenantId: string) {
      const row = await repo.findProvisioning(db, tenantId);
      if (!row) throw new AppError("ERR_NOT_FOUND", "No such tenant.");
      return toProvisioning(row);
    },

    /** Starts provisioning: tenant row, provisioning status and job in one transaction. */
    async createTenant(principal: Principal, key: string, body: CreateTenantInput) {
      const problem = body.admin ? newPasswordProblem(body.admin.password) : undefined;
      if (problem) {
        throw new AppError("ERR_VALIDATION", `The administrator's password ${problem}.`, {
          errors: [{ pointer: "/admin/password", message: problem }],
        });
      }
      const fingerprint = canonicalJson(body);
      const passwordHash = body.admin ? await hashPassword(body.admin.password) : undefined;
      try {
        return await deps.idempotency.run(
          { tenantId: principal.tenant.id, endpoint: "POST /api/v1/system/tenants", key, fingerprint },
          async (trx) => {
            if (await deps.identity.findTenantBySlug(identityTables(trx), body.slug))
              throw new AppError("ERR_CONFLICT", "The slug is taken.");
            const now = deps.clock.now();
            const tenantId = deps.newId();
            await deps.identity.insertTenant(identityTables(trx), {
              id: tenantId,
              name: body.name,
              slug: body.slug,
              type: "customer",
              status: "provisioning",
              created_at: now,
              updated_at: now,
            });
            await repo.insertProvisioning(tenantTables(trx), {
              tenant_id: tenantId,
              state: "pending",
              steps: allSteps().map((s) => ({ name: s.name, state: "pending" })),
              input: body.admin
                ? {
                    admin: {
                      email: body.admin.email,
                      name: body.admin.name ?? body.admin.email,
                      passwordHash,
                    },
                  }
                : {},
              started_at: null,
              completed_at: null,
              created_at: now,
              updated_at: now,
            });
            await deps.jobs.enqueue(
              trx,
              provisionTenantJobSpec,
              { tenantId },
              { key: `tenants.provision:${tenantId}`, tenantId },
            );
            // In the system tenant, whose operator acted, and as the first record of the new
            // tenant's own trail (its operators see who created it and when).
            for (const trailOf of [principal.tenant.id, tenantId]) {
              await recordAudit(trx, {
                tenantId: trailOf,
                id: deps.newId(),
                type: "tenant.created",
                occurredAt: now,
                actor: actorOf(principal),
                targetType: "tenant",
                targetId: tenantId,
                data: { slug: body.slug },
              });
            }
            const responseBody = { tenantId, status: "provisioning", statusHref: provisioningHref(tenantId) };
            return {
              status: 202,
              body: JSON.stringify(responseBody),
              headers: {
                location: tenantHref(tenantId),
                "retry-after": String(provisioningRetryAfterSeconds),
              },
            };
          },
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError("ERR_CONFLICT", "The slug is taken.");
        throw error;
      }
    },

    /**
     * rules/contract §7: suspends an active customer tenant. From the commit on its credentials are
     * refused as if unknown (identity reads the status with every credential) and no worker claims
     * its jobs (they wait, queued); nothing is deleted. Suspending a suspended tenant answers it as
     * it is (no second record); the system tenant, or one that is not active, is 409.
     */
    async suspendTenant(principal: Principal, id: string) {
      return changeStatus(principal, id, "suspended");
    },

    /** rules/contract §7: a suspended tenant becomes active again, with the same credentials and its waiting jobs. */
    async resumeTenant(principal: Principal, id: string) {
      return changeStatus(principal, id, "active");
    },

    /** The provisioning job: resumable, each step committed with its own state. */
    async runProvisioning(tenantId: string, _context: JobContext) {
      const steps = allSteps();
      for (const step of steps) {
        const done = await database.transaction(async (trx) => {
          const row = await repo.lockProvisioning(tenantTables(trx), tenantId);
          if (!row || row.state === "succeeded" || row.state === "failed") return true;
          const now = deps.clock.now();
          const states = row.steps.some((s) => s.name === step.name)
            ? row.steps
            : [...row.steps, { name: step.name, state: "pending" as const }];
          if (states.find((s) => s.name === step.name)?.state === "succeeded") return false;
          await step.run(trx, { tenantId, input: row.input });
          await repo.updateProvisioning(tenantTables(trx), tenantId, {
            state: "running",
            steps: states.map((s) => (s.name === step.name ? { ...s, state: "succeeded" } : s)),
            ...(row.started_at ? {} : { started_at: now }),
            updated_at: now,
          });
          return false;
        });
        if (done) return;
      }
      await database.transaction(async (trx) => {
        const row = await repo.lockProvisioning(tenantTables(trx), tenantId);
        if (!row || row.state === "succeeded" || row.state === "failed") return;
        const now = deps.clock.now();
        await repo.updateProvisioning(tenantTables(trx), tenantId, {
          state: "succeeded",
          input: {},
          error: null,
          completed_at: now,
          ...(row.started_at ? {} : { started_at: now }),
          updated_at: now,
        });
        await deps.identity.setTenantStatus(identityTables(trx), tenantId, "active", now);
      });
    },

    /** The attempt budget is spent: the tenant ends `failed` with a reason. */
    async failProvisioning(tenantId: string) {
      await database.transaction(async (trx) => {
        const row = await repo.lockProvisioning(tenantTables(trx), tenantId);
        if (!row || row.state === "succeeded" || row.state === "failed") return;
        const now = deps.clock.now();
        const failedStep = row.steps.find((s) => s.state !== "succeeded");
        await repo.updateProvisioning(tenantTables(trx), tenantId, {
          state: "failed",
          steps: row.steps.map((s) => (s === failedStep ? { ...s, state: "failed" } : s)),
          input: {},
          error: {
            code: "ERR_PROVISIONING_FAILED",
            message: failedStep ? `The step ${failedStep.name} failed repeatedly.` : "Provisioning failed.",
          },
          completed_at: now,
          updated_at: now,
        });
        await deps.identity.setTenantStatus(identityTables(trx), tenantId, "failed", now);
      });
    },
  };
}

export type TenantsService = ReturnType<typeof createTenantsService>;
