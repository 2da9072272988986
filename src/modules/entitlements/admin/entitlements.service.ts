import type { Transaction } from "kysely";
import type { Entitlement } from "@hanse/client/protocol";
import { characterCount } from "@hanse/client/protocol";
import { actorOf, recordAudit } from "../../../platform/audit/index.js";
import type { Principal } from "../../../platform/auth/index.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { readCreationPage, readPage, type PageRequest } from "../../../platform/http/cursor.js";
import type { ModuleDeps } from "../../module.js";
import { checkCapabilitiesOfApp } from "../app-capabilities.js";
import * as repo from "../entitlements.repository.js";
import type { PutEntitlementBody } from "../entitlements.schemas.js";
import type { CommittedChange, EntitlementTables } from "../entitlements.tables.js";

type Deps = Pick<ModuleDeps, "database" | "clock" | "newId" | "cursors"> & {
  /** Runs in the change's transaction (the webhook outbox). */
  onChange?: (trx: Transaction<EntitlementTables>, change: CommittedChange) => Promise<void>;
};

const toApp = (row: { id: string; name: string; capabilities: string[]; created_at: Date }) => ({
  id: row.id,
  name: row.name,
  capabilities: row.capabilities,
  createdAt: row.created_at.toISOString(),
});

export const maxActorIdCharacters = 128;

/** rules/contract §5: an actor id is at most 128 characters; a longer one is a request to correct. */
export function checkActorId(actorId: string): void {
  if (characterCount(actorId) > maxActorIdCharacters) {
    throw new AppError("ERR_VALIDATION", "An actor id is at most 128 characters.", {
      errors: [{ pointer: "/params/actorId", message: "longer than 128 characters" }],
    });
  }
}

const noSuchApp = () => new AppError("ERR_NOT_FOUND", "No such app.");

/** Apps and their entitlements: the administration side (rules/contract §2a, §5). */
export function createEntitlementsService(deps: Deps) {
  const database = deps.database.as<EntitlementTables>();
  const db = database.db;

  return {
    /** Provisioning step: the tenant's entitlement state (the anchor of its apps' streams). */
    provisionTenant: (trx: Transaction<EntitlementTables>, tenantId: string) =>
      repo.ensureTenantState(trx, tenantId, deps.clock.now()),

    async createApp(principal: Principal, body: { id: string; name: string; capabilities: string[] }) {
      const tenantId = principal.tenant.id;
      const row = {
        tenant_id: tenantId,
        id: body.id,
        name: body.name,
        capabilities: body.capabilities,
        created_at: deps.clock.now(),
      };
      await database.transaction(async (trx) => {
        await repo.ensureTenantState(trx, tenantId, row.created_at);
        if (!(await repo.insertApp(trx, row))) {
          throw new AppError("ERR_CONFLICT", "The tenant already has an app with this id.");
        }
        await recordAudit(trx, {
          tenantId,
          id: deps.newId(),
          type: "app.created",
          occurredAt: row.created_at,
          actor: actorOf(principal),
          targetType: "app",
          targetId: row.id,
        });
      });
      return toApp(row);
    },

    async getApp(principal: Principal, appId: string) {
      const row = await repo.findApp(db, principal.tenant.id, appId);
      if (!row) throw noSuchApp();
      return toApp(row);
    },

    async listApps(principal: Principal, page: PageRequest) {
      const tenantId = principal.tenant.id;
      return readCreationPage(
        deps.cursors,
        `admin.apps:${tenantId}`,
        page,
        (after, order) => repo.listApps(db, tenantId, page.limit, after, order),
        toApp,
      );
    },

    /**
     * Sets an actor's entitlement: the state, its change record with the stream's next sequence
     * and the audit record commit together. An unchanged state is still a change (a new sequence):
     * the administrator asked for it, and the feed's readers learn that it was confirmed.
     */
    async putEntitlement(
      principal: Principal,
      appId: string,
      actorId: string,
      body: PutEntitlementBody,
    ): Promise<Entitlement> {
      checkActorId(actorId);
      const tenantId = principal.tenant.id;
      const app = await repo.findApp(db, tenantId, appId);
      if (!app) throw noSuchApp();
      checkCapabilitiesOfApp(app, body.capabilities, "/capabilities");
      return database.transaction(async (trx) => {
        const sequence = await repo.nextSequence(trx, tenantId, appId);
        // Read after the stream is locked: concurrent writers of this stream wait for us.
        const before = await repo.findEntitlement(trx, tenantId, appId, actorId);
        const now = deps.clock.now();
        const validFrom = body.validFrom ? new Date(body.validFrom) : (before?.valid_from ?? now);
        const validUntil = body.validUntil ? new Date(body.validUntil) : null;
        if (validUntil && validUntil <= validFrom) {
          throw new AppError("ERR_VALIDATION", "validUntil must be later than validFrom.", {
            errors: [{ pointer: "/validUntil", message: "must be later than validFrom" }],
          });
        }
        const row = {
          tenant_id: tenantId,
          app_id: appId,
          actor_id: actorId,
          status: body.status,
          plan: body.plan,
          capabilities: body.capabilities,
          valid_from: validFrom,
          valid_until: validUntil,
          sequence,
          created_at: before?.created_at ?? now,
          updated_at: now,
        };
        await repo.upsertEntitlement(trx, row);
        const entitlement = repo.toEntitlement(row);
        const eventId = deps.newId();
        await repo.insertChange(trx, {
          tenantId,
          appId,
          sequence,
          eventId,
          actorId,
          entitlement,
          previous: before ? repo.toEntitlement(before) : null,
          occurredAt: now,
          changedBy: principal.id,
        });
        await deps.onChange?.(trx, { tenantId, appId, sequence, eventId, actorId, occurredAt: now });
        await recordAudit(trx, {
          tenantId,
          id: deps.newId(),
          type: "entitlement.changed",
          occurredAt: now,
          actor: actorOf(principal),
          // What changed is the actor's entitlement in the app: the actor is the target.
          targetType: "entitlement",
          targetId: actorId,
          data: { appId, actorId, sequence, status: body.status },
        });
        return entitlement;
      });
    },

    async getEntitlement(principal: Principal, appId: string, actorId: string) {
      const row = await repo.findEntitlement(db, principal.tenant.id, appId, actorId);
      if (!row) {
        if (!(await repo.findApp(db, principal.tenant.id, appId))) throw noSuchApp();
        throw new AppError("ERR_NOT_FOUND", "The actor has no entitlement for this app.");
      }
      return repo.toEntitlement(row);
    },

    async listEntitlements(principal: Principal, appId: string, page: PageRequest) {
      const tenantId = principal.tenant.id;
      if (!(await repo.findApp(db, tenantId, appId))) throw noSuchApp();
      return readPage(deps.cursors, `admin.entitlements:${tenantId}:${appId}`, page, {
        fetch: (after: string | undefined, order) =>
          repo.listEntitlements(db, tenantId, appId, page.limit, after, order),
        position: (last) => last.actor_id,
        view: repo.toEntitlement,
      });
    },

    /**
     * One actor's history: its changes still kept in the app's change feed, newest first. Changes
     * up to the stream's `prunedThrough` are gone (the feed's retention) from the history too.
     */
    async listEntitlementHistory(principal: Principal, appId: string, actorId: string, page: PageRequest) {
      checkActorId(actorId);
      const tenantId = principal.tenant.id;
      const stream = await repo.streamState(db, tenantId, appId);
      if (!stream) throw noSuchApp();
      const binding = `admin.entitlementHistory:${tenantId}:${appId}:${actorId}`;
      const { items, meta } = await readPage(deps.cursors, binding, page, {
        fetch: (before: number | undefined) =>
          repo.actorChanges(db, tenantId, appId, actorId, before, page.limit),
        position: (last) => last.sequence,
        view: (row) => ({
          sequence: row.sequence,
          eventId: row.event_id,
          entitlement: row.entitlement,
          occurredAt: row.occurred_at.toISOString(),
          changedBy: row.changed_by,
        }),
      });
      return { items, meta: { ...meta, prunedThrough: stream.prunedThrough } };
    },
  };
}

export type EntitlementsService = ReturnType<typeof createEntitlementsService>;
