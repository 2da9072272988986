import type { Principal } from "../../platform/auth/index.js";
import { isUuid } from "../../platform/crypto/index.js";
import { AppError } from "../../platform/errors/app-error.js";
import type { Database } from "../../platform/db/database.js";
import { findConnectionPrepared } from "./connections.repository.js";
import type { ExchangeTables } from "./exchange.tables.js";

export const hiddenConnection = () =>
  new AppError("ERR_B2B_EXCHANGE_NOT_FOUND", "No such connection for this key.");

/** The connection id of a request path, lower case, or a 404 when it cannot name one. */
export function connectionIdOf(connectionId: string): string {
  if (!isUuid(connectionId)) throw hiddenConnection();
  return connectionId.toLowerCase();
}

/** Whether the key itself may name the connection: a partner key, restricted or not to it. */
function keyMayName(principal: Principal, id: string): boolean {
  if (principal.kind !== "api_key" || !principal.partnerId) return false;
  return !principal.connectionIds || principal.connectionIds.includes(id);
}

/**
 * Whether a partner key may use a connection (rules/contract §4): of its tenant and its partner, among
 * the key's connections when it is restricted, and active. The accept statement of a small upload
 * decides the same in SQL (`target` in inbox/inbox.repository.ts).
 */
export function mayUseConnection(
  principal: Principal,
  id: string,
  connection: { tenant_id: string | null; partner_id: string | null; status: string | null } | undefined,
): boolean {
  return (
    keyMayName(principal, id) &&
    connection?.tenant_id === principal.tenant.id &&
    connection.partner_id === principal.partnerId &&
    connection.status === "active"
  );
}

/** The connection a partner key may use; anything else is the same 404 (no query when the key cannot name it). */
export async function requirePartnerConnection(
  database: Database<ExchangeTables>,
  principal: Principal,
  connectionId: string,
) {
  const id = connectionIdOf(connectionId);
  if (!keyMayName(principal, id)) throw hiddenConnection();
  const connection = await findConnectionPrepared(database, principal.tenant.id, id);
  if (!connection || !mayUseConnection(principal, id, connection)) throw hiddenConnection();
  return connection;
}
