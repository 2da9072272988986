import type { Finding, OutboundEnvelope } from "../../../edifact/index.js";
import { recordAudit } from "../../../platform/audit/index.js";
import { readBlobBytes, writeBlob } from "../../../platform/blobs/index.js";
import { lockConnection, reservePositions } from "../connections.repository.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import { insertDelivery, readyForClaim } from "../mailbox/index.js";
import type { ProcessingRunner } from "./processing-runner.js";
import * as repo from "./processing.repository.js";
import {
  duplicateFinding,
  outboundObserver,
  type AnalysisSummary,
  type Catalog,
  type OutboundPlan,
} from "./processing.rules.js";

const dayMs = 86_400_000;

/**
 * Thrown inside `record()` when a processed upload of the connection has the same interchange
 * (found under the connection's lock): the transaction rolls back and the upload is processed
 * again as the duplicate of `earlier` (CONTRL 26, nothing else). The check runs once per upload,
 * where it decides; a duplicate pays for one analysis more.
 */
class DuplicateFound extends Error {
  constructor(readonly earlier: string) {
    super("the upload repeats a processed upload");
  }
}

/** How often one job re-runs an upload for a duplicate found before the job itself retries. */
const maxDuplicateRuns = 3;

/** What the duplicate check of an upload needs (rules/contract §8). */
interface DuplicateCheck {
  /** SHA-256 of UNB sender, recipient and control reference; null without a readable UNB. */
  key: Buffer | null;
  /** Processed uploads completed since then count; null when the profile's window is 0. */
  since: Date | null;
  /** The earlier upload this one repeats, as found by an earlier run of the job. */
  duplicateOf: string | null;
}

/** The worker's side of an upload: its EDIFACT work, its outbound messages, its final status. */
export function createProcessingService(deps: ExchangeDeps & { runner: ProcessingRunner }) {
  const { database, clock } = deps;
  const { db } = database;
  const transfer = database.tuning.byteaTransfer;

  /**
   * The mailbox entries, their blobs, the upload's final status and its audit event, in one
   * transaction (a re-run after a crash never duplicates entries).
   */
  async function record(
    tenantId: string,
    upload: { id: string; connection_id: string; interchange_id: string | null },
    outcome: {
      summary: AnalysisSummary;
      plan: OutboundPlan;
      envelopes: readonly OutboundEnvelope[];
      payloads: readonly Uint8Array[];
      now: Date;
      duplicate: DuplicateCheck;
    },
  ): Promise<"processed" | "rejected" | undefined> {
    const { summary, plan, envelopes, payloads, now, duplicate } = outcome;
    const { types } = plan;
    const uploadId = upload.id;
    return database.transaction(async (trx) => {
      const current = await repo.lockUpload(trx, tenantId, uploadId);
      if (current?.status !== "processing") return undefined;
      // The blobs first: the connection's row stays locked from reserving the mailbox positions
      // to the commit, so every other upload of the connection waits that long.
      const blobs = [];
      for (const [index, payload] of payloads.entries()) {
        if (index >= types.length) break;
        blobs.push(
          await writeBlob(trx, clock, {
            tenantId,
            id: deps.newId(),
            contentType: "application/edifact",
            bytes: payload,
            transfer,
          }),
        );
      }
      const status = duplicate.duplicateOf !== null || summary.rejected ? "rejected" : "processed";
      // Reserving the mailbox positions locks the connection's row (as `lockConnection` does
      // when there is nothing to reserve): from here to the commit, every upload of the
      // connection that may become processed waits its turn.
      const first =
        types.length > 0 ? await reservePositions(trx, tenantId, upload.connection_id, types.length) : 0;
      if (duplicate.duplicateOf === null && duplicate.key && duplicate.since) {
        // The check under that lock (a fresh snapshot: READ COMMITTED) sees every upload of the
        // same interchange that committed before, also one processed at the same time. An upload
        // rejected for its own errors is checked too (a duplicate is answered with code 26), but
        // needs no lock: it never becomes the processed one.
        if (status === "processed" && types.length === 0) {
          await lockConnection(trx, tenantId, upload.connection_id);
        }
        const earlier = await repo.findProcessedDuplicate(
          trx,
          tenantId,
          upload.connection_id,
          duplicate.key,
          duplicate.since,
          uploadId,
        );
        // The rollback also returns the positions reserved.
        if (earlier) throw new DuplicateFound(earlier.id);
      }
      for (const [index, type] of types.entries()) {
        const envelope = envelopes[index];
        const blob = blobs[index];
        if (!envelope || !blob) throw new Error("a planned message was not built");
        await insertDelivery(trx, {
          tenant_id: tenantId,
          id: deps.newId(),
          connection_id: upload.connection_id,
          upload_id: uploadId,
          position: first + index,
          message_type: type,
          interchange_id: envelope.controlRef,
          inbound_interchange_id: summary.interchangeId ?? upload.interchange_id,
          message_reference: envelope.messageRef,
          answers_message_reference: plan.answers[index] ?? null,
          blob_id: blob.id,
          payload_size: blob.byteCount,
          payload_sha256: blob.sha256,
          ...readyForClaim(now),
          receipt_id: null,
          acknowledged_at: null,
          created_at: now,
          updated_at: now,
        });
      }
      const leading: readonly Finding[] =
        duplicate.duplicateOf === null
          ? []
          : [duplicateFinding(duplicate.duplicateOf, summary.headerPosition)];
      const findings: readonly Finding[] = [...leading, ...summary.findings, ...plan.findings];
      await repo.insertUploadDocuments(trx, tenantId, uploadId, summary.documentNumbers);
      await repo.setUploadStatus(trx, tenantId, uploadId, status, now, {
        ...(findings.length > 0 ? { findings } : {}),
        interchangeKey: duplicate.key,
        duplicateOf: duplicate.duplicateOf,
      });
      await recordAudit(trx, {
        tenantId,
        id: deps.newId(),
        type: `upload.${status}`,
        occurredAt: now,
        principalId: null,
        connectionId: upload.connection_id,
        uploadId,
        targetType: "upload",
        targetId: uploadId,
        outcome: status,
        data: {
          outboundCount: types.length,
          findingCount: findings.length,
          ...(duplicate.duplicateOf === null ? {} : { duplicateOf: duplicate.duplicateOf }),
        },
      });
      if (status === "rejected") {
        await deps.raiseOperatorEvent(trx, {
          tenantId,
          type: "exchange.upload.rejected",
          occurredAt: now,
          subject: { uploadId, connectionId: upload.connection_id },
        });
      }
      return status;
    });
  }

  /** One run of `processUpload`; throws DuplicateFound for a duplicate not known yet. */
  async function processOnce(tenantId: string, uploadId: string, duplicateOf: string | null): Promise<void> {
    const upload = await repo.startProcessing(db, tenantId, uploadId, clock.now());
    if (!upload) return;
    const { profile } = upload;
    if (!profile) throw new Error("profile revision of the upload is missing");
    const bytes = await readBlobBytes(database, tenantId, upload.blob_id);
    // Parse, validate, plan and serialize: on a worker thread for a large interchange.
    const run = await deps.runner.analyse(bytes, profile);
    try {
      const { summary } = run;
      const duplicate = duplicateCheck(summary, profile.duplicateWindowDays, duplicateOf);
      const catalog: Catalog =
        summary.gtins.length > 0 && duplicate.duplicateOf === null
          ? await deps.workflows.productStates(tenantId, summary.gtins)
          : new Map();
      const plan = await run.plan(catalog, duplicate.duplicateOf !== null);
      const { types } = plan;
      const now = clock.now();
      const controlRefs = await repo.nextControlRefs(db, types.length);
      const envelopes = controlRefs.map((controlRef): OutboundEnvelope => ({
        syntaxIdentifier: profile.syntaxIdentifier,
        syntaxVersion: profile.syntaxVersion,
        sender: profile.ownIdentification,
        recipient: profile.partnerIdentification,
        controlRef,
        messageRef: "1",
        preparedAt: now,
      }));
      const payloads = await run.build(envelopes);
      for (const [index, payload] of payloads.entries()) {
        const type = types[index];
        if (type) outboundObserver.check?.(type, payload, profile);
      }
      const status = await record(tenantId, upload, { summary, plan, envelopes, payloads, now, duplicate });
      // In the job's trace: the line names the upload request's trace and correlation id.
      if (status) {
        deps.logger.info(
          {
            tenantId,
            uploadId,
            status,
            outboundCount: plan.types.length,
            ...(duplicate.duplicateOf === null ? {} : { duplicateOf: duplicate.duplicateOf }),
          },
          "upload processed",
        );
      }
    } finally {
      run.end();
    }
  }

  /** The duplicate key of the upload's interchange and the window it is checked in (rules/contract §8). */
  function duplicateCheck(
    summary: AnalysisSummary,
    windowDays: number,
    duplicateOf: string | null,
  ): DuplicateCheck {
    const key = summary.interchangeKey ? repo.interchangeKeyHash(summary.interchangeKey) : null;
    if (!key || windowDays <= 0) return { key, since: null, duplicateOf: null };
    return { key, since: new Date(clock.now().getTime() - windowDays * dayMs), duplicateOf };
  }

  return {
    /**
     * Parses and validates an upload under its profile revision and writes the outbound
     * interchanges into the connection's mailbox. The mailbox entries and the final status are
     * written in one transaction, so a re-run after a crash never duplicates entries.
     */
    async processUpload(tenantId: string, uploadId: string): Promise<void> {
      let duplicateOf: string | null = null;
      for (let run = 1; ; run++) {
        try {
          await processOnce(tenantId, uploadId, duplicateOf);
          return;
        } catch (error) {
          if (!(error instanceof DuplicateFound) || run >= maxDuplicateRuns) throw error;
          duplicateOf = error.earlier;
          deps.logger.info(
            { tenantId, uploadId, duplicateOf },
            "upload repeats a processed upload; processing it as its duplicate",
          );
        }
      }
    },

    /** The attempt budget is spent: the upload is `failed` and the operator is alerted. */
    async failUpload(tenantId: string, uploadId: string, error: unknown): Promise<void> {
      const now = clock.now();
      await database.transaction(async (trx) => {
        const changed = await repo.setUploadStatus(trx, tenantId, uploadId, "failed", now, {
          error: "Internal processing error",
          from: ["received", "processing"],
        });
        if (!changed) return;
        const upload = await repo.findUpload(trx, tenantId, uploadId);
        await recordAudit(trx, {
          tenantId,
          id: deps.newId(),
          type: "upload.failed",
          occurredAt: now,
          principalId: null,
          connectionId: upload?.connection_id ?? null,
          uploadId,
          targetType: "upload",
          targetId: uploadId,
          outcome: "failed",
        });
        await deps.raiseOperatorEvent(trx, {
          tenantId,
          type: "exchange.upload.failed",
          occurredAt: now,
          subject: { uploadId, ...(upload ? { connectionId: upload.connection_id } : {}) },
        });
      });
      deps.logger.error(
        { tenantId, uploadId, err: error, alert: "exchange.upload.failed" },
        "upload processing failed",
      );
    },
  };
}

export type ProcessingService = ReturnType<typeof createProcessingService>;
