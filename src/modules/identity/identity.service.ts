import { sql } from "kysely";
import type { Scope, TenantType } from "../../protocol/scopes.js";
import { systemScopes, tenantAdminScopes } from "../../protocol/scopes.js";
import type { Principal } from "../../platform/auth/index.js";
import type { Clock } from "../../platform/clock/clock.js";
import type { IdGenerator } from "../../platform/crypto/index.js";
import { randomSecret, unusablePasswordHash, verifyPassword } from "../../platform/crypto/index.js";
import type { CreationPosition } from "../../platform/db/creation-order.js";
import type { Database } from "../../platform/db/database.js";
import { AppError } from "../../platform/errors/app-error.js";
import { readPage, toCreationPosition, type CursorCodec } from "../../platform/http/cursor.js";
import {
  derivedCredentialId,
  hashSecret,
  legacyDerivedCredentialId,
  newAccessToken,
  newPartnerKeySecret,
  newSessionToken,
} from "./credential-format.js";
import { createAuthenticator } from "./authenticator.js";
import * as repo from "./identity.repository.js";
import { createSignInThrottle, signInLimits } from "./sign-in-throttle.js";
import type { IdentityTables, TenantsTable } from "./identity.tables.js";

export interface IdentityDeps {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  cursors: CursorCodec;
  sessionTtlSeconds: number;
  /** Failed sign-ins of an account (all addresses) before its checks are spaced out. */
  signInAccountFailures: number;
}

export type Executor = Parameters<typeof repo.insertUser>[0];

export const systemTenantSlug = "system";

/** Scopes of the bootstrap administrator (CONTRACT §2). */
export const bootstrapAdminScopes: Scope[] = [...systemScopes, ...tenantAdminScopes];

export interface AccessTokenView {
  id: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  createdBy: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const toAccessTokenView = (
  row: Awaited<ReturnType<typeof repo.findCredential>> & object,
): AccessTokenView => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes,
  createdAt: row.created_at.toISOString(),
  expiresAt: iso(row.expires_at),
  revokedAt: iso(row.revoked_at),
  createdBy: row.created_by,
});

export function createIdentityService(deps: IdentityDeps) {
  const signInThrottle = createSignInThrottle(deps.clock, {
    ...signInLimits,
    perAccount: { ...signInLimits.perAccount, burst: deps.signInAccountFailures },
  });
  const database = deps.database.as<IdentityTables>();
  const { db } = database;

  const authenticator = createAuthenticator({ database, clock: deps.clock });

  return {
    authenticator,

    /**
     * CONTRACT §2a: any wrong part is the same 401, and an unknown user costs the same time.
     * Failed logins are throttled before the password hash is computed (sign-in-throttle.ts):
     * per account and client address, so that an attacker's address cannot lock the account
     * out, and per account with a ceiling that slows guessing without refusing the right password.
     */
    async createSession(input: { tenant: string; email: string; password: string }, clientAddress = "") {
      const account = `${input.tenant}\n${input.email.toLowerCase()}`;
      await signInThrottle.admit(account, clientAddress);
      const tenant = await repo.findTenantBySlug(db, input.tenant);
      const user =
        tenant && tenant.status === "active"
          ? await repo.findUserByEmail(db, tenant.id, input.email)
          : undefined;
      const ok = await verifyPassword(input.password, user?.password_hash ?? unusablePasswordHash);
      if (!tenant || !user || !ok || user.disabled_at) {
        signInThrottle.recordFailure(account, clientAddress);
        throw new AppError("ERR_UNAUTHENTICATED", "The tenant, e-mail or password is wrong.");
      }
      const id = deps.newId();
      const token = newSessionToken(id);
      const now = deps.clock.now();
      const expiresAt = new Date(now.getTime() + deps.sessionTtlSeconds * 1000);
      await repo.insertCredential(db, {
        id,
        tenant_id: tenant.id,
        kind: "session",
        principal_id: user.id,
        name: user.email,
        secret_hash: hashSecret(token),
        scopes: user.scopes,
        connection_ids: null,
        created_by: user.id,
        created_at: now,
        expires_at: expiresAt,
        revoked_at: null,
      });
      return {
        id,
        token,
        expiresAt: expiresAt.toISOString(),
        scopes: user.scopes,
        createdAt: now.toISOString(),
      };
    },

    async revokeSession(principal: Principal) {
      await repo.revokeCredential(
        db,
        principal.tenant.id,
        "session",
        principal.credentialId,
        deps.clock.now(),
      );
    },

    async createAccessToken(
      principal: Principal,
      input: { name: string; scopes: Scope[]; expiresAt?: string },
    ) {
      // CONTRACT §2: only scopes the creator holds, else 403 (a scope its tenant cannot have, or a
      // partner scope, is one the creator does not hold); unknown names fail the schema (400).
      if (input.scopes.some((s) => !principal.scopes.has(s))) {
        throw new AppError("ERR_FORBIDDEN", "An access token can only carry scopes its creator holds.");
      }
      const now = deps.clock.now();
      const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
      if (expiresAt && expiresAt <= now) {
        throw new AppError("ERR_VALIDATION", "expiresAt must be in the future.", {
          errors: [{ pointer: "/expiresAt", message: "must be in the future" }],
        });
      }
      const id = deps.newId();
      const token = newAccessToken(id);
      const scopes = [...new Set(input.scopes)];
      await repo.insertCredential(db, {
        id,
        tenant_id: principal.tenant.id,
        kind: "access_token",
        principal_id: id,
        name: input.name,
        secret_hash: hashSecret(token),
        scopes,
        connection_ids: null,
        created_by: principal.id,
        created_at: now,
        expires_at: expiresAt,
        revoked_at: null,
      });
      return {
        id,
        name: input.name,
        token,
        scopes,
        createdAt: now.toISOString(),
        expiresAt: iso(expiresAt),
        revokedAt: null,
        createdBy: principal.id,
      };
    },

    async listAccessTokens(principal: Principal, page: { limit: number; cursor?: string | undefined }) {
      const tenantId = principal.tenant.id;
      return readPage(deps.cursors, `access-tokens:${tenantId}`, page, {
        fetch: (after) => repo.listCredentials(db, tenantId, "access_token", page.limit, after),
        position: toCreationPosition,
        view: toAccessTokenView,
      });
    },

    async getAccessToken(principal: Principal, id: string) {
      const row = await repo.findCredential(db, principal.tenant.id, "access_token", id);
      if (!row) throw new AppError("ERR_NOT_FOUND", "No such access token.");
      return toAccessTokenView(row);
    },

    async revokeAccessToken(principal: Principal, id: string) {
      const row = await repo.findCredential(db, principal.tenant.id, "access_token", id);
      if (!row) throw new AppError("ERR_NOT_FOUND", "No such access token.");
      await repo.revokeCredential(db, principal.tenant.id, "access_token", id, deps.clock.now());
      return toAccessTokenView(
        (await repo.findCredential(db, principal.tenant.id, "access_token", id)) ?? row,
      );
    },

    /** Partner API keys (the exchange area issues them): `<apiKeyId>:<secret>`, shown once. */
    async issuePartnerKey(
      trx: Executor,
      input: {
        tenantId: string;
        partnerId: string;
        name: string;
        scopes: Scope[];
        connectionIds: string[] | null;
        createdBy: string;
      },
    ) {
      const id = deps.newId();
      const secret = newPartnerKeySecret();
      const now = deps.clock.now();
      await repo.insertCredential(trx, {
        id,
        tenant_id: input.tenantId,
        kind: "api_key",
        principal_id: input.partnerId,
        name: input.name,
        secret_hash: hashSecret(secret),
        scopes: input.scopes,
        connection_ids: input.connectionIds,
        created_by: input.createdBy,
        created_at: now,
        expires_at: null,
        revoked_at: null,
      });
      return { apiKeyId: id, token: `${id}:${secret}`, createdAt: now.toISOString() };
    },

    /** A tenant's partner API keys in creation order, after `after` (the exchange area lists them). */
    listPartnerKeys(tenantId: string, limit: number, after?: CreationPosition) {
      return repo.listCredentials(db, tenantId, "api_key", limit, after);
    },

    findPartnerKey(tenantId: string, id: string) {
      return repo.findCredential(db, tenantId, "api_key", id);
    },

    /** Revokes a partner API key; nothing when it is unknown or revoked already. */
    async revokePartnerKey(tenantId: string, id: string) {
      await repo.revokeCredential(db, tenantId, "api_key", id, deps.clock.now());
    },

    /**
     * Records a customer tenant inside the caller's transaction (the tenants module creates and
     * provisions them). Identity writes the tenants table: it makes the system tenant at bootstrap
     * and reads a tenant's type and status with every credential.
     */
    async insertTenant(trx: Executor, tenant: TenantsTable) {
      await repo.insertTenant(trx, tenant);
    },

    /** A tenant's provisioning ended: `active`, or `failed` (its credentials stop working). */
    async setTenantStatus(trx: Executor, tenantId: string, status: TenantsTable["status"], at: Date) {
      await repo.setTenantStatus(trx, tenantId, status, at);
    },

    /** Creates a tenant's user inside the caller's transaction (provisioning). Idempotent by e-mail. */
    async ensureUser(
      trx: Executor,
      input: { tenantId: string; email: string; name: string; passwordHash: string; scopes: Scope[] },
    ) {
      const existing = await repo.findUserByEmail(trx, input.tenantId, input.email);
      if (existing) return existing.id;
      const id = deps.newId();
      await repo.insertUser(trx, {
        tenant_id: input.tenantId,
        id,
        email: input.email,
        name: input.name,
        password_hash: input.passwordHash,
        scopes: input.scopes,
        created_at: deps.clock.now(),
        disabled_at: null,
      });
      return id;
    },

    /**
     * First start (CONTRACT §0): the system tenant and its administrator, with the given token or
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
        await repo.insertUser(trx, {
          tenant_id: tenantId,
          id: userId,
          email: input.email,
          name: "System administrator",
          password_hash: unusablePasswordHash,
          scopes: bootstrapAdminScopes,
          created_at: now,
          disabled_at: null,
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

export type IdentityService = ReturnType<typeof createIdentityService>;
