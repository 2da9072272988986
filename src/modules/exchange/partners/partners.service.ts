import type { Selectable } from "kysely";
import { actorOf, createAuditRecorder } from "../../../platform/audit/index.js";
import type { Principal } from "../../../platform/auth/index.js";
import { readPage, toCreationPosition, type PageRequest } from "../../../platform/http/cursor.js";
import { findConnection, findRevision, lockConnection } from "../connections.repository.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import { collectionDeadline } from "./partners.schemas.js";
import type { ConnectionsTable, PartnersTable, ProfileRevisionsTable } from "../exchange.tables.js";
import { normalizeProfile, type ProfileInput } from "../profile.js";
import { invalidReference, notFound } from "./admin-errors.js";
import { partnerListFilter } from "./list-filters.js";
import * as repo from "./partners.repository.js";

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

/** Administration of partners, their connections and the connections' profile revisions. */
export function createPartnersService(deps: ExchangeDeps) {
  const { database, clock, cursors } = deps;
  const { db } = database;
  const audit = createAuditRecorder(deps);
  /** A connection's record; a profile revision has no id of its own: its record names its connection. */
  const auditConnection = (
    trx: Parameters<typeof audit>[0],
    principal: Principal,
    type: string,
    connectionId: string,
    extra: Parameters<typeof audit>[5],
  ) =>
    audit(
      trx,
      principal.tenant.id,
      actorOf(principal),
      type,
      { type: "connection", id: connectionId },
      extra,
    );

  async function connectionView(tenantId: string, row: Selectable<ConnectionsTable>) {
    const revision = await findRevision(db, tenantId, row.id, row.active_revision);
    if (!revision) throw new Error("active profile revision missing");
    return {
      id: row.id,
      tenantId: row.tenant_id,
      partnerId: row.partner_id,
      name: row.name,
      apiVersion: "api.v1" as const,
      status: row.status,
      collectionDeadlineSeconds: row.collection_deadline_seconds,
      activeProfileRevision: toRevision(revision, row.active_revision),
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  async function requireConnection(tenantId: string, id: string) {
    const row = await findConnection(db, tenantId, id);
    if (!row) throw notFound("connection");
    return row;
  }

  async function getPartner(principal: Principal, id: string) {
    const row = await repo.findPartner(db, principal.tenant.id, id);
    if (!row) throw notFound("partner");
    return toPartner(row);
  }

  async function getConnection(principal: Principal, id: string) {
    return connectionView(principal.tenant.id, await requireConnection(principal.tenant.id, id));
  }

  async function getRevision(principal: Principal, connectionId: string, revision: number) {
    const tenantId = principal.tenant.id;
    const connection = await requireConnection(tenantId, connectionId);
    const row = await findRevision(db, tenantId, connectionId, revision);
    if (!row) throw notFound("profile revision");
    return toRevision(row, connection.active_revision);
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
      await database.transaction(async (trx) => {
        await repo.insertPartner(trx, row);
        await audit(trx, row.tenant_id, actorOf(principal), "partner.created", {
          type: "partner",
          id: row.id,
        });
      });
      return toPartner(row);
    },
    async listPartners(principal: Principal, input: PageRequest) {
      const tenantId = principal.tenant.id;
      return readPage(cursors, `exchange.partners:${tenantId}`, input, {
        fetch: (after, order) =>
          repo
            .listPage(db, "exchange_partners", tenantId, input.limit, after, {}, order)
            .execute() as Promise<Selectable<PartnersTable>[]>,
        position: toCreationPosition,
        view: toPartner,
      });
    },
    getPartner,
    async updatePartner(principal: Principal, id: string, input: { name: string }) {
      const tenantId = principal.tenant.id;
      await database.transaction(async (trx) => {
        if (!(await repo.renamePartner(trx, tenantId, id, input.name, clock.now())))
          throw notFound("partner");
        await audit(
          trx,
          tenantId,
          actorOf(principal),
          "partner.updated",
          { type: "partner", id },
          {
            changes: ["name"],
          },
        );
      });
      return getPartner(principal, id);
    },

    async createConnection(
      principal: Principal,
      input: {
        partnerId: string;
        name?: string;
        profile: ProfileInput;
        status?: "active" | "suspended";
        collectionDeadlineSeconds?: number | null;
      },
    ) {
      const tenantId = principal.tenant.id;
      const partner = await repo.findPartner(db, tenantId, input.partnerId);
      if (!partner) throw invalidReference("/partnerId", "no such partner in this tenant");
      const now = clock.now();
      const id = deps.newId();
      const profile = normalizeProfile(input.profile);
      await database.transaction(async (trx) => {
        await repo.insertConnection(trx, {
          tenant_id: tenantId,
          id,
          partner_id: input.partnerId,
          name: input.name ?? partner.name,
          api_version: "api.v1",
          status: input.status ?? "active",
          collection_deadline_seconds:
            input.collectionDeadlineSeconds === undefined
              ? collectionDeadline.default
              : input.collectionDeadlineSeconds,
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
        await auditConnection(trx, principal, "connection.created", id, {
          data: { partnerId: input.partnerId, profileRevision: 1 },
        });
      });
      return connectionView(tenantId, await requireConnection(tenantId, id));
    },
    /** The tenant's connections, or one partner's (an unknown partner's: none). */
    async listConnections(principal: Principal, input: PageRequest & { partnerId?: string | undefined }) {
      const tenantId = principal.tenant.id;
      const { partnerId, binding } = partnerListFilter("connections", tenantId, input);
      const page = await readPage(cursors, binding, input, {
        fetch: (after, order) =>
          repo
            .listPage(db, "exchange_connections", tenantId, input.limit, after, { partnerId }, order)
            .execute() as Promise<Selectable<ConnectionsTable>[]>,
        position: toCreationPosition,
        view: (row: Selectable<ConnectionsTable>) => connectionView(tenantId, row),
      });
      return { items: await Promise.all(page.items), meta: page.meta };
    },
    getConnection,
    async updateConnection(
      principal: Principal,
      id: string,
      input: { status?: "active" | "suspended"; name?: string; collectionDeadlineSeconds?: number | null },
    ) {
      const tenantId = principal.tenant.id;
      await database.transaction(async (trx) => {
        if (!(await repo.updateConnection(trx, tenantId, id, input, clock.now()))) {
          throw notFound("connection");
        }
        const changes = [
          ...(input.status === undefined ? [] : ["status"]),
          ...(input.name === undefined ? [] : ["name"]),
          ...(input.collectionDeadlineSeconds === undefined ? [] : ["collectionDeadlineSeconds"]),
        ];
        await auditConnection(trx, principal, "connection.updated", id, {
          changes,
          data: {
            ...(input.status === undefined ? {} : { status: input.status }),
            ...(input.collectionDeadlineSeconds === undefined
              ? {}
              : { collectionDeadlineSeconds: input.collectionDeadlineSeconds }),
          },
        });
      });
      return getConnection(principal, id);
    },

    async createRevision(principal: Principal, connectionId: string, input: ProfileInput) {
      const tenantId = principal.tenant.id;
      const profile = normalizeProfile(input);
      const next = await database.transaction(async (trx) => {
        const connection = await lockConnection(trx, tenantId, connectionId);
        if (!connection) throw notFound("connection");
        const revision = (await repo.maxRevision(trx, tenantId, connectionId)) + 1;
        await repo.insertRevision(trx, {
          tenant_id: tenantId,
          connection_id: connectionId,
          revision,
          profile: JSON.stringify(profile),
          created_by: principal.id,
          created_at: clock.now(),
        });
        await auditConnection(trx, principal, "profile_revision.created", connectionId, {
          data: { revision },
        });
        return revision;
      });
      return getRevision(principal, connectionId, next);
    },
    async listRevisions(principal: Principal, connectionId: string, input: PageRequest) {
      const tenantId = principal.tenant.id;
      const connection = await requireConnection(tenantId, connectionId);
      return readPage(cursors, `exchange.revisions:${tenantId}:${connectionId}`, input, {
        fetch: (after: { revision: number } | undefined, order) =>
          repo.listRevisions(db, tenantId, connectionId, input.limit, after?.revision, order),
        position: (last) => ({ revision: last.revision }),
        view: (row) => toRevision(row, connection.active_revision),
      });
    },
    getRevision,
    async activateRevision(principal: Principal, connectionId: string, revision: number) {
      const tenantId = principal.tenant.id;
      await database.transaction(async (trx) => {
        const connection = await lockConnection(trx, tenantId, connectionId);
        if (!connection) throw notFound("connection");
        if (!(await findRevision(trx, tenantId, connectionId, revision))) throw notFound("profile revision");
        await repo.setActiveRevision(trx, tenantId, connectionId, revision, clock.now());
        await auditConnection(trx, principal, "profile_revision.activated", connectionId, {
          data: { revision, previousRevision: connection.active_revision },
        });
      });
      return getRevision(principal, connectionId, revision);
    },
  };
}
