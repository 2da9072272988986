import { recordAudit } from "../../../platform/audit/index.js";
import { readBlobBytes } from "../../../platform/blobs/index.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import type { ProcessingRunner } from "./processing-runner.js";
import { createBatchProcessing, OneByOne, type BatchUpload } from "./processing.batch.js";
import {
  buildUpload,
  createUploadRecorder,
  duplicateCheck,
  DuplicateFound,
  logRecorded,
} from "./processing.outcome.js";
import * as repo from "./processing.repository.js";
import type { Catalog } from "./processing.rules.js";

/** How often one job re-runs an upload for a duplicate found before the job itself retries. */
const maxDuplicateRuns = 3;

/** The worker's side of an upload: its EDIFACT work, its outbound messages, its final status. */
export function createProcessingService(deps: ExchangeDeps & { runner: ProcessingRunner }) {
  const { database, clock } = deps;
  const { db } = database;

  const recordUploads = createUploadRecorder(deps);
  const processTogether = createBatchProcessing(deps, recordUploads);

  /** One run of `processUpload`; throws DuplicateFound for a duplicate not known yet. */
  async function processOnce(tenantId: string, uploadId: string, duplicateOf: string | null): Promise<void> {
    const upload = await repo.startProcessing(db, tenantId, uploadId, clock.now());
    if (!upload) return;
    const { profile } = upload;
    if (!profile) throw new Error("profile revision of the upload is missing");
    const bytes = await readBlobBytes(database, tenantId, upload.blob_id);
    if (bytes.length !== upload.byte_count) throw new Error("stored upload is incomplete");
    // Parse, validate, plan and serialize: on a worker thread for a large interchange.
    const run = await deps.runner.analyse(bytes, profile);
    try {
      const { summary } = run;
      const duplicate = duplicateCheck(summary, profile.duplicateWindowDays, duplicateOf, clock);
      const catalog: Catalog =
        summary.gtins.length > 0 && duplicate.duplicateOf === null
          ? await deps.workflows.productStates(tenantId, summary.gtins)
          : new Map();
      const plan = await run.plan(catalog, duplicate.duplicateOf !== null);
      const now = clock.now();
      const controlRefs = await repo.nextControlRefs(db, plan.types.length);
      const built = await buildUpload({ upload, profile, run, plan, duplicate, controlRefs, now });
      // The one write path, for a list of one (large outbound blobs and a duplicate's re-run are
      // the single upload's own).
      const [written] = await recordUploads([built], now);
      // In the job's trace: the line names the upload request's trace and correlation id.
      if (written) logRecorded(deps.logger, written);
    } finally {
      run.end();
    }
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

    /**
     * Several uploads (a batch of jobs): together in one transaction when they can be, else — a
     * duplicate interchange, an upload that fails — one by one as `processUpload`, so one failing
     * upload never fails the others. Answers each upload's failure (undefined: done), in order.
     */
    async processUploads(batch: readonly BatchUpload[]): Promise<unknown[]> {
      // In upload order (UUIDv7 ids: the order of acceptance): the mailbox positions and which of
      // two uploads of one interchange is the duplicate follow it.
      const items = [...batch].sort((a, b) =>
        a.uploadId < b.uploadId ? -1 : a.uploadId > b.uploadId ? 1 : 0,
      );
      let alone: readonly BatchUpload[] = items;
      if (items.length > 1) {
        try {
          alone = await processTogether(items);
        } catch (error) {
          alone = items;
          if (!(error instanceof OneByOne)) {
            deps.logger.warn(
              { uploads: items.length, err: error },
              "processing a batch of uploads failed; processing them one by one",
            );
          } else
            deps.logger.debug({ uploads: items.length, reason: error.message }, "batch processed one by one");
        }
      }
      const failures = new Map<string, unknown>();
      for (const item of alone) {
        try {
          await item.inTrace(() => this.processUpload(item.tenantId, item.uploadId));
        } catch (error) {
          failures.set(item.uploadId, error ?? new Error("processing failed"));
        }
      }
      return batch.map((item) => failures.get(item.uploadId));
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
