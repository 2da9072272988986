import type { Selectable } from "kysely";
import {
  directoryResolver,
  inspectInterchange,
  parseInterchange,
  type Directory,
  type DirectoryResolver,
} from "../../../edifact/index.js";
import {
  auditRecordView,
  exportAuditRecords,
  findAuditEvent,
  verifyAuditTrail,
  listAuditEvents,
  actorOf,
  recordAudit,
  type AuditPosition,
} from "../../../platform/audit/index.js";
import type { Principal } from "../../../platform/auth/index.js";
import { isUuid } from "../../../platform/crypto/index.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { readBlobBytes } from "../../../platform/blobs/index.js";
import { readPage, toCreationPosition, type PageRequest } from "../../../platform/http/cursor.js";
import { findRevision } from "../connections.repository.js";
import { hex, iso, type ExchangeDeps } from "../exchange.deps.js";
import {
  deliveryStatuses,
  uploadStatuses,
  type DeliveriesTable,
  type UploadsTable,
} from "../exchange.tables.js";
import {
  countUploadDeliveries,
  findDelivery,
  listUploadDeliveries,
  type MailboxService,
} from "../mailbox/index.js";
import { exchangeDirectory, findUpload } from "../processing/index.js";
import { notFound } from "./admin-errors.js";
import {
  auditFilter,
  auditRange,
  filterBinding,
  listFilter,
  type AuditQuery,
  type ListQuery,
} from "./list-filters.js";
import { connectionOwners, listPage } from "./partners.repository.js";

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
  findingCount: row.findings.length,
  duplicateOf: row.duplicate_of,
});

const toOutbound = (row: Awaited<ReturnType<typeof listUploadDeliveries>>[number]) => ({
  deliveryAttemptId: row.id,
  messageType: row.message_type,
  status: row.status,
  interchangeId: row.interchange_id,
  messageReference: row.message_reference,
  answersMessageReference: row.answers_message_reference,
  createdAt: row.created_at.toISOString(),
  acknowledgedAt: iso(row.acknowledged_at),
});

/** At most this many segments are listed by a segments view (a note says when more were left out). */
export const maxInspectedSegments = 20_000;

/** Which operator view read an upload's or a delivery's bytes (audit data). */
type ContentView = "content" | "segments";

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
  overdue: row.overdue_since !== null && (row.status === "ready" || row.status === "claimed"),
  overdueSince: iso(row.overdue_since),
});
/** An audit record's `data`: ids, counts and states of the act (never a secret, by recordAudit's type). */
/** The operator's views of uploads, deliveries and the audit trail; requeue and re-send of a delivery. */
export function createOperatorViews(deps: ExchangeDeps, mailbox: Pick<MailboxService, "requeue" | "resend">) {
  const { database, cursors } = deps;
  const { db } = database;

  /** The views with their partner's and connection's names (one read for a page). */
  async function withOwners<V extends { connectionId: string }>(tenantId: string, views: readonly V[]) {
    const owners = await connectionOwners(
      db,
      tenantId,
      views.map((v) => v.connectionId),
    );
    return views.map((v) => {
      const owner = owners.get(v.connectionId);
      return {
        ...v,
        partnerId: owner?.partnerId ?? "",
        partnerName: owner?.partnerName ?? "",
        connectionName: owner?.connectionName ?? "",
      };
    });
  }
  const withOwner = async <V extends { connectionId: string }>(tenantId: string, view: V) => {
    const [named] = await withOwners(tenantId, [view]);
    if (!named) throw new Error("a view was lost");
    return named;
  };

  /**
   * A tenant's uploads or deliveries in creation order (or its reverse), filtered (cursor binding
   * `exchange.<list>:<tenant>`, with the filter when there is one, and the order), with names.
   */
  async function listInCreationOrder<
    R extends { created_at: Date; id: string },
    V extends { connectionId: string },
  >(tenantId: string, list: "uploads" | "deliveries", input: PageRequest & ListQuery, view: (row: R) => V) {
    const filter = listFilter(input, list === "uploads" ? uploadStatuses : deliveryStatuses);
    const page = await readPage(cursors, filterBinding(list, tenantId, filter), input, {
      fetch: (after, order) =>
        listPage(db, `exchange_${list}`, tenantId, input.limit, after, filter, order).execute() as Promise<
          R[]
        >,
      position: toCreationPosition,
      view,
    });
    return { items: await withOwners(tenantId, page.items), meta: page.meta };
  }

  async function getDelivery(principal: Principal, id: string) {
    const row = await findDelivery(db, principal.tenant.id, id);
    if (!row) throw notFound("delivery");
    return withOwner(principal.tenant.id, toDeliveryView(row));
  }

  async function requireUpload(principal: Principal, id: string) {
    const row = await findUpload(db, principal.tenant.id, id);
    if (!row) throw notFound("upload");
    return row;
  }

  async function requireDelivery(principal: Principal, id: string) {
    const row = await findDelivery(db, principal.tenant.id, id);
    if (!row) throw notFound("delivery");
    return row;
  }

  /** The bytes of an upload or a delivery for an operator, audited (ids and byte count only). */
  async function readContent(
    principal: Principal,
    subject:
      | { kind: "upload"; row: Selectable<UploadsTable> }
      | { kind: "delivery"; row: Selectable<DeliveriesTable> },
    view: ContentView,
  ): Promise<Buffer> {
    const tenantId = principal.tenant.id;
    const { row } = subject;
    const bytes = await readBlobBytes(database, tenantId, row.blob_id);
    await recordAudit(db, {
      tenantId,
      id: deps.newId(),
      type: `${subject.kind}.content.read`,
      occurredAt: deps.clock.now(),
      actor: actorOf(principal),
      connectionId: row.connection_id,
      uploadId: subject.kind === "upload" ? subject.row.id : subject.row.upload_id,
      ...(subject.kind === "delivery" ? { deliveryAttemptId: subject.row.id } : {}),
      targetType: subject.kind,
      targetId: row.id,
      byteCount: bytes.length,
      outcome: "read",
      data: { view },
    });
    return bytes;
  }

  const segmentsOf = (
    bytes: Buffer,
    directory: Directory | DirectoryResolver,
    findings?: Selectable<UploadsTable>["findings"],
  ) =>
    inspectInterchange(parseInterchange(bytes), {
      directory,
      ...(findings ? { findings } : {}),
      maxSegments: maxInspectedSegments,
    });

  return {
    /** rules/contract §7: the tenant's audit records, filtered, oldest or newest first. */
    async listAuditEvents(principal: Principal, input: PageRequest & AuditQuery) {
      const tenantId = principal.tenant.id;
      const { filter, binding } = auditFilter(tenantId, input);
      return readPage(cursors, binding, input, {
        fetch: (after: AuditPosition | undefined) =>
          listAuditEvents(db, tenantId, { limit: input.limit, filter, after }),
        position: (last): AuditPosition => ({ occurredAt: last.occurred_at.toISOString(), id: last.id }),
        view: auditRecordView,
      });
    },
    /** rules/contract §7: the tenant's hash chain checked from its first record to its last seal. */
    verifyAuditTrail(principal: Principal) {
      return verifyAuditTrail(db, principal.tenant.id, deps.clock.now());
    },
    /** rules/contract §7: the records of a time range in chain order, streamed (the range checked first). */
    exportAuditEvents(principal: Principal, query: Pick<AuditQuery, "occurredFrom" | "occurredBefore">) {
      return exportAuditRecords(db, principal.tenant.id, auditRange(query));
    },
    async getAuditEvent(principal: Principal, id: string) {
      const row = isUuid(id) ? await findAuditEvent(db, principal.tenant.id, id) : undefined;
      if (!row) throw notFound("audit event");
      return auditRecordView(row);
    },

    async listUploads(principal: Principal, input: PageRequest & ListQuery) {
      const page = await listInCreationOrder(principal.tenant.id, "uploads", input, toUploadView);
      const counts = await countUploadDeliveries(
        db,
        principal.tenant.id,
        page.items.map((item) => item.id),
      );
      return {
        ...page,
        items: page.items.map((item) => ({ ...item, outboundCounts: counts.get(item.id) ?? {} })),
      };
    },
    /** One upload with its findings and the outbound messages it produced, in mailbox order. */
    async getUpload(principal: Principal, id: string) {
      const row = await requireUpload(principal, id);
      const outbound = (await listUploadDeliveries(db, principal.tenant.id, row.id)).map(toOutbound);
      const outboundCounts: Record<string, number> = {};
      for (const o of outbound) outboundCounts[o.messageType] = (outboundCounts[o.messageType] ?? 0) + 1;
      const view = await withOwner(principal.tenant.id, toUploadView(row));
      return { ...view, outboundCounts, findings: row.findings, outbound };
    },
    /** The bytes the partner uploaded, exactly. */
    async getUploadContent(principal: Principal, id: string) {
      return readContent(principal, { kind: "upload", row: await requireUpload(principal, id) }, "content");
    },
    /** The upload's segment tree under its profile's directory, with its findings on their segments. */
    async getUploadSegments(principal: Principal, id: string) {
      const row = await requireUpload(principal, id);
      const revision = await findRevision(db, principal.tenant.id, row.connection_id, row.profile_revision);
      const bytes = await readContent(principal, { kind: "upload", row }, "segments");
      const directory = revision ? exchangeDirectory(revision.profile.directory) : directoryResolver();
      return segmentsOf(bytes, directory, row.completed_at ? row.findings : undefined);
    },
    /** The outbound payload bytes; the delivery's state and the partner's reads are untouched. */
    async getDeliveryContent(principal: Principal, id: string) {
      return readContent(
        principal,
        { kind: "delivery", row: await requireDelivery(principal, id) },
        "content",
      );
    },
    /** The delivery's segment tree, each message under the directory its UNH names. */
    async getDeliverySegments(principal: Principal, id: string) {
      const row = await requireDelivery(principal, id);
      const bytes = await readContent(principal, { kind: "delivery", row }, "segments");
      return segmentsOf(bytes, directoryResolver());
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
      const resent = await mailbox.resend(principal.tenant.id, id, actorOf(principal));
      if (!resent) throw notFound("delivery");
      return withOwner(principal.tenant.id, toDeliveryView(resent));
    },
  };
}
