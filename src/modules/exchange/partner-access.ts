import type { Principal } from "../../platform/auth/index.js";
import { isUuid } from "../../platform/crypto/index.js";
import { AppError } from "../../platform/http/app-error.js";
import type { Database } from "../../platform/db/database.js";
import * as repo from "./exchange.repository.js";
import type { ExchangeTables } from "./exchange.tables.js";

const hidden = () => new AppError("ERR_B2B_EXCHANGE_NOT_FOUND", "No such connection for this key.");

/**
 * The connection a partner key may use (CONTRACT §4): of its tenant and its partner, among the
 * key's connections when it is restricted, and active. Anything else is the same 404.
 */
export async function requirePartnerConnection(
  database: Database<ExchangeTables>,
  principal: Principal,
  connectionId: string,
) {
  if (principal.kind !== "api_key" || !principal.partnerId || !isUuid(connectionId)) throw hidden();
  const id = connectionId.toLowerCase();
  if (principal.connectionIds && !principal.connectionIds.includes(id)) throw hidden();
  const connection = await repo.findConnectionPrepared(database, principal.tenant.id, id);
  if (connection?.partner_id !== principal.partnerId || connection.status !== "active") throw hidden();
  return connection;
}
