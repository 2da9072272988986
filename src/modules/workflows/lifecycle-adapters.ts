import type { Selectable } from "kysely";
import type { Config } from "../../config/index.js";
import type { Principal } from "../../platform/auth/index.js";
import type { Clock } from "../../platform/clock/clock.js";
import { isUuid, sealingKey, secretKeysOf, type IdGenerator } from "../../platform/crypto/index.js";
import type { Database } from "../../platform/db/database.js";
import { AppError } from "../../platform/errors/app-error.js";
import { readPage, toCreationPosition, type CursorCodec } from "../../platform/http/cursor.js";
import { openSealedSecret, sealSecret } from "../../platform/crypto/index.js";
import { adapterSealedColumns } from "./sealed-columns.js";
import {
  OutboundError,
  OutboundTargetError,
  newWebhookSecret,
  signWebhook,
  type OutboundClient,
} from "../../platform/outbound/index.js";
import type { AdapterGate, AdapterVerdict, LifecycleAdapter } from "./transition.job.js";
import * as repo from "./workflows.repository.js";
import type { WorkflowLifecycleAdaptersTable, WorkflowTables } from "./workflows.tables.js";

/** rules/contract §6: an adapter request body is at most 64 KiB. */
export const adapterBodyLimit = 64 * 1024;
export const lifecycleAdaptersHref = "/api/v1/admin/lifecycle-adapters";

export interface LifecycleAdapterDeps {
  config: Pick<Config, "HANSE_SECRET_KEY" | "HANSE_SECRET_KEY_PREVIOUS">;
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  cursors: CursorCodec;
  outbound: OutboundClient;
}

const toAdapter = (row: Selectable<WorkflowLifecycleAdaptersTable>) => ({
  id: row.id,
  kind: row.kind,
  url: row.url,
  timeoutMs: row.timeout_ms,
  maxAttempts: row.max_attempts,
  createdAt: row.created_at.toISOString(),
});

export function createLifecycleAdapters(deps: LifecycleAdapterDeps) {
  const db = deps.database.as<WorkflowTables>().db;
  const outbound = deps.outbound;
  const encryptionKey = sealingKey(secretKeysOf(deps.config), deps.database.db, "workflow-adapter-secrets");

  const invalidUrl = (message: string) =>
    new AppError("ERR_VALIDATION", `The adapter URL is not usable: ${message}.`, {
      errors: [{ pointer: "/url", message }],
    });

  const gate: AdapterGate = {
    async forKind(tenantId, kind): Promise<LifecycleAdapter | undefined> {
      const row = await repo.findAdapterForKind(db, tenantId, kind);
      if (!row) return undefined;
      return {
        maxAttempts: row.max_attempts,
        async consult({ request, entity, fromState, toState }): Promise<AdapterVerdict> {
          const body = JSON.stringify({
            type: "workflow.transition.requested",
            requestId: request.id,
            tenantId: request.tenant_id,
            entity: { id: entity.id, kind: entity.kind, state: entity.state, version: entity.version },
            transition: request.transition,
            fromState,
            toState,
            payload: request.payload,
          });
          if (Buffer.byteLength(body) > adapterBodyLimit) {
            return { outcome: "rejected", message: "The lifecycle adapter request would exceed 64 KiB." };
          }
          const secret = openSealedSecret(await encryptionKey(), row.secret, "adapter secret");
          const timestamp = Math.floor(deps.clock.now().getTime() / 1000);
          // webhook-id is the request id: the same on every retry, so the adapter can deduplicate.
          const headers = {
            "content-type": "application/json",
            "user-agent": "hanse-lifecycle-adapter/1",
            "webhook-id": request.id,
            "webhook-timestamp": String(timestamp),
            "webhook-signature": signWebhook(secret, request.id, timestamp, body),
          };
          let status: number;
          try {
            ({ status } = await outbound.post(row.url, body, headers, row.timeout_ms));
          } catch (error) {
            const reason =
              error instanceof OutboundError
                ? error.errorClass === "timeout"
                  ? "timed out"
                  : error.errorClass === "address" || error.errorClass === "dns"
                    ? error.message
                    : "could not be reached"
                : "could not be reached";
            return { outcome: "unavailable", message: `The lifecycle adapter ${reason}.` };
          }
          if (status >= 200 && status < 300) return { outcome: "allowed" };
          if (status >= 400 && status < 500) {
            return {
              outcome: "rejected",
              message: `The lifecycle adapter refused the transition (HTTP ${status}).`,
            };
          }
          return { outcome: "unavailable", message: `The lifecycle adapter answered HTTP ${status}.` };
        },
      };
    },
  };

  return {
    gate,
    sealedColumns: adapterSealedColumns(deps.database.db, encryptionKey),

    async create(
      principal: Principal,
      body: { kind: string; url: string; timeoutMs?: number | undefined; maxAttempts?: number | undefined },
    ) {
      let url: URL;
      try {
        url = await outbound.checkTarget(body.url);
      } catch (error) {
        if (error instanceof OutboundTargetError) throw invalidUrl(error.message);
        throw error;
      }
      if (!(await repo.findDefinition(db, principal.tenant.id, body.kind))) {
        throw new AppError("ERR_VALIDATION", "The tenant has no workflow for this entity kind.", {
          errors: [{ pointer: "/kind", message: "no workflow definition for this kind" }],
        });
      }
      const secret = newWebhookSecret();
      const row = {
        tenant_id: principal.tenant.id,
        id: deps.newId(),
        kind: body.kind,
        url: url.href,
        secret: sealSecret(await encryptionKey(), secret),
        timeout_ms: body.timeoutMs ?? 5000,
        max_attempts: body.maxAttempts ?? 5,
        created_at: deps.clock.now(),
      };
      if (!(await repo.insertAdapter(db, row))) {
        throw new AppError("ERR_CONFLICT", "The tenant already has a lifecycle adapter for this kind.");
      }
      return { ...toAdapter(row), secret };
    },

    async get(principal: Principal, id: string) {
      const row = isUuid(id) ? await repo.findAdapter(db, principal.tenant.id, id.toLowerCase()) : undefined;
      if (!row) throw new AppError("ERR_NOT_FOUND", "No such lifecycle adapter.");
      return toAdapter(row);
    },

    async list(principal: Principal, options: { limit: number; cursor?: string | undefined }) {
      const tenantId = principal.tenant.id;
      return readPage(deps.cursors, `admin.lifecycleAdapters:${tenantId}`, options, {
        fetch: (after, order) => repo.listAdapters(db, tenantId, options.limit, after, order),
        position: toCreationPosition,
        view: toAdapter,
      });
    },
  };
}

export type LifecycleAdapters = ReturnType<typeof createLifecycleAdapters>;
