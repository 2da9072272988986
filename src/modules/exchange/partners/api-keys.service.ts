import type { PartnerScope } from "@hanse/client/protocol";
import { actorOf, createAuditRecorder } from "../../../platform/audit/index.js";
import type { Principal } from "../../../platform/auth/index.js";
import { readPage, toCreationPosition, type PageRequest } from "../../../platform/http/cursor.js";
import { identityTables } from "../../identity/index.js";
import { findConnection } from "../connections.repository.js";
import { iso, type ExchangeDeps } from "../exchange.deps.js";
import { invalidReference, notFound } from "./admin-errors.js";
import { partnerListFilter } from "./list-filters.js";
import { findPartner } from "./partners.repository.js";

type ApiKeyRow = NonNullable<Awaited<ReturnType<ExchangeDeps["identity"]["findPartnerKey"]>>>;
const toApiKey = (row: ApiKeyRow) => ({
  id: row.id,
  apiKeyId: row.id,
  name: row.name,
  partnerId: row.principal_id,
  scopes: row.scopes,
  connectionIds: row.connection_ids,
  createdAt: row.created_at.toISOString(),
  revokedAt: iso(row.revoked_at),
});
/** A partner's API keys, issued, listed and revoked through identity (which owns credentials). */
export function createApiKeysService(deps: ExchangeDeps) {
  const { database, keysDatabase, cursors, identity } = deps;
  const { db } = database;
  const audit = createAuditRecorder(deps);

  async function getApiKey(principal: Principal, id: string) {
    const row = await identity.findPartnerKey(principal.tenant.id, id);
    if (!row) throw notFound("API key");
    return toApiKey(row);
  }

  return {
    async createApiKey(
      principal: Principal,
      input: { partnerId: string; scopes: PartnerScope[]; connectionIds?: string[]; name?: string },
    ) {
      const tenantId = principal.tenant.id;
      const partner = await findPartner(db, tenantId, input.partnerId);
      if (!partner) throw invalidReference("/partnerId", "no such partner in this tenant");
      for (const [index, connectionId] of (input.connectionIds ?? []).entries()) {
        const connection = await findConnection(db, tenantId, connectionId);
        if (connection?.partner_id !== input.partnerId) {
          throw invalidReference(`/connectionIds/${index}`, "no such connection of this partner");
        }
      }
      const scopes = [...new Set(input.scopes)];
      const issued = await keysDatabase.transaction(async (trx) => {
        const key = await identity.issuePartnerKey(identityTables(trx), {
          tenantId,
          partnerId: input.partnerId,
          name: input.name ?? `${partner.name} key`,
          scopes,
          connectionIds: input.connectionIds ?? null,
          createdBy: principal.id,
        });
        await audit(
          trx,
          tenantId,
          actorOf(principal),
          "api_key.created",
          { type: "api_key", id: key.apiKeyId },
          { data: { partnerId: input.partnerId } },
        );
        return key;
      });
      const row = await identity.findPartnerKey(tenantId, issued.apiKeyId);
      if (!row) throw new Error("issued key not found");
      return { ...toApiKey(row), token: issued.token };
    },
    /** The tenant's partner API keys, or one partner's (an unknown partner's: none), revoked ones included. */
    async listApiKeys(principal: Principal, input: PageRequest & { partnerId?: string | undefined }) {
      const tenantId = principal.tenant.id;
      const { partnerId, binding } = partnerListFilter("api-keys", tenantId, input);
      return readPage(cursors, binding, input, {
        fetch: (after, order) => identity.listPartnerKeys(tenantId, input.limit, after, order, partnerId),
        position: toCreationPosition,
        view: toApiKey,
      });
    },
    getApiKey,
    async revokeApiKey(principal: Principal, id: string) {
      await getApiKey(principal, id);
      const tenantId = principal.tenant.id;
      await keysDatabase.transaction(async (trx) => {
        // Revoking a revoked key changes nothing: no record.
        if (await identity.revokePartnerKey(identityTables(trx), tenantId, id)) {
          await audit(trx, tenantId, actorOf(principal), "api_key.revoked", { type: "api_key", id });
        }
      });
      return getApiKey(principal, id);
    },
  };
}
