import type { Selectable } from "kysely";
import { findAuditEvent, listAuditEvents, type AuditEventsTable } from "../../../platform/audit/index.js";
import type { Principal } from "../../../platform/auth/index.js";
import { isUuid } from "../../../platform/crypto/index.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { readPage, toCreationPosition, type PageRequest } from "../../../platform/http/cursor.js";
import { hex, iso, type ExchangeDeps } from "../exchange.deps.js";
import {
  deliveryStatuses,
  uploadStatuses,
  type DeliveriesTable,
  type UploadsTable,
} from "../exchange.tables.js";
import { findDelivery, type MailboxService } from "../mailbox/index.js";
import { findUpload } from "../processing/index.js";
import { invalidQuery, notFound } from "./admin-errors.js";
import { listPage, type ListFilter } from "./partners.repository.js";

export const toUploadView = (row: Selectable<UploadsTable>) => ({
  id: row.id,
  uploadId: row.id,
  connectionId: row.connection_id,
  interchangeId: row.interchange_id,
  status: row.status,
  byteCount: row.byte_count,
  profileRevision: row.profile_revision,
  error: row.error,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
  completedAt: iso(row.completed_at),
});

export const toDeliveryView = (row: Selectable<DeliveriesTable>) => ({
  id: row.id,
  deliveryAttemptId: row.id,
  connectionId: row.connection_id,
  uploadId: row.upload_id,
  interchangeId: row.interchange_id,
  inboundInterchangeId: row.inbound_interchange_id,
  messageReference: row.message_reference,
  messageType: row.message_type,
  payloadSize: row.payload_size,
  payloadSha256: hex(row.payload_sha256),
  status: row.status,
  attempts: row.attempts,
  dueAt: row.due_at.toISOString(),
  leaseExpiresAt: iso(row.lease_expires_at),
  receiptId: row.receipt_id,
  acknowledgedAt: iso(row.acknowledged_at),
  createdAt: row.created_at.toISOString(),
  resentFrom: row.resent_from,
});
const toAudit = (row: Selectable<AuditEventsTable>) => ({
  id: row.id,
  type: row.type,
  occurredAt: row.occurred_at.toISOString(),
  principalId: row.principal_id,
  connectionId: row.connection_id,
  uploadId: row.upload_id,
  deliveryAttemptId: row.delivery_attempt_id,
  byteCount: row.byte_count === null ? null : row.byte_count,
  outcome: row.outcome,
});
/** The filters of `GET …/exchange-uploads` and `…/exchange-deliveries` as the query has them. */
export interface ListQuery {
  connectionId?: string | undefined;
  /** One status or several, separated by commas. */
  status?: string | undefined;
  /** RFC 3339 times on `createdAt`: `from` inclusive, `to` exclusive. */
  from?: string | undefined;
  to?: string | undefined;
  uploadId?: string | undefined;
  messageType?: string | undefined;
}

/** A query time (already an RFC 3339 date-time by the route's schema) as a Date, else 400. */
function queryTime(name: "from" | "to", value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) {
    throw invalidQuery(
      `/query/${name}`,
      `${name} must be a date-time such as 2026-01-31T12:00:00Z (RFC 3339)`,
    );
  }
  return at;
}

/**
 * The query's filters, checked beyond the route's schema: each status one of `statuses` (a
 * comma-separated list allowed), `from` before `to`. Ids are lower-cased, statuses deduplicated
 * and sorted, so the same filter always has the same cursor binding.
 */
function listFilter(query: ListQuery, statuses: readonly string[]): ListFilter {
  let wanted: string[] | undefined;
  if (query.status !== undefined) {
    wanted = [...new Set(query.status.split(",").map((s) => s.trim()))].sort();
    if (wanted.some((s) => !statuses.includes(s))) {
      throw invalidQuery(
        "/query/status",
        `status must be one of ${statuses.join(", ")}, or several of them separated by commas`,
      );
    }
  }
  const from = queryTime("from", query.from);
  const to = queryTime("to", query.to);
  if (from && to && from >= to) throw invalidQuery("/query/to", "to must be later than from");
  return {
    connectionId: query.connectionId?.toLowerCase(),
    statuses: wanted,
    from,
    to,
    uploadId: query.uploadId?.toLowerCase(),
    messageType: query.messageType,
  };
}

/**
 * The cursor binding of a filtered list: a cursor is valid only with the filter it was issued
 * for (another filter is the 400 of a cursor of another list). Without a filter, the list's own.
 */
function filterBinding(list: string, tenantId: string, filter: ListFilter): string {
  const key = [
    filter.connectionId ?? "",
    filter.statuses?.join(",") ?? "",
    filter.from?.toISOString() ?? "",
    filter.to?.toISOString() ?? "",
    filter.uploadId ?? "",
    filter.messageType ?? "",
  ];
  const base = `exchange.${list}:${tenantId}`;
  return key.every((part) => part === "") ? base : `${base}:${JSON.stringify(key)}`;
}

/** The operator's views of uploads, deliveries and the audit trail; requeue and re-send of a delivery. */
export function createOperatorViews(deps: ExchangeDeps, mailbox: Pick<MailboxService, "requeue" | "resend">) {
  const { database, cursors } = deps;
  const { db } = database;

  /**
   * A tenant's uploads or deliveries in creation order, filtered (cursor binding
   * `exchange.<list>:<tenant>`, with the filter when there is one).
   */
  function listInCreationOrder<R extends { created_at: Date; id: string }, V>(
    tenantId: string,
    list: "uploads" | "deliveries",
    input: PageRequest & ListQuery,
    view: (row: R) => V,
  ) {
    const filter = listFilter(input, list === "uploads" ? uploadStatuses : deliveryStatuses);
    return readPage(cursors, filterBinding(list, tenantId, filter), input, {
      fetch: (after) =>
        listPage(db, `exchange_${list}`, tenantId, input.limit, after, filter).execute() as Promise<R[]>,
      position: toCreationPosition,
      view,
    });
  }

  async function getDelivery(principal: Principal, id: string) {
    const row = await findDelivery(db, principal.tenant.id, id);
    if (!row) throw notFound("delivery");
    return toDeliveryView(row);
  }

  return {
    async listAuditEvents(principal: Principal, input: PageRequest & { type?: string | undefined }) {
      const tenantId = principal.tenant.id;
      return readPage(cursors, `exchange.audit:${tenantId}:${input.type ?? ""}`, input, {
        fetch: (after?: { id: string }) =>
          listAuditEvents(db, tenantId, { limit: input.limit, type: input.type, afterId: after?.id }),
        position: (last) => ({ id: last.id }),
        view: toAudit,
      });
    },
    async getAuditEvent(principal: Principal, id: string) {
      const row = isUuid(id) ? await findAuditEvent(db, principal.tenant.id, id) : undefined;
      if (!row) throw notFound("audit event");
      return toAudit(row);
    },

    async listUploads(principal: Principal, input: PageRequest & ListQuery) {
      return listInCreationOrder(principal.tenant.id, "uploads", input, toUploadView);
    },
    async getUpload(principal: Principal, id: string) {
      const row = await findUpload(db, principal.tenant.id, id);
      if (!row) throw notFound("upload");
      return toUploadView(row);
    },
    async listDeliveries(principal: Principal, input: PageRequest & ListQuery) {
      return listInCreationOrder(principal.tenant.id, "deliveries", input, toDeliveryView);
    },
    getDelivery,
    /** An operator gives a `failed` delivery a fresh attempt budget. */
    async requeueDelivery(principal: Principal, id: string) {
      const outcome = await mailbox.requeue(principal.tenant.id, id);
      if (outcome === "missing") throw notFound("delivery");
      if (outcome === "refused")
        throw new AppError("ERR_CONFLICT", "Only a failed delivery can be requeued.");
      return getDelivery(principal, id);
    },
    /**
     * A partner lost a file: a new mailbox item with the same payload (the same blob), at the end
     * of the connection's mailbox, from a delivery in any state.
     */
    async resendDelivery(principal: Principal, id: string) {
      const resent = await mailbox.resend(principal.tenant.id, id, principal.id);
      if (!resent) throw notFound("delivery");
      return toDeliveryView(resent);
    },
  };
}
