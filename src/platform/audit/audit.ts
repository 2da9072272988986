import type { Kysely } from "kysely";
import type { Principal, RequestOrigin, ServicePrincipal } from "../auth/index.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Executor = Kysely<any>;
export const auditTables = (db: Executor) => db as Kysely<AuditTables>;

export interface AuditEventsTable {
  tenant_id: string;
  id: string;
  type: string;
  occurred_at: Date;
  principal_id: string | null;
  connection_id: string | null;
  upload_id: string | null;
  delivery_attempt_id: string | null;
  byte_count: number | null;
  outcome: string | null;
  data: unknown;
  principal_kind: AuditPrincipalKind | null;
  target_type: string | null;
  target_id: string | null;
  source_address: string | null;
  correlation_id: string | null;
  /** The names of the fields an `*.updated` record changed (never their values). */
  changes: string[] | null;
  /** The record's place in its tenant's hash chain; null until the sealer reached it (audit-chain.ts). */
  seal_sequence: number | null;
  seal_previous: string | null;
  seal_hash: string | null;
}

/** Each tenant's last seal: where the chain goes on, and what must not be missing up to it. */
export interface AuditChainHeadsTable {
  tenant_id: string;
  sequence: number;
  hash: string;
  /** Every record committed before this time is sealed. */
  sealed_through: Date;
  /** The first record the chain still holds (retention prunes before it) and its predecessor's hash. */
  first_sequence: number;
  first_previous: string;
}

/** What kind of credential acted (rules/contract §7); null for the system itself and refused sign-ins. */
export type AuditPrincipalKind = "user" | "access_token" | "partner_api_key" | "service_credential";

/**
 * Who acted and from where: the part of every record that comes from the request (rules/contract §7).
 * Services receive it with the principal (`actorOf`) or, on public routes, build it from the
 * request's origin (`anonymousActor`), and hand it to `recordAudit` with the change.
 */
export interface AuditActor {
  principalId: string | null;
  principalKind: AuditPrincipalKind | null;
  sourceAddress: string | null;
  correlationId: string | null;
}

const principalKinds: Readonly<Record<Principal["kind"], AuditPrincipalKind>> = {
  user: "user",
  access_token: "access_token",
  api_key: "partner_api_key",
};

/** The actor of a request's principal: a user, an access token, a partner key or a service. */
export function actorOf(principal: Principal | ServicePrincipal): AuditActor {
  const origin = principal.origin;
  if ("bindingId" in principal) {
    return {
      principalId: principal.bindingId,
      principalKind: "service_credential",
      sourceAddress: origin?.sourceAddress ?? null,
      correlationId: origin?.correlationId ?? null,
    };
  }
  return {
    // A partner API key's principal is its partner: the record names the key that acted.
    principalId: principal.kind === "api_key" ? principal.credentialId : principal.id,
    principalKind: principalKinds[principal.kind],
    sourceAddress: origin?.sourceAddress ?? null,
    correlationId: origin?.correlationId ?? null,
  };
}

/**
 * The actor of a request without a principal yet (a sign-in, an invitation or a password reset):
 * the user it names once known (`principalId`), with the request's origin.
 */
export function anonymousActor(
  origin: RequestOrigin | undefined,
  principalId: string | null = null,
): AuditActor {
  return {
    principalId,
    principalKind: principalId === null ? null : "user",
    sourceAddress: origin?.sourceAddress ?? null,
    correlationId: origin?.correlationId ?? null,
  };
}

export interface AuditTables {
  audit_events: AuditEventsTable;
  audit_chain_heads: AuditChainHeadsTable;
}

/** What an audit record may hold: ids, counts, times and outcomes, never bytes, hashes or tokens. */
export interface AuditEvent {
  tenantId: string;
  id: string;
  type: string;
  occurredAt: Date;
  principalId?: string | null;
  connectionId?: string | null;
  uploadId?: string | null;
  deliveryAttemptId?: string | null;
  byteCount?: number | null;
  outcome?: string | null;
  data?: Record<string, string | number | boolean | null>;
  /** Who acted and from where; its `principalId` stands unless the event names its own. */
  actor?: AuditActor;
  principalKind?: AuditPrincipalKind | null;
  /** What was changed (`user`, `access_token`, …) and its id. */
  targetType?: string | null;
  targetId?: string | null;
  sourceAddress?: string | null;
  correlationId?: string | null;
  /** `*.updated` records: the names of the fields changed, never their values. */
  changes?: readonly string[];
}

/** Writes one audit record with the caller's executor (the state change's own transaction). */
export async function recordAudit(db: Executor, event: AuditEvent): Promise<void> {
  await recordAudits(db, [event]);
}

/** Writes several audit records in one statement, with the caller's executor (as `recordAudit`). */
export async function recordAudits(db: Executor, events: readonly AuditEvent[]): Promise<void> {
  if (events.length === 0) return;
  await auditTables(db).insertInto("audit_events").values(events.map(auditRow)).execute();
}

function auditRow(event: AuditEvent) {
  const actor = event.actor;
  return {
    tenant_id: event.tenantId,
    id: event.id,
    type: event.type,
    occurred_at: event.occurredAt,
    principal_id: event.principalId !== undefined ? event.principalId : (actor?.principalId ?? null),
    connection_id: event.connectionId ?? null,
    upload_id: event.uploadId ?? null,
    delivery_attempt_id: event.deliveryAttemptId ?? null,
    byte_count: event.byteCount ?? null,
    outcome: event.outcome ?? null,
    data: JSON.stringify(event.data ?? {}),
    principal_kind: event.principalKind !== undefined ? event.principalKind : (actor?.principalKind ?? null),
    target_type: event.targetType ?? null,
    target_id: event.targetId ?? null,
    source_address: event.sourceAddress ?? actor?.sourceAddress ?? null,
    correlation_id: event.correlationId ?? actor?.correlationId ?? null,
    changes: event.changes ? [...event.changes] : null,
  };
}

/** What an administrative act changed, for its audit record. */
export interface AuditTarget {
  type: string;
  id: string;
}

/**
 * The recorder a service's acts share: a record of `type` by `actor` on `target` in `tenantId`'s
 * trail, with a new id and the time of the clock, in the caller's executor (the change's own
 * transaction). `extra`: the changed fields' names of an `*.updated` record, ids and states.
 */
export function createAuditRecorder(deps: { clock: { now(): Date }; newId: () => string }) {
  return (
    executor: Executor,
    tenantId: string,
    actor: AuditActor,
    type: string,
    target: AuditTarget | null,
    extra: Pick<AuditEvent, "changes" | "data"> = {},
  ) =>
    recordAudit(executor, {
      tenantId,
      id: deps.newId(),
      type,
      occurredAt: deps.clock.now(),
      actor,
      targetType: target?.type ?? null,
      targetId: target?.id ?? null,
      ...extra,
    });
}

export type AuditRecorder = ReturnType<typeof createAuditRecorder>;

/**
 * SQL expressions for the fields of `AuditEvent`, evaluated once per row of the relation of
 * `insertAuditEventsSql`: text the caller writes (column references, parameters, casts), never
 * values. A field left out is NULL; `data` (jsonb) is `{}`.
 */
type AuditEventColumns = Omit<AuditEvent, "actor" | "changes">;
export type AuditEventSql = { [K in keyof AuditEventColumns]: string };

/**
 * The audit record's insert for a statement of another part that audits in its own round trip (a
 * data-modifying CTE of an accept statement): one record per row of `from` (relations and joins,
 * no WHERE). Nothing outside platform/audit spells the audit table's columns.
 */
export function insertAuditEventsSql(from: string, event: AuditEventSql): string {
  return `INSERT INTO audit_events
    (tenant_id, id, type, occurred_at, principal_id, connection_id, upload_id, delivery_attempt_id,
     byte_count, outcome, data, principal_kind, target_type, target_id, source_address, correlation_id)
  SELECT ${event.tenantId}, ${event.id}, ${event.type}, ${event.occurredAt}, ${event.principalId ?? "NULL"},
    ${event.connectionId ?? "NULL"}, ${event.uploadId ?? "NULL"}, ${event.deliveryAttemptId ?? "NULL"},
    ${event.byteCount ?? "NULL"}, ${event.outcome ?? "NULL"}, ${event.data ?? "'{}'::jsonb"},
    ${event.principalKind ?? "NULL"}, ${event.targetType ?? "NULL"}, ${event.targetId ?? "NULL"},
    ${event.sourceAddress ?? "NULL"}, ${event.correlationId ?? "NULL"}
  FROM ${from}`;
}

/** What a list of audit records is narrowed to (rules/contract §7), already checked and normalised. */
export interface AuditFilter {
  /** One type, or every type starting with it when it ends in `.`. */
  type?: string | undefined;
  principalId?: string | undefined;
  targetId?: string | undefined;
  /** `occurred_at` at or after `from`, before `before`. */
  from?: Date | undefined;
  before?: Date | undefined;
  order: "asc" | "desc";
}

/** The position of a record in the list's order `(occurred_at, id)`. */
export interface AuditPosition {
  occurredAt: string;
  id: string;
}

/** A LIKE pattern that matches `prefix` literally at the start. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A tenant's audit records matching `filter`, in `(occurred_at, id)` order (or its reverse),
 * after the position `after`: each filter is served by an index in that order.
 */
export function listAuditEvents(
  db: Executor,
  tenantId: string,
  page: { limit: number; filter: AuditFilter; after?: AuditPosition | undefined },
) {
  const { filter, after } = page;
  let q = auditTables(db).selectFrom("audit_events").selectAll().where("tenant_id", "=", tenantId);
  if (filter.type !== undefined) {
    q = filter.type.endsWith(".")
      ? q.where("type", "like", likePrefix(filter.type))
      : q.where("type", "=", filter.type);
  }
  if (filter.principalId !== undefined) q = q.where("principal_id", "=", filter.principalId);
  if (filter.targetId !== undefined) q = q.where("target_id", "=", filter.targetId);
  if (filter.from !== undefined) q = q.where("occurred_at", ">=", filter.from);
  if (filter.before !== undefined) q = q.where("occurred_at", "<", filter.before);
  const direction = filter.order;
  if (after !== undefined) {
    const at = new Date(after.occurredAt);
    q = q.where((eb) =>
      eb(eb.refTuple("occurred_at", "id"), direction === "asc" ? ">" : "<", eb.tuple(at, after.id)),
    );
  }
  return q
    .orderBy("occurred_at", direction)
    .orderBy("id", direction)
    .limit(page.limit + 1)
    .execute();
}

export function findAuditEvent(db: Executor, tenantId: string, id: string) {
  return auditTables(db)
    .selectFrom("audit_events")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

declare module "../db/tables.js" {
  // One part's tables in the whole database (`HanseTables`, declaration merging).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HanseTables extends AuditTables {}
}
