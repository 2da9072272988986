import type { AuditFilter } from "../../../platform/audit/index.js";
import { invalidQuery } from "./admin-errors.js";
import type { ListFilter } from "./partners.repository.js";

/*
 * The filters of the operator's lists of uploads and deliveries (contract 24-2), connections and
 * API keys: checked beyond the routes' schemas, normalised, and bound into the list's cursors.
 */

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
  interchangeReference?: string | undefined;
  documentNumber?: string | undefined;
  partnerId?: string | undefined;
  /** `true`: overdue deliveries only. */
  overdue?: "true" | undefined;
}

/** A query time (already an RFC 3339 date-time by the route's schema) as a Date, else 400. */
function queryTime(name: string, value: string | undefined): Date | undefined {
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
export function listFilter(query: ListQuery, statuses: readonly string[]): ListFilter {
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
    interchangeReference: query.interchangeReference,
    documentNumber: query.documentNumber?.trim(),
    partnerId: query.partnerId?.toLowerCase(),
    overdue: query.overdue === "true" ? true : undefined,
  };
}

/**
 * The cursor binding of a filtered list: a cursor is valid only with the filter it was issued
 * for (another filter is the 400 of a cursor of another list). Without a filter, the list's own.
 */
export function filterBinding(list: string, tenantId: string, filter: ListFilter): string {
  return boundTo(`exchange.${list}:${tenantId}`, [
    filter.connectionId ?? "",
    filter.statuses?.join(",") ?? "",
    filter.from?.toISOString() ?? "",
    filter.to?.toISOString() ?? "",
    filter.uploadId ?? "",
    filter.messageType ?? "",
    filter.interchangeReference ?? "",
    filter.documentNumber ?? "",
    filter.partnerId ?? "",
    filter.overdue ? "overdue" : "",
  ]);
}

/**
 * The filter of the operator's lists of connections and API keys (`partnerId`, lower-cased) and
 * its cursor binding: without a partner, the list's own (`exchange.<list>:<tenant>`, as before
 * the filter), so an unfiltered cursor is refused with a partner and the other way round.
 */
export function partnerListFilter(
  list: "connections" | "api-keys",
  tenantId: string,
  query: { partnerId?: string | undefined },
): { partnerId: string | undefined; binding: string } {
  const partnerId = query.partnerId?.toLowerCase();
  return { partnerId, binding: boundTo(`exchange.${list}:${tenantId}`, [partnerId ?? ""]) };
}

/** `base`, with the filter's normalised parts when any is set. */
function boundTo(base: string, key: readonly string[]): string {
  return key.every((part) => part === "") ? base : `${base}:${JSON.stringify(key)}`;
}

/** The filters of `GET …/audit-events` as the query has them (rules/contract §7). */
export interface AuditQuery {
  type?: string | undefined;
  principalId?: string | undefined;
  targetId?: string | undefined;
  occurredFrom?: string | undefined;
  occurredBefore?: string | undefined;
  order?: "asc" | "desc" | undefined;
}

/** The audit trail's time range `[occurredFrom, occurredBefore)`, checked: from before before. */
export function auditRange(query: Pick<AuditQuery, "occurredFrom" | "occurredBefore">) {
  const from = queryTime("occurredFrom", query.occurredFrom);
  const before = queryTime("occurredBefore", query.occurredBefore);
  if (from && before && from >= before) {
    throw invalidQuery("/query/occurredBefore", "occurredBefore must be later than occurredFrom");
  }
  return { from, before };
}

/**
 * The audit list's filter, checked beyond the route's schema (`occurredFrom` before
 * `occurredBefore`) and normalised (ids lower-cased), and its cursor binding: a cursor is valid
 * only with the filter and order of the page that gave it. `v2`: the position is
 * `(occurredAt, id)`, so a cursor of an earlier release (an id alone) is refused as invalid.
 */
export function auditFilter(tenantId: string, query: AuditQuery): { filter: AuditFilter; binding: string } {
  const { from, before } = auditRange(query);
  const filter: AuditFilter = {
    type: query.type,
    principalId: query.principalId?.toLowerCase(),
    targetId: query.targetId,
    from,
    before,
    order: query.order ?? "asc",
  };
  const binding = boundTo(`exchange.audit.v2:${tenantId}`, [
    filter.type ?? "",
    filter.principalId ?? "",
    filter.targetId ?? "",
    from?.toISOString() ?? "",
    before?.toISOString() ?? "",
    filter.order === "asc" ? "" : filter.order,
  ]);
  return { filter, binding };
}
