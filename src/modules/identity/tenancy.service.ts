import { sql } from "kysely";
import type { Scope, TenantType } from "@hanse/client/protocol";
import { systemScopes, tenantAdminScopes } from "@hanse/client/protocol";
import { randomSecret, unusablePasswordHash } from "../../platform/crypto/index.js";
import type { CreationPosition, ListOrder } from "../../platform/db/creation-order.js";
import type { Database } from "../../platform/db/database.js";
import { derivedCredentialId, hashSecret, legacyDerivedCredentialId } from "./credential-format.js";
import * as repo from "./credentials.repository.js";
import * as users from "./users/users.repository.js";
import type { Executor, IdentityDeps } from "./identity.deps.js";
import type { IdentityTables, TenantsTable } from "./identity.tables.js";

export const systemTenantSlug = "system";

/** Scopes of the bootstrap administrator (rules/contract §2). */
export const bootstrapAdminScopes: Scope[] = [...systemScopes, ...tenantAdminScopes];

/** Tenants and their users: the system tenant at first start, customer tenants for the tenants module. */
export function createTenancy(deps: IdentityDeps, database: Database<IdentityTables>) {
  return {
    /**
     * Records a customer tenant inside the caller's transaction (the tenants module creates and
     * provisions them). Identity writes the tenants table: it makes the system tenant at bootstrap
     * and reads a tenant's type and status with every credential.
     */
    async insertTenant(trx: Executor, tenant: TenantsTable) {
      await repo.insertTenant(trx, tenant);
    },

    /** The tenants in creation order, after `after` (the tenants module lists them). */
    listTenants(limit: number, after?: CreationPosition, order?: ListOrder) {
      return repo.listTenants(database.db, limit, after, order);
    },

    findTenant(id: string) {
      return repo.findTenant(database.db, id);
    },

    /** The tenant with this slug, inside the caller's transaction (a new tenant's slug is free). */
    findTenantBySlug(trx: Executor, slug: string) {
      return repo.findTenantBySlug(trx, slug);
    },

    /** The tenant, its row locked until the caller's transaction ends (suspend and resume take turns). */
    lockTenant(trx: Executor, id: string) {
      return repo.lockTenant(trx, id);
    },

    /**
     * A tenant's provisioning ended (`active` or `failed`), or it was suspended or resumed: from
     * `failed` and `suspended` on, its credentials are refused as if unknown.
     */
    async setTenantStatus(trx: Executor, tenantId: string, status: TenantsTable["status"], at: Date) {
      await repo.setTenantStatus(trx, tenantId, status, at);
    },

    /**
     * First start (rules/contract §0): the system tenant and its administrator, with the given token or
     * a random one. Returns the generated token only when one was generated now.
     */
    async bootstrap(input: {
      token?: string | undefined;
      email: string;
    }): Promise<{ generatedToken?: string; created: boolean; systemTenantId: string }> {
      return database.transaction(async (trx) => {
        // Serialises concurrent first starts of several processes.
        await sql`SELECT pg_advisory_xact_lock(7420001)`.execute(trx);
        const existing = await repo.findSystemTenant(trx);
        if (existing) {
          // Earlier releases derived the bootstrap token's id without UUID version bits.
          if (input.token) {
            await repo.rekeyCredential(
              trx,
              legacyDerivedCredentialId(input.token),
              derivedCredentialId(input.token),
            );
          }
          return { created: false, systemTenantId: existing.id };
        }
        const now = deps.clock.now();
        const tenantId = deps.newId();
        await repo.insertTenant(trx, {
          id: tenantId,
          name: "System",
          slug: systemTenantSlug,
          type: "system" satisfies TenantType,
          status: "active",
          created_at: now,
          updated_at: now,
        });
        const userId = deps.newId();
        await users.insertUser(trx, {
          tenant_id: tenantId,
          id: userId,
          email: input.email,
          name: "System administrator",
          password_hash: unusablePasswordHash,
          scopes: bootstrapAdminScopes,
          role: "owner",
          status: "active",
          created_at: now,
          disabled_at: null,
          last_sign_in_at: null,
          activated_at: now,
        });
        const generated = input.token ? undefined : `hanse_bt_${randomSecret()}`;
        const token = input.token ?? generated ?? "";
        const credentialId = derivedCredentialId(token);
        await repo.insertCredential(trx, {
          id: credentialId,
          tenant_id: tenantId,
          kind: "access_token",
          principal_id: credentialId,
          name: "bootstrap administrator",
          secret_hash: hashSecret(token),
          scopes: bootstrapAdminScopes,
          connection_ids: null,
          created_by: userId,
          created_at: now,
          expires_at: null,
          revoked_at: null,
        });
        return generated
          ? { generatedToken: generated, created: true, systemTenantId: tenantId }
          : { created: true, systemTenantId: tenantId };
      });
    },
  };
}
