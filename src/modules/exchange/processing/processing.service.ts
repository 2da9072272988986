import type { Finding, OutboundEnvelope } from "../../../edifact/index.js";
import { recordAudit } from "../../../platform/audit/index.js";
import { readBlobBytes, writeBlob } from "../../../platform/blobs/index.js";
import { findRevision, reservePositions } from "../connections.repository.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import { insertDelivery, readyForClaim } from "../mailbox/index.js";
import type { ProcessingRunner } from "./processing-runner.js";
import * as repo from "./processing.repository.js";
import {
  outboundObserver,
  type AnalysisSummary,
  type Catalog,
  type OutboundPlan,
} from "./processing.rules.js";

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
    },
  ): Promise<void> {
    const { summary, plan, envelopes, payloads, now } = outcome;
    const { types } = plan;
    const uploadId = upload.id;
    await database.transaction(async (trx) => {
      const current = await repo.lockUpload(trx, tenantId, uploadId);
      if (current?.status !== "processing") return;
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
      const first =
        types.length > 0 ? await reservePositions(trx, tenantId, upload.connection_id, types.length) : 0;
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
      const status = summary.rejected ? "rejected" : "processed";
      const findings: readonly Finding[] =
        plan.findings.length === 0 ? summary.findings : [...summary.findings, ...plan.findings];
      await repo.setUploadStatus(
        trx,
        tenantId,
        uploadId,
        status,
        now,
        findings.length > 0 ? { findings } : {},
      );
      await recordAudit(trx, {
        tenantId,
        id: deps.newId(),
        type: `upload.${status}`,
        occurredAt: now,
        principalId: null,
        connectionId: upload.connection_id,
        uploadId,
        outcome: status,
        data: { outboundCount: types.length, findingCount: findings.length },
      });
    });
  }

  return {
    /**
     * Parses and validates an upload under its profile revision and writes the outbound
     * interchanges into the connection's mailbox. The mailbox entries and the final status are
     * written in one transaction, so a re-run after a crash never duplicates entries.
     */
    async processUpload(tenantId: string, uploadId: string): Promise<void> {
      const upload = await repo.findUpload(db, tenantId, uploadId);
      if (
        !upload ||
        upload.status === "processed" ||
        upload.status === "rejected" ||
        upload.status === "failed"
      ) {
        return;
      }
      await repo.setUploadStatus(db, tenantId, uploadId, "processing", clock.now(), { from: ["received"] });
      const revision = await findRevision(db, tenantId, upload.connection_id, upload.profile_revision);
      if (!revision) throw new Error("profile revision of the upload is missing");
      const profile = revision.profile;
      const bytes = await readBlobBytes(database, tenantId, upload.blob_id);
      // Parse, validate, plan and serialize: on a worker thread for a large interchange.
      const run = await deps.runner.analyse(bytes, profile);
      try {
        const { summary } = run;
        const catalog: Catalog =
          summary.gtins.length > 0 ? await deps.workflows.productStates(tenantId, summary.gtins) : new Map();
        const plan = await run.plan(catalog);
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
        await record(tenantId, upload, { summary, plan, envelopes, payloads, now });
      } finally {
        run.end();
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
          outcome: "failed",
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
