import type { FastifyBaseLogger as Logger } from "fastify";
import type { Selectable, Transaction } from "kysely";
import type { Clock } from "../../platform/clock/clock.js";
import type { Database } from "../../platform/db/database.js";
import type { RaiseOperatorEvent } from "../entitlements/index.js";
import { defineJob, type JobContext, type JobDefinition } from "../../platform/jobs/index.js";
import { isTerminal, nextState, transitionErrorCodes, type TransitionErrorCode } from "./workflow-rules.js";
import * as repo from "./workflows.repository.js";
import { transitionJobSpec } from "./transition-requests.service.js";
import { toDefinition } from "./workflows.service.js";
import type {
  TransitionError,
  WorkflowEntitiesTable,
  WorkflowTables,
  WorkflowTransitionRequestsTable,
} from "./workflows.tables.js";

export interface TransitionJobPayload {
  tenantId: string;
  requestId: string;
}

type RequestRow = Selectable<WorkflowTransitionRequestsTable>;
type EntityRow = Selectable<WorkflowEntitiesTable>;

/** What a lifecycle adapter said about one transition. */
export type AdapterVerdict =
  | { outcome: "allowed" }
  | { outcome: "rejected"; message: string }
  | { outcome: "unavailable"; message: string };

/** A tenant's lifecycle adapter for one entity kind. */
export interface LifecycleAdapter {
  maxAttempts: number;
  consult(input: {
    request: RequestRow;
    entity: EntityRow;
    fromState: string;
    toState: string;
  }): Promise<AdapterVerdict>;
}

/** Finds the lifecycle adapter a tenant registered for an entity kind. */
export interface AdapterGate {
  forKind(tenantId: string, kind: string): Promise<LifecycleAdapter | undefined>;
}

/** Thrown to let the job queue retry with backoff while the adapter's attempt budget lasts. */
export class AdapterUnavailableError extends Error {
  override readonly name = "AdapterUnavailableError";
}

/** Optimistic-concurrency retries before a request gives up with ERR_WORKFLOW_CONFLICT. */
const maxConflictRetries = 5;

type Evaluation =
  | { ok: true; entity: EntityRow; toState: string }
  | { ok: false; error: TransitionError & { code: TransitionErrorCode } };

export interface TransitionProcessorDeps {
  database: Database;
  clock: Clock;
  logger: Logger;
  adapters?: AdapterGate;
  /** Operator notifications (rules/contract §8): `workflows.request.failed`, in the failing transaction. */
  raiseOperatorEvent?: RaiseOperatorEvent;
  /** A request reached its terminal status (metrics): the status and when it was accepted. */
  onFinished?(status: "succeeded" | "failed", acceptedAt: Date): void;
}

/**
 * Processes one transition request. Crash-safe: every step is committed before the next one,
 * the request row is locked while its outcome is decided, and the entity changes in the same
 * transaction that marks the request terminal — so a rerun after a crash finds the request
 * terminal and never applies the transition twice.
 */
export function createTransitionProcessor(deps: TransitionProcessorDeps) {
  const database = deps.database.as<WorkflowTables>();

  async function evaluate(db: Transaction<WorkflowTables>, request: RequestRow): Promise<Evaluation> {
    const entity = await repo.findEntity(db, request.tenant_id, request.entity_id);
    const definition = entity ? await repo.findDefinition(db, request.tenant_id, entity.kind) : undefined;
    if (!entity || entity.kind !== request.entity_kind || !definition) {
      return {
        ok: false,
        error: {
          code: transitionErrorCodes.entityNotFound,
          message: `No ${request.entity_kind} entity with this id exists in the tenant.`,
        },
      };
    }
    const toState = nextState(toDefinition(definition), entity.state, request.transition);
    if (toState === null) {
      return {
        ok: false,
        error: {
          code: transitionErrorCodes.notAllowed,
          message: `The transition ${request.transition} is not allowed from the state ${entity.state}.`,
        },
      };
    }
    return { ok: true, entity, toState };
  }

  /**
   * Ends a locked, not yet terminal request `failed`, and raises `workflows.request.failed` in the
   * same transaction: once, since only a request that was not terminal gets here.
   */
  async function completeFailed(
    trx: Transaction<WorkflowTables>,
    row: { tenant_id: string; id: string },
    error: TransitionError,
    now: Date,
  ): Promise<void> {
    await repo.completeRequest(trx, row.tenant_id, row.id, { status: "failed", error }, now);
    await deps.raiseOperatorEvent?.(trx, {
      tenantId: row.tenant_id,
      type: "workflows.request.failed",
      occurredAt: now,
      subject: { requestId: row.id },
    });
  }

  async function fail(request: { tenant_id: string; id: string }, error: TransitionError): Promise<void> {
    const failed = await database.transaction(async (trx) => {
      const row = await repo.lockRequest(trx, request.tenant_id, request.id);
      if (!row || isTerminal(row.status)) return undefined;
      await completeFailed(trx, row, error, deps.clock.now());
      return row;
    });
    if (failed) deps.onFinished?.("failed", failed.created_at);
    deps.logger.info(
      { requestId: request.id, tenantId: request.tenant_id, outcome: "failed", code: error.code },
      "workflow transition request finished",
    );
  }

  /** pending → processing; undefined when the request is gone or already terminal. */
  async function start(payload: TransitionJobPayload): Promise<RequestRow | undefined> {
    return database.transaction(async (trx) => {
      const row = await repo.lockRequest(trx, payload.tenantId, payload.requestId);
      if (!row || isTerminal(row.status)) return undefined;
      if (row.status === "pending")
        await repo.markRequestProcessing(trx, row.tenant_id, row.id, deps.clock.now());
      return row;
    });
  }

  /**
   * Applies the transition and completes the request in one transaction. `vetted` pins the entity
   * version a lifecycle adapter approved: if the entity moved on since, the request fails with
   * ERR_WORKFLOW_CONFLICT instead of applying what nobody approved.
   * Returns false when another writer changed the entity first (retry).
   */
  async function apply(request: RequestRow, vetted?: { version: number }): Promise<boolean> {
    return database.transaction(async (trx) => {
      const row = await repo.lockRequest(trx, request.tenant_id, request.id);
      if (!row || isTerminal(row.status)) return true;
      const now = deps.clock.now();
      const evaluation = await evaluate(trx, row);
      if (!evaluation.ok) {
        await completeFailed(trx, row, evaluation.error, now);
        return true;
      }
      const { entity, toState } = evaluation;
      if (vetted && entity.version !== vetted.version) {
        const error = conflictError("The entity changed while the lifecycle adapter was consulted.");
        await completeFailed(trx, row, error, now);
        return true;
      }
      const version = await repo.updateEntityState(
        trx,
        { tenantId: row.tenant_id, id: entity.id, expectedVersion: entity.version },
        toState,
        now,
      );
      if (version === undefined) return false;
      await repo.completeRequest(
        trx,
        row.tenant_id,
        row.id,
        { status: "succeeded", result: { fromState: entity.state, toState }, appliedVersion: version },
        now,
      );
      return true;
    });
  }

  async function process(payload: TransitionJobPayload, context: JobContext): Promise<void> {
    const request = await start(payload);
    if (!request) return;

    let vetted: { version: number } | undefined;
    const adapter = await deps.adapters?.forKind(request.tenant_id, request.entity_kind);
    if (adapter) {
      // The adapter is called outside any transaction: no lock is held across the network.
      const preview = await database.transaction((trx) => evaluate(trx, request));
      if (!preview.ok) {
        await fail(request, preview.error);
        return;
      }
      const verdict = await adapter.consult({
        request,
        entity: preview.entity,
        fromState: preview.entity.state,
        toState: preview.toState,
      });
      if (verdict.outcome === "rejected") {
        await fail(request, { code: transitionErrorCodes.adapterRejected, message: verdict.message });
        return;
      }
      if (verdict.outcome === "unavailable") {
        if (context.attempt >= Math.min(adapter.maxAttempts, context.maxAttempts)) {
          await fail(request, { code: transitionErrorCodes.adapterUnavailable, message: verdict.message });
          return;
        }
        throw new AdapterUnavailableError(verdict.message);
      }
      vetted = { version: preview.entity.version };
    }

    for (let attempt = 0; attempt < maxConflictRetries; attempt++) {
      if (await apply(request, vetted)) {
        await logOutcome(request);
        return;
      }
    }
    await fail(request, conflictError("The entity kept changing; the transition was not applied."));
  }

  async function logOutcome(request: RequestRow): Promise<void> {
    const row = await repo.findRequest(database.db, request.tenant_id, request.id);
    if (row && isTerminal(row.status))
      deps.onFinished?.(row.status as "succeeded" | "failed", row.created_at);
    deps.logger.info(
      {
        requestId: request.id,
        tenantId: request.tenant_id,
        outcome: row?.status,
        ...(row?.error ? { code: row.error.code } : {}),
      },
      "workflow transition request finished",
    );
  }

  /** The job's attempt budget is spent: the request ends failed with a stable code. */
  async function giveUp(payload: TransitionJobPayload, error: unknown): Promise<void> {
    const unavailable = error instanceof AdapterUnavailableError;
    await fail(
      { tenant_id: payload.tenantId, id: payload.requestId },
      unavailable
        ? { code: transitionErrorCodes.adapterUnavailable, message: error.message }
        : { code: transitionErrorCodes.internal, message: "Processing failed repeatedly." },
    );
  }

  return { process, giveUp };
}

const conflictError = (message: string): TransitionError & { code: TransitionErrorCode } => ({
  code: transitionErrorCodes.conflict,
  message,
});

/** The queue event of a transition request: retried with backoff, 12 attempts at most. */
export function transitionJob(
  processor: ReturnType<typeof createTransitionProcessor>,
): JobDefinition<TransitionJobPayload> {
  return defineJob<TransitionJobPayload>({
    ...transitionJobSpec,
    backoffMs: (attempts) => Math.min(1000 * 2 ** (attempts - 1), 60_000),
    run: (payload, context) => processor.process(payload, context),
    onDead: (payload, error) => processor.giveUp(payload, error),
  });
}
