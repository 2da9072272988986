import type { Selectable } from "kysely";
import type { PartnerScope } from "../../protocol/scopes.js";
import { findAuditEvent, listAuditEvents, type AuditEventsTable } from "../../platform/audit/index.js";
import type { Principal } from "../../platform/auth/index.js";
import { isUuid } from "../../platform/crypto/index.js";
import type { CreationPosition } from "../../platform/db/creation-order.js";
import { AppError } from "../../platform/errors/app-error.js";
import { pageOf, toCreationPosition, type ListPage } from "../../platform/http/cursor.js";
import { hex, iso, type ExchangeDeps } from "./exchange.deps.js";
import * as repo from "./exchange.repository.js";
import type {
  ConnectionsTable,
  DeliveriesTable,
  PartnersTable,
  ProfileRevisionsTable,
  UploadsTable,
} from "./exchange.tables.js";
import { normalizeProfile, type ProfileInput } from "./profile.js";

const toPartner = (row: Selectable<PartnersTable>) => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const toRevision = (row: Selectable<ProfileRevisionsTable>, activeRevision: number) => ({
  revision: row.revision,
  ...row.profile,
  active: row.revision === activeRevision,
  createdAt: row.created_at.toISOString(),
});

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
});

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

const notFound = (what: string) => new AppError("ERR_NOT_FOUND", `No such ${what}.`);
const invalidReference = (pointer: string, message: string) =>
  new AppError("ERR_VALIDATION", "The request body refers to something that does not exist.", {
    errors: [{ pointer, message }],
  });

export interface PageInput {
  limit: number;
  cursor?: string | undefined;
}

export function createAdminService(deps: ExchangeDeps) {
  const { database, clock, cursors } = deps;
  const { db } = database;

  /** Lists in (created_at, id) order continue after the last row's pair. */
  function page<R extends { created_at: Date; id: string }, V>(
    binding: string,
    rows: R[],
    limit: number,
    view: (row: R) => V,
  ): ListPage<V> {
    const { items, meta } = pageOf(cursors, binding, rows, limit, toCreationPosition);
    return { items: items.map(view), meta };
  }
  const after = (binding: string, cursor: string | undefined) =>
    cursor ? cursors.decode<CreationPosition>(binding, cursor) : undefined;

  async function connectionView(tenantId: string, row: Selectable<ConnectionsTable>) {
    const revision = await repo.findRevision(db, tenantId, row.id, row.active_revision);
    if (!revision) throw new Error("active profile revision missing");
    return {
      id: row.id,
      tenantId: row.tenant_id,
      partnerId: row.partner_id,
      apiVersion: "api.v1" as const,
      status: row.status,
      activeProfileRevision: toRevision(revision, row.active_revision),
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  async function requireConnection(tenantId: string, id: string) {
    const row = await repo.findConnection(db, tenantId, id);
    if (!row) throw notFound("connection");
    return row;
  }

  return {
    async createPartner(principal: Principal, input: { name: string }) {
      const now = clock.now();
      const row = {
        tenant_id: principal.tenant.id,
        id: deps.newId(),
        name: input.name,
        created_at: now,
        updated_at: now,
      };
      await repo.insertPartner(db, row);
      return toPartner(row);
    },
    async listPartners(principal: Principal, input: PageInput) {
      const binding = `exchange.partners:${principal.tenant.id}`;
      const rows = await repo
        .listPage(db, "exchange_partners", principal.tenant.id, input.limit, after(binding, input.cursor))
        .execute();
      return page(binding, rows as Selectable<PartnersTable>[], input.limit, toPartner);
    },
    async getPartner(principal: Principal, id: string) {
      const row = await repo.findPartner(db, principal.tenant.id, id);
      if (!row) throw notFound("partner");
      return toPartner(row);
    },
    async updatePartner(principal: Principal, id: string, input: { name: string }) {
      const result = await db
        .updateTable("exchange_partners")
        .set({ name: input.name, updated_at: clock.now() })
        .where("tenant_id", "=", principal.tenant.id)
        .where("id", "=", id)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw notFound("partner");
      return this.getPartner(principal, id);
    },

    async createConnection(
      principal: Principal,
      input: { partnerId: string; profile: ProfileInput; status?: "active" | "suspended" },
    ) {
      const tenantId = principal.tenant.id;
      if (!(await repo.findPartner(db, tenantId, input.partnerId))) {
        throw invalidReference("/partnerId", "no such partner in this tenant");
      }
      const now = clock.now();
      const id = deps.newId();
      const profile = normalizeProfile(input.profile);
      await database.transaction(async (trx) => {
        await repo.insertConnection(trx, {
          tenant_id: tenantId,
          id,
          partner_id: input.partnerId,
          api_version: "api.v1",
          status: input.status ?? "active",
          active_revision: 1,
          created_at: now,
          updated_at: now,
        });
        await repo.insertRevision(trx, {
          tenant_id: tenantId,
          connection_id: id,
          revision: 1,
          profile: JSON.stringify(profile),
          created_by: principal.id,
          created_at: now,
        });
      });
      return connectionView(tenantId, await requireConnection(tenantId, id));
    },
    async listConnections(principal: Principal, input: PageInput) {
      const binding = `exchange.connections:${principal.tenant.id}`;
      const rows = await repo
        .listPage(db, "exchange_connections", principal.tenant.id, input.limit, after(binding, input.cursor))
        .execute();
      const result = page(binding, rows as Selectable<ConnectionsTable>[], input.limit, (r) => r);
      return {
        items: await Promise.all(result.items.map((r) => connectionView(principal.tenant.id, r))),
        meta: result.meta,
      };
    },
    async getConnection(principal: Principal, id: string) {
      return connectionView(principal.tenant.id, await requireConnection(principal.tenant.id, id));
    },
    async updateConnection(principal: Principal, id: string, input: { status: "active" | "suspended" }) {
      const result = await db
        .updateTable("exchange_connections")
        .set({ status: input.status, updated_at: clock.now() })
        .where("tenant_id", "=", principal.tenant.id)
        .where("id", "=", id)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw notFound("connection");
      return this.getConnection(principal, id);
    },

    async createRevision(principal: Principal, connectionId: string, input: ProfileInput) {
      const tenantId = principal.tenant.id;
      const profile = normalizeProfile(input);
      const revision = await database.transaction(async (trx) => {
        const connection = await repo.lockConnection(trx, tenantId, connectionId);
        if (!connection) throw notFound("connection");
        const next = (await repo.maxRevision(trx, tenantId, connectionId)) + 1;
        await repo.insertRevision(trx, {
          tenant_id: tenantId,
          connection_id: connectionId,
          revision: next,
          profile: JSON.stringify(profile),
          created_by: principal.id,
          created_at: clock.now(),
        });
        return { next, active: connection.active_revision };
      });
      return this.getRevision(principal, connectionId, revision.next);
    },
    async listRevisions(principal: Principal, connectionId: string, input: PageInput) {
      const tenantId = principal.tenant.id;
      const connection = await requireConnection(tenantId, connectionId);
      const binding = `exchange.revisions:${tenantId}:${connectionId}`;
      const afterRevision = input.cursor
        ? cursors.decode<{ revision: number }>(binding, input.cursor).revision
        : undefined;
      const rows = await repo.listRevisions(db, tenantId, connectionId, input.limit, afterRevision);
      const { items, meta } = pageOf(cursors, binding, rows, input.limit, (last) => ({
        revision: last.revision,
      }));
      return { items: items.map((r) => toRevision(r, connection.active_revision)), meta };
    },
    async getRevision(principal: Principal, connectionId: string, revision: number) {
      const tenantId = principal.tenant.id;
      const connection = await requireConnection(tenantId, connectionId);
      const row = await repo.findRevision(db, tenantId, connectionId, revision);
      if (!row) throw notFound("profile revision");
      return toRevision(row, connection.active_revision);
    },
    async activateRevision(principal: Principal, connectionId: string, revision: number) {
      const tenantId = principal.tenant.id;
      await database.transaction(async (trx) => {
        const connection = await repo.lockConnection(trx, tenantId, connectionId);
        if (!connection) throw notFound("connection");
        if (!(await repo.findRevision(trx, tenantId, connectionId, revision)))
          throw notFound("profile revision");
        await trx
          .updateTable("exchange_connections")
          .set({ active_revision: revision, updated_at: clock.now() })
          .where("tenant_id", "=", tenantId)
          .where("id", "=", connectionId)
          .execute();
      });
      return this.getRevision(principal, connectionId, revision);
    },

    async createApiKey(
      principal: Principal,
      input: { partnerId: string; scopes: PartnerScope[]; connectionIds?: string[]; name?: string },
    ) {
      const tenantId = principal.tenant.id;
      const partner = await repo.findPartner(db, tenantId, input.partnerId);
      if (!partner) throw invalidReference("/partnerId", "no such partner in this tenant");
      for (const [index, connectionId] of (input.connectionIds ?? []).entries()) {
        const connection = await repo.findConnection(db, tenantId, connectionId);
        if (connection?.partner_id !== input.partnerId) {
          throw invalidReference(`/connectionIds/${index}`, "no such connection of this partner");
        }
      }
      const scopes = [...new Set(input.scopes)];
      const issued = await deps.identity.issuePartnerKey(db as never, {
        tenantId,
        partnerId: input.partnerId,
        name: input.name ?? `${partner.name} key`,
        scopes,
        connectionIds: input.connectionIds ?? null,
        createdBy: principal.id,
      });
      const row = await deps.identity.findPartnerKey(tenantId, issued.apiKeyId);
      if (!row) throw new Error("issued key not found");
      return { ...toApiKey(row), token: issued.token };
    },
    async listApiKeys(principal: Principal, input: PageInput) {
      const binding = `exchange.api-keys:${principal.tenant.id}`;
      const rows = await deps.identity.listPartnerKeys(
        principal.tenant.id,
        input.limit,
        after(binding, input.cursor),
      );
      return page(binding, rows, input.limit, toApiKey);
    },
    async getApiKey(principal: Principal, id: string) {
      const row = await deps.identity.findPartnerKey(principal.tenant.id, id);
      if (!row) throw notFound("API key");
      return toApiKey(row);
    },
    async revokeApiKey(principal: Principal, id: string) {
      await this.getApiKey(principal, id);
      await deps.identity.revokePartnerKey(principal.tenant.id, id);
      return this.getApiKey(principal, id);
    },

    async listAuditEvents(principal: Principal, input: PageInput & { type?: string | undefined }) {
      const binding = `exchange.audit:${principal.tenant.id}:${input.type ?? ""}`;
      const afterId = input.cursor ? cursors.decode<{ id: string }>(binding, input.cursor).id : undefined;
      const rows = await listAuditEvents(db, principal.tenant.id, {
        limit: input.limit,
        type: input.type,
        afterId,
      });
      const { items, meta } = pageOf(cursors, binding, rows, input.limit, (last) => ({ id: last.id }));
      return { items: items.map(toAudit), meta };
    },
    async getAuditEvent(principal: Principal, id: string) {
      const row = isUuid(id) ? await findAuditEvent(db, principal.tenant.id, id) : undefined;
      if (!row) throw notFound("audit event");
      return toAudit(row);
    },

    async listUploads(principal: Principal, input: PageInput) {
      const binding = `exchange.uploads:${principal.tenant.id}`;
      const rows = await repo
        .listPage(db, "exchange_uploads", principal.tenant.id, input.limit, after(binding, input.cursor))
        .execute();
      return page(binding, rows as Selectable<UploadsTable>[], input.limit, toUploadView);
    },
    async getUpload(principal: Principal, id: string) {
      const row = await repo.findUpload(db, principal.tenant.id, id);
      if (!row) throw notFound("upload");
      return toUploadView(row);
    },
    async listDeliveries(principal: Principal, input: PageInput) {
      const binding = `exchange.deliveries:${principal.tenant.id}`;
      const rows = await repo
        .listPage(db, "exchange_deliveries", principal.tenant.id, input.limit, after(binding, input.cursor))
        .execute();
      return page(binding, rows as Selectable<DeliveriesTable>[], input.limit, toDeliveryView);
    },
    async getDelivery(principal: Principal, id: string) {
      const row = await repo.findDelivery(db, principal.tenant.id, id);
      if (!row) throw notFound("delivery");
      return toDeliveryView(row);
    },
    /** An operator gives a `failed` delivery a fresh attempt budget. */
    async requeueDelivery(principal: Principal, id: string) {
      const now = clock.now();
      const result = await db
        .updateTable("exchange_deliveries")
        .set({ ...repo.readyForClaim(now), updated_at: now })
        .where("tenant_id", "=", principal.tenant.id)
        .where("id", "=", id)
        .where("status", "=", "failed")
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) {
        await this.getDelivery(principal, id);
        throw new AppError("ERR_CONFLICT", "Only a failed delivery can be requeued.");
      }
      return this.getDelivery(principal, id);
    },
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
