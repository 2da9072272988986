import type { Scope } from "@hanse/client/protocol";
import type { CreationPosition, ListOrder } from "../../../platform/db/creation-order.js";
import type { Database } from "../../../platform/db/database.js";
import { hashSecret, newPartnerKeySecret } from "../credential-format.js";
import * as repo from "../credentials.repository.js";
import type { Executor, IdentityDeps } from "../identity.deps.js";
import type { IdentityTables } from "../identity.tables.js";

/** Partner API keys: identity stores them, the exchange area issues, lists and revokes them. */
export function createPartnerKeys(deps: IdentityDeps, database: Database<IdentityTables>) {
  const { db } = database;

  return {
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

    /**
     * A tenant's partner API keys (or one partner's) in creation order, after `after` (the exchange
     * area lists them).
     */
    listPartnerKeys(
      tenantId: string,
      limit: number,
      after?: CreationPosition,
      order?: ListOrder,
      partnerId?: string,
    ) {
      return repo.listCredentials(db, tenantId, "api_key", limit, after, order, partnerId);
    },

    findPartnerKey(tenantId: string, id: string) {
      return repo.findCredential(db, tenantId, "api_key", id);
    },

    /**
     * Revokes a partner API key in the caller's executor; false (nothing done) when it is unknown
     * or revoked already.
     */
    revokePartnerKey(executor: Executor, tenantId: string, id: string) {
      return repo.revokeCredential(executor, tenantId, "api_key", id, deps.clock.now());
    },
  };
}
