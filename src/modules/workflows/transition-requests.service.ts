import type { Selectable } from "kysely";
import type { DeferredCredential, Principal } from "../../platform/auth/index.js";
import { isUuid } from "../../platform/crypto/index.js";
import { createStatementBatcher } from "../../platform/db/statement-batcher.js";
import { AppError } from "../../platform/errors/app-error.js";
import { readPage, toCreationPosition, type PageRequest } from "../../platform/http/cursor.js";
import { canonicalJson, type IdempotentOutcome } from "../../platform/http/idempotency.js";
import type { CreationPosition } from "../../platform/db/creation-order.js";
import { createJobNotifier, type JobSpec } from "../../platform/jobs/index.js";
import type { ModuleDeps } from "../module.js";
import { transitionRequestStatuses, type TransitionRequestStatus } from "./workflow-rules.js";
import * as repo from "./workflows.repository.js";
import type { WorkflowTables, WorkflowTransitionRequestsTable } from "./workflows.tables.js";

export const transitionJobName = "workflows.transition";
/** The transition job's name and budget, enqueued by this and defined by transition.job.ts. */
export const transitionJobSpec: JobSpec<{ tenantId: string; requestId: string }> = {
  name: transitionJobName,
  maxAttempts: 12,
};
export const transitionRequestsHref = "/api/v1/workflows/transition-requests";
/** The operator's list of transition requests (admin:read). */
export const adminTransitionRequestsHref = "/api/v1/admin/transition-requests";
export const transitionEndpoint = `POST ${transitionRequestsHref}`;
export const statusUrlFor = (requestId: string): string => `${transitionRequestsHref}/${requestId}`;
/** Seconds a client should wait before reading a status that is not terminal yet. */
export const statusRetryAfterSeconds = 1;

export interface TransitionRequestInput {
  entity: string;
  entityId: string;
  transition: string;
  payload?: Record<string, unknown>;
}

export const toStatusDocument = (row: Selectable<WorkflowTransitionRequestsTable>) => ({
  requestId: row.id,
  status: row.status,
  entity: row.entity_kind,
  entityId: row.entity_id,
  transition: row.transition,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
  completedAt: row.completed_at ? row.completed_at.toISOString() : null,
  result: row.result,
  error: row.error,
});

/** The filters of the operator's list: one entity, one status. */
export interface TransitionRequestFilter {
  entityId?: string | undefined;
  status?: string | undefined;
}

/** A status the list may filter by, else 400 naming the allowed ones. */
function wantedStatus(status: string | undefined): TransitionRequestStatus | undefined {
  if (status === undefined) return undefined;
  const known = transitionRequestStatuses.find((s) => s === status);
  if (!known) {
    const message = `status must be one of ${transitionRequestStatuses.join(", ")}`;
    throw new AppError("ERR_VALIDATION", `The request query is invalid: ${message}.`, {
      errors: [{ pointer: "/query/status", message }],
    });
  }
  return known;
}

/** The tenant a request names (`X-Tenant-ID`) must be the credential's: else 403. */
export function requireTenant(principal: Principal, tenantId: string): void {
  if (principal.tenant.id.toLowerCase() !== tenantId.toLowerCase()) {
    throw new AppError("ERR_FORBIDDEN", "The X-Tenant-ID header does not name the credential's tenant.");
  }
}

/** Requests one accept statement takes at most. */
const acceptBatchItems = 64;

/** Transition requests (rules/contract §6): their one accept statement and their status. */
export function createTransitionRequestsService(deps: Omit<ModuleDeps, "config">) {
  const database = deps.database.as<WorkflowTables>();
  const db = database.db;
  const wakeWorkers = createJobNotifier(database);
  const accepts = createStatementBatcher<repo.AcceptItem, repo.AcceptOutcome>({
    lanes: database.tuning.statementLanes,
    maxItems: acceptBatchItems,
    runItems: (items) => repo.acceptRequests(deps.database, items),
  });

  return {
    /**
     * Accepts a transition request: in one statement the idempotency record (unique per tenant,
     * endpoint and key), the request row and exactly one queue event. A retry replays the first
     * answer byte for byte; another entity, id, transition or payload under the key is a mismatch.
     */
    async requestTransition(
      caller: { tenantId: string; credential: DeferredCredential },
      key: string,
      body: TransitionRequestInput,
    ): Promise<IdempotentOutcome & { reference: string }> {
      const { tenantId, credential } = caller;
      const entityId = body.entityId.toLowerCase();
      const payload = body.payload ?? {};
      const fingerprint = canonicalJson({
        entity: body.entity,
        entityId,
        transition: body.transition,
        payload,
      });
      // Everything is decided in the process — ids, the answer — so the record, the request row
      // and the queue event are written by one statement (see repo.acceptRequests). Whether the
      // entity exists and the transition is allowed is the job's business: those are outcomes.
      const requestId = deps.newId();
      const statusUrl = statusUrlFor(requestId);
      const record = deps.idempotency.completedRecord(
        { tenantId, endpoint: transitionEndpoint, key, fingerprint },
        {
          status: 202,
          body: JSON.stringify({ requestId, status: "pending", statusUrl }),
          headers: { location: statusUrl, "retry-after": String(statusRetryAfterSeconds) },
        },
      );
      // The key's opaque reference for logs, from the hash the record already holds.
      const reference = deps.idempotency.referenceOf(record);
      // A retry of a key this process answered lately is answered from memory. The record is the
      // one of the tenant the caller names: the credential and its tenant are checked before any
      // answer about the key (a mismatch included), or another tenant could probe for keys.
      let recent: IdempotentOutcome | undefined;
      try {
        recent = deps.idempotency.recentReplay(record);
      } catch (error) {
        requireTenant(await credential.authenticate(), tenantId);
        throw error;
      }
      if (recent) {
        requireTenant(await credential.authenticate(), tenantId);
        return { ...recent, reference };
      }
      // No unique job key: the accept statement inserts the job only with the new request row,
      // whose primary key already makes it one per request (and spares an index entry per accept).
      const job = deps.jobs.newJobRow(transitionJobSpec, { tenantId, requestId }, { tenantId });
      // The statement checks the credential too: it writes only for a valid credential of this
      // tenant holding the scope, and returns the credential's row for the same decision here.
      // Requests arriving together share one statement (see createStatementBatcher).
      const check = credential.rowCheck(tenantId);
      const { claimed, credentialRow } = await accepts.run({
        check,
        record,
        request: {
          id: requestId,
          entityKind: body.entity,
          entityId,
          transition: body.transition,
          payload: JSON.stringify(payload),
        },
        job,
      });
      requireTenant(credential.settle(check, credentialRow), tenantId);
      if (!claimed) {
        const replay = await deps.idempotency.replayStored(record);
        // Only if the record vanished in between (expired and purged): the client retries.
        if (!replay) {
          throw new AppError(
            "ERR_IDEMPOTENCY_IN_PROGRESS",
            "A request with this idempotency key is still in progress.",
          );
        }
        return { ...replay, reference };
      }
      deps.idempotency.remember(record);
      wakeWorkers();
      return {
        status: record.statusCode,
        body: record.responseBody,
        headers: { location: statusUrl, "retry-after": String(statusRetryAfterSeconds) },
        replay: false,
        reference,
      };
    },

    /**
     * The tenant's transition requests in creation order, each as its status document; a cursor
     * is bound to the tenant and the filter (another filter's cursor is 400).
     */
    async listTransitionRequests(principal: Principal, page: PageRequest, filter: TransitionRequestFilter) {
      const tenantId = principal.tenant.id;
      const status = wantedStatus(filter.status);
      const entityId = filter.entityId?.toLowerCase();
      const binding = `admin.transitionRequests:${tenantId}:${entityId ?? ""}:${status ?? ""}`;
      return readPage(deps.cursors, binding, page, {
        fetch: (after: CreationPosition | undefined, order) =>
          repo.listRequests(db, tenantId, {
            order,
            limit: page.limit,
            entityId,
            statuses: status ? [status] : undefined,
            after,
          }),
        position: toCreationPosition,
        view: toStatusDocument,
      });
    },

    /** The status document; another tenant's request is indistinguishable from none. */
    async getTransitionRequest(principal: Principal, requestId: string) {
      const row = isUuid(requestId)
        ? await repo.findRequest(db, principal.tenant.id, requestId.toLowerCase())
        : undefined;
      if (!row) throw new AppError("ERR_NOT_FOUND", "No such transition request.");
      return toStatusDocument(row);
    },
  };
}
