import type { Scope } from "@hanse/client/protocol";
import { actorOf } from "../../../platform/audit/index.js";
import type { Principal } from "../../../platform/auth/index.js";
import type { Database } from "../../../platform/db/database.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { readPage, toCreationPosition, type PageRequest } from "../../../platform/http/cursor.js";
import { hashSecret, newAccessToken } from "../credential-format.js";
import * as repo from "../credentials.repository.js";
import type { IdentityDeps } from "../identity.deps.js";
import type { IdentityTables } from "../identity.tables.js";
import { identityAudit } from "../identity.audit.js";

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

/** A tenant's access tokens: bearer tokens for programs, with at most their creator's scopes. */
export function createAccessTokens(deps: IdentityDeps, database: Database<IdentityTables>) {
  const { db } = database;
  const audit = identityAudit(deps);

  return {
    async createAccessToken(
      principal: Principal,
      input: { name: string; scopes: Scope[]; expiresAt?: string },
    ) {
      // rules/contract §2: only scopes the creator holds, else 403 (a scope its tenant cannot have, or a
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
      await database.transaction(async (trx) => {
        await repo.insertCredential(trx, {
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
        await audit.record(trx, principal.tenant.id, actorOf(principal), "access_token.created", {
          type: "access_token",
          id,
        });
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

    async listAccessTokens(principal: Principal, page: PageRequest) {
      const tenantId = principal.tenant.id;
      return readPage(deps.cursors, `access-tokens:${tenantId}`, page, {
        fetch: (after, order) => repo.listCredentials(db, tenantId, "access_token", page.limit, after, order),
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
      await database.transaction(async (trx) => {
        // Revoking a revoked token changes nothing: no record.
        if (await repo.revokeCredential(trx, principal.tenant.id, "access_token", id, deps.clock.now())) {
          await audit.record(trx, principal.tenant.id, actorOf(principal), "access_token.revoked", {
            type: "access_token",
            id,
          });
        }
      });
      return toAccessTokenView(
        (await repo.findCredential(db, principal.tenant.id, "access_token", id)) ?? row,
      );
    },
  };
}
